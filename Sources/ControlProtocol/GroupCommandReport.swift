/// The answers to one command sent to several drones that start it at the same moment (`group`, `fleetmesh send
/// --together`). Field names are a stable API.
public struct GroupCommandReport: Codable, Sendable, Hashable {
    /// The command as understood, e.g. "takeoff 10".
    public var command: String
    /// How far ahead of sending the drones start, milliseconds.
    public var leadMs: Int
    /// The moment they start, wall-clock milliseconds since the Unix epoch on the sending node's clock (each drone
    /// starts at that moment on its own clock, through the mesh's clock estimates).
    public var startsAtMs: Int64
    /// One report per UAV number, in the order asked; `accepted` means scheduled.
    public var commands: [CommandReport]

    /// Whether every drone accepted and completed it.
    public var succeeded: Bool { !commands.isEmpty && commands.allSatisfy(\.succeeded) }

    public init(command: String, leadMs: Int, startsAtMs: Int64, commands: [CommandReport]) {
        self.command = command
        self.leadMs = leadMs
        self.startsAtMs = startsAtMs
        self.commands = commands
    }
}
