/// One vehicle of the fleet picture, as `fleetmesh vehicles --json` prints it. Field names are a stable API.
public struct VehicleReport: Codable, Sendable, Hashable {
    /// UAV number, if the drone had one when it sent the sample.
    public var uavNumber: Int?
    /// NodeID, 32 hex digits.
    public var node: String
    /// Node name from its link-state advertisement (or its short id).
    public var name: String
    /// `station` or `drone`.
    public var role: String
    public var latitude: Double
    public var longitude: Double
    /// Metres above the drone's home.
    public var altitude: Double
    /// Ground speed, m/s.
    public var speed: Double
    /// Heading in degrees.
    public var heading: Double
    /// landed, takingOff, hovering, flyingToTarget, following, followingTrajectory, landing, returning.
    public var activity: String
    public var armed: Bool
    public var batteryPercent: Int
    /// Milliseconds since the sample was received.
    public var ageMs: Int
    /// Older than the stale limit (1 s).
    public var stale: Bool
    /// Link quality to the drone's flight controller, 0…100 (always 100 for the simulator; 0 while an autopilot is silent).
    public var linkQuality: Int?
    /// Velocity north, east and up, m/s (to place the vehicle at a common time: position + velocity × age).
    public var velocityNorth: Double?
    public var velocityEast: Double?
    public var velocityUp: Double?
    /// The name of the station holding the drone's control lease, as the drone announces it; absent when none does.
    public var controller: String?
    /// That station's NodeID, 32 hex digits.
    public var controllerNode: String?
    /// Whether that station is the node answering (present with `controller`).
    public var controlledHere: Bool?

    public init(
        uavNumber: Int? = nil,
        node: String,
        name: String,
        role: String,
        latitude: Double,
        longitude: Double,
        altitude: Double,
        speed: Double,
        heading: Double,
        activity: String,
        armed: Bool,
        batteryPercent: Int,
        ageMs: Int,
        stale: Bool,
        linkQuality: Int? = nil,
        velocityNorth: Double? = nil,
        velocityEast: Double? = nil,
        velocityUp: Double? = nil,
        controller: String? = nil,
        controllerNode: String? = nil,
        controlledHere: Bool? = nil
    ) {
        self.uavNumber = uavNumber
        self.node = node
        self.name = name
        self.role = role
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.speed = speed
        self.heading = heading
        self.activity = activity
        self.armed = armed
        self.batteryPercent = batteryPercent
        self.ageMs = ageMs
        self.stale = stale
        self.linkQuality = linkQuality
        self.velocityNorth = velocityNorth
        self.velocityEast = velocityEast
        self.velocityUp = velocityUp
        self.controller = controller
        self.controllerNode = controllerNode
        self.controlledHere = controlledHere
    }
}

/// One drone's predicted trajectory, as `fleetmesh airspace --json` prints it.
public struct AirspaceReport: Codable, Sendable, Hashable {
    public var uavNumber: Int?
    public var node: String
    public var name: String
    /// Milliseconds since the prediction was received.
    public var ageMs: Int
    /// Spacing of the points, milliseconds.
    public var stepMs: Int
    /// `[latitude, longitude, altitude]` per point; point i is (i + 1) × stepMs after the prediction was made.
    public var points: [[Double]]
    /// Whether the drone avoids others while flying this (false: the others keep away from it).
    public var avoiding: Bool
    /// How fast the drone may stray from the points, metres per second of the prediction's age (absent: it flies
    /// them as predicted; an autopilot drone whose recent predictions went wrong publishes one).
    public var uncertaintyGrowth: Double?

    public init(
        uavNumber: Int? = nil,
        node: String,
        name: String,
        ageMs: Int,
        stepMs: Int,
        points: [[Double]],
        avoiding: Bool = true,
        uncertaintyGrowth: Double? = nil
    ) {
        self.uavNumber = uavNumber
        self.node = node
        self.name = name
        self.ageMs = ageMs
        self.stepMs = stepMs
        self.points = points
        self.avoiding = avoiding
        self.uncertaintyGrowth = uncertaintyGrowth
    }
}

/// The answers to one command sent with `fleetmesh send`.
public struct CommandReport: Codable, Sendable, Hashable {
    /// One answer and when it came.
    public struct Answer: Codable, Sendable, Hashable {
        /// `accepted`, `rejected`, `completed` or `failed`.
        public var answer: String
        /// Why (rejected and failed only).
        public var reason: String?
        /// Milliseconds after the command was sent.
        public var afterMs: Int

        public init(
            answer: String,
            reason: String? = nil,
            afterMs: Int
        ) {
            self.answer = answer
            self.reason = reason
            self.afterMs = afterMs
        }
    }

    public var uavNumber: Int
    /// The command as understood, e.g. "takeoff 10".
    public var command: String
    public var answers: [Answer]
    /// True if no final answer came within the timeout.
    public var timedOut: Bool

