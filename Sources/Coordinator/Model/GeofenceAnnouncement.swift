import MeshTypes

/// A geofence as the mesh shares it: latitude/longitude corners (in `GeoPoint`'s units, degrees × 10⁷; altitude
/// unused) with a floor and a ceiling in millimetres above home. Built only through its checking initializers, so a
/// value of this type is always a usable fence: 3–64 corners, a simple polygon (no edge crosses another, none folds
/// back on its neighbour, corners at least 10 cm apart) spanning at most 50 km and enclosing at least 1 m², and a floor
/// below the ceiling, both within −1,000…10,000 m.
public struct SharedGeofence: Hashable, Sendable {
    /// Corners in order (either direction); each `altitudeMillimetres` is 0.
    public let corners: [GeoPoint]
    /// Lowest allowed altitude, millimetres above home.
    public let floorMillimetres: Int32
    /// Highest allowed altitude, millimetres above home.
    public let ceilingMillimetres: Int32

    /// The most corners a fence may have (its message stays under 600 bytes).
    public static let maxCorners = 64
    /// The largest distance of any corner from the first, metres.
    public static let maxSpan = 50_000.0
    /// The range floor and ceiling must be in, metres above home.
    public static let altitudeRange = -1000.0...10_000.0

    /// A fence from wire units. - Throws: ``GeofenceProblem`` naming the field (`corners`, `corners[i]`, `floor`,
    /// `ceiling`) and what is wrong.
    public init(corners: [GeoPoint], floorMillimetres: Int32, ceilingMillimetres: Int32) throws(GeofenceProblem) {
        guard (3...Self.maxCorners).contains(corners.count) else {
            throw GeofenceProblem(
                "corners", "a geofence needs 3–\(Self.maxCorners) corners, found \(corners.count)")
        }
        for (i, c) in corners.enumerated() {
            guard (-900_000_000...900_000_000).contains(c.latitudeE7) else {
                throw GeofenceProblem("corners[\(i)]", "latitude must be within -90…90 degrees, found \(c.latitude)")
            }
            guard (-1_800_000_000...1_800_000_000).contains(c.longitudeE7) else {
                throw GeofenceProblem(
                    "corners[\(i)]", "longitude must be within -180…180 degrees, found \(c.longitude)")
            }
        }
        let floor = Double(floorMillimetres) / 1000, ceiling = Double(ceilingMillimetres) / 1000
        for (name, value) in [("floor", floor), ("ceiling", ceiling)] where !Self.altitudeRange.contains(value) {
            throw GeofenceProblem(name, "must be within -1000…10000 m above home, found \(value) m")
        }
        guard floor < ceiling else {
            throw GeofenceProblem("ceiling", "must be above the floor (\(floor) m), found \(ceiling) m")
        }
        let flat = corners.map {
            GeoPoint(latitudeE7: $0.latitudeE7, longitudeE7: $0.longitudeE7, altitudeMillimetres: 0)
        }
        try Self.checkShape(flat)
        self.corners = flat
        self.floorMillimetres = floorMillimetres
        self.ceilingMillimetres = ceilingMillimetres
    }

    /// A fence from `[latitude, longitude]` pairs in degrees and a floor and ceiling in metres above home, checked as
    /// ``init(corners:floorMillimetres:ceilingMillimetres:)`` (and each number finite, each corner a pair).
    public init(degrees: [[Double]], floor: Double, ceiling: Double) throws(GeofenceProblem) {
        guard (3...Self.maxCorners).contains(degrees.count) else {
            throw GeofenceProblem("corners", "a geofence needs 3–\(Self.maxCorners) corners, found \(degrees.count)")
        }
        var points: [GeoPoint] = []
        for (i, pair) in degrees.enumerated() {
            guard pair.count == 2, pair.allSatisfy(\.isFinite) else {
                throw GeofenceProblem("corners[\(i)]", "expected [latitude, longitude] in degrees, found \(pair)")
            }
            guard (-90...90).contains(pair[0]) else {
                throw GeofenceProblem("corners[\(i)]", "latitude must be within -90…90 degrees, found \(pair[0])")
            }
            guard (-180...180).contains(pair[1]) else {
                throw GeofenceProblem("corners[\(i)]", "longitude must be within -180…180 degrees, found \(pair[1])")
            }
            points.append(GeoPoint(latitude: pair[0], longitude: pair[1], altitude: 0))
        }
        for (name, value) in [("floor", floor), ("ceiling", ceiling)]
        where !value.isFinite || !Self.altitudeRange.contains(value) {
            throw GeofenceProblem(name, "must be within -1000…10000 m above home, found \(value) m")
        }
        try self.init(
            corners: points, floorMillimetres: Int32((floor * 1000).rounded()),
            ceilingMillimetres: Int32((ceiling * 1000).rounded()))
    }

    /// Floor, metres above home.
    public var floor: Double { Double(floorMillimetres) / 1000 }
    /// Ceiling, metres above home.
    public var ceiling: Double { Double(ceilingMillimetres) / 1000 }
}

/// Why a geofence is refused: the field (`corners`, `corners[2]`, `floor`, `ceiling`) and the problem.
public struct GeofenceProblem: Error, Hashable, Sendable, CustomStringConvertible {
    public let field: String
    public let problem: String

    public init(_ field: String, _ problem: String) {
        self.field = field
        self.problem = problem
    }

    /// `corners[2]: repeats corners[1] (…)`.
    public var description: String { "\(field): \(problem)" }
}

/// Which announcement a node's fence came from: its epoch and announcing station (a link-state advertisement carries
/// it, so every node sees which fence each node uses).
public struct GeofenceStamp: Hashable, Sendable {
    /// The announcing station's epoch (its wall-clock milliseconds when it set the fence).
    public var epoch: UInt64
    /// The announcing station.
    public var announcedBy: NodeID

    public init(epoch: UInt64, announcedBy: NodeID) {
        self.epoch = epoch
        self.announcedBy = announcedBy
    }

    /// Whether this ranks above `other`: larger epoch, ties to the lower NodeID.
    public func outranks(_ other: GeofenceStamp) -> Bool {
        epoch != other.epoch ? epoch > other.epoch : announcedBy < other.announcedBy
    }
}

/// A station's geofence for the whole mesh, or its decision that there is none. The best-ranked announcement (larger
/// epoch, ties to the lower announcing NodeID) is in force on every node that heard it; drones fly it in place of
/// their configured fence.
public struct GeofenceAnnouncement: Hashable, Sendable {
    /// The station that set it (carried in the message: every station floods the fence in force, its own or not).
    public var announcedBy: NodeID
    /// The station's epoch for it.
    public var epoch: UInt64
    /// The fence; nil: no fence at all (drones fly without one, configured or not).
    public var fence: SharedGeofence?

    public init(announcedBy: NodeID, epoch: UInt64, fence: SharedGeofence?) {
        self.announcedBy = announcedBy
        self.epoch = epoch
        self.fence = fence
    }

    /// Epoch and announcer.
    public var stamp: GeofenceStamp { GeofenceStamp(epoch: epoch, announcedBy: announcedBy) }
}

/// The geofence announcement in force on this node and when it was last heard (or, on a station flooding it, sent).
public struct HeardGeofence: Hashable, Sendable {
    public var announcement: GeofenceAnnouncement
    public var lastHeardAt: MeshInstant

    public init(announcement: GeofenceAnnouncement, lastHeardAt: MeshInstant) {
        self.announcement = announcement
        self.lastHeardAt = lastHeardAt
    }
}
