import Coordinator
import MeshTypes

/// One simulated node: what it is and what it remembers from an earlier life.
public struct SimNodeSpec: Sendable {
    /// Station or drone.
    public var role: NodeRole
    /// Its name.
    public var name: String
    /// A UAV number pinned in its configuration.
    public var pinnedUAVNumber: UInt8?
    /// The number its shell persisted before the simulation starts.
    public var persistedUAVNumber: UInt8?
    /// Whether its vehicle starts in the air.
    public var startsFlying: Bool
    /// Whether the drone publishes telemetry (10 Hz) and predictions (5 Hz).
    public var publishesTelemetry: Bool

    /// A node from its fields.
    public init(
        role: NodeRole, name: String, pinnedUAVNumber: UInt8? = nil, persistedUAVNumber: UInt8? = nil,
        startsFlying: Bool = false, publishesTelemetry: Bool = false
    ) {
        self.role = role
        self.name = name
        self.pinnedUAVNumber = pinnedUAVNumber
        self.persistedUAVNumber = persistedUAVNumber
        self.startsFlying = startsFlying
        self.publishesTelemetry = publishesTelemetry
    }

    /// A station.
    public static func station(_ name: String) -> SimNodeSpec { SimNodeSpec(role: .station, name: name) }

    /// A drone.
    public static func drone(
        _ name: String, pinned: UInt8? = nil, persisted: UInt8? = nil, flying: Bool = false,
        telemetry: Bool = false
    ) -> SimNodeSpec {
        SimNodeSpec(
            role: .drone, name: name, pinnedUAVNumber: pinned, persistedUAVNumber: persisted,
            startsFlying: flying, publishesTelemetry: telemetry)
    }
}

/// How the simulated neighbour layer behaves.
public struct NetworkProfile: Sendable {
    /// One-way latency per hop.
    public var latency: Duration = .milliseconds(5)
    /// Uniform extra delay 0…jitter (reorders unreliable messages).
    public var jitter: Duration = .milliseconds(3)
    /// Probability an unreliable message is lost.
    public var unreliableLoss: Double = 0
    /// Probability an unreliable message is delivered twice.
    public var duplication: Double = 0
    /// Time for the neighbour layer to report a lost session.
    public var detectionDelay: Duration = .milliseconds(700)
    /// Time to open a session once a link is usable.
    public var sessionSetupDelay: Duration = .milliseconds(100)
    /// Whether messages are encoded and decoded on every hop (exercises the codec; slower).
    public var encodeOnWire: Bool = true

    /// A profile with defaults.
    public init(
        latency: Duration = .milliseconds(5), jitter: Duration = .milliseconds(3), unreliableLoss: Double = 0,
        duplication: Double = 0, encodeOnWire: Bool = true
    ) {
        self.latency = latency
        self.jitter = jitter
        self.unreliableLoss = unreliableLoss
        self.duplication = duplication
        self.encodeOnWire = encodeOnWire
    }
}

/// The trivial vehicle behind a simulated drone: it survives coordinator restarts.
public struct SimVehicle: Sendable {
    /// Whether it is in the air.
    public internal(set) var flying = false
    /// Battery in percent; commands other than land are refused below 20 %.
    public var batteryPercent: UInt8 = 90
    /// How many times each command was executed.
    public internal(set) var executions: [CommandID: Int] = [:]
    /// Failsafe actions it was told to take, in order.
    public internal(set) var failsafeActions: [FailsafeAction] = []
    /// Targets it was given.
    public internal(set) var targetsApplied = 0
    /// Manual-control samples it was given.
    public internal(set) var manualControlsApplied = 0
}

/// A directive a simulated node produced, with the virtual time (sends and per-node announcements are not logged).
public struct LoggedDirective: Sendable {
    /// When.
    public var time: MeshInstant
    /// Which node (index).
    public var node: Int
    /// What.
    public var directive: Directive
}