    /// Whether the command ended well: accepted and completed (or, for a command still running, accepted so far).
    public var succeeded: Bool {
        !timedOut && answers.allSatisfy { $0.answer == "accepted" || $0.answer == "completed" } && !answers.isEmpty
    }

    public init(
        uavNumber: Int,
        command: String,
        answers: [Answer],
        timedOut: Bool
    ) {
        self.uavNumber = uavNumber
        self.command = command
        self.answers = answers
        self.timedOut = timedOut
    }
}

/// What `fleetmesh target` did.
public struct TargetReport: Codable, Sendable, Hashable {
    /// "UAV n" or "all".
    public var address: String
    public var latitude: Double
    public var longitude: Double
    public var altitude: Double
    /// With `follow`: the answers to the follow command sent to each addressed drone.
    public var follow: [CommandReport]?

    public init(
        address: String,
        latitude: Double,
        longitude: Double,
        altitude: Double,
        follow: [CommandReport]? = nil
    ) {
        self.address = address
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.follow = follow
    }
}

/// The map origin this node agrees on, as `fleetmesh origin --json` prints it. Field names are a stable API.
public struct OriginReport: Codable, Sendable, Hashable {
    /// Degrees (to 10⁻⁷°, as announced on the wire).
    public var latitude: Double
    public var longitude: Double
    /// Metres (to 1 mm).
    public var altitude: Double
    /// The UTM zone of the map grid, like `33N` (forced by the station, else the origin's standard zone).
    public var zone: String
    /// Whether the station forced the zone.
    public var zoneForced: Bool
    /// The announcing station's name (or short id until its advertisement is known).
    public var announcedBy: String
    /// The announcing station's NodeID, 32 hex digits.
    public var announcedByNode: String
    /// The station's epoch for this origin (its wall-clock milliseconds when it set the origin).
    public var epoch: UInt64
    /// Milliseconds since the origin was last heard (this node's own: since it last announced it).
    public var ageMs: Int
    /// The origin's UTM easting and northing in `zone`, metres: the offset of the local map frame.
    public var utmEasting: Double
    public var utmNorthing: Double

    public init(
        latitude: Double,
        longitude: Double,
        altitude: Double,
        zone: String,
        zoneForced: Bool,
        announcedBy: String,
        announcedByNode: String,
        epoch: UInt64,
        ageMs: Int,
        utmEasting: Double,
        utmNorthing: Double
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.zone = zone
        self.zoneForced = zoneForced
        self.announcedBy = announcedBy
        self.announcedByNode = announcedByNode
        self.epoch = epoch
        self.ageMs = ageMs
        self.utmEasting = utmEasting
        self.utmNorthing = utmNorthing
    }
}

/// A drone's manual-control stream as it saw it (`manualControl` in NodeStatus). Field names are a stable API.
public struct ManualControlReport: Codable, Sendable, Hashable {
    /// Samples obeyed since the node started.
    public var received: Int
    /// Samples per second between the first and the last.
    public var rateHz: Double?
    /// Age of samples on arrival, milliseconds (by the sender's clock against this node's; the last 20,000 samples).
    public var latencyP50Ms: Double?
    public var latencyP99Ms: Double?
    public var latencyMaxMs: Double?
    /// Time between consecutive samples, milliseconds (the last 20,000).
    public var gapP99Ms: Double?
    public var gapMaxMs: Double?
    /// Milliseconds since the last sample.
    public var lastMsAgo: Int

    public init(
        received: Int,
        rateHz: Double? = nil,
        latencyP50Ms: Double? = nil,
        latencyP99Ms: Double? = nil,
        latencyMaxMs: Double? = nil,
        gapP99Ms: Double? = nil,
        gapMaxMs: Double? = nil,
        lastMsAgo: Int
    ) {
        self.received = received
        self.rateHz = rateHz
        self.latencyP50Ms = latencyP50Ms
        self.latencyP99Ms = latencyP99Ms
        self.latencyMaxMs = latencyMaxMs
        self.gapP99Ms = gapP99Ms
        self.gapMaxMs = gapMaxMs
        self.lastMsAgo = lastMsAgo
    }
}

/// What a station sent for `manual` (`fleetmesh manual`). Field names are a stable API.
public struct ManualStreamReport: Codable, Sendable, Hashable {
    /// The UAV numbers streamed to.
    public var uavs: [Int]
    /// Samples sent to each of them.
    public var samplesPerUAV: Int
    /// The rate achieved at the sender, samples per second per UAV.
    public var sentRateHz: Double
    public var durationMs: Int
    /// Numbers no reachable drone holds (or that are contested) when the stream ended: nothing was sent to them.
    public var unreachable: [Int]

    public init(
        uavs: [Int],
        samplesPerUAV: Int,
        sentRateHz: Double,
        durationMs: Int,
        unreachable: [Int]
    ) {
        self.uavs = uavs
        self.samplesPerUAV = samplesPerUAV
        self.sentRateHz = sentRateHz
        self.durationMs = durationMs
        self.unreachable = unreachable
    }
}
