/// Why a received byte string could not be decoded. Every decoder in FleetMesh throws this, never traps.
public struct WireError: Error, Equatable, Sendable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }

    public static func truncated(_ what: String) -> WireError { WireError("truncated \(what)") }
}
