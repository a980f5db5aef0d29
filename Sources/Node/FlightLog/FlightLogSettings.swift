import FlightLogShipping

/// `[log]`'s flight-log keys: where the node records what happened (docs/FLIGHTLOG.md) and for how long.
public struct FlightLogSettings: Sendable, Equatable {
    /// `flight_log = false` turns recording off.
    public var enabled = true
    /// `flight_log_path`; nil: `flight-log.sqlite` in the state directory.
    public var path: String?
    /// `retention_days`: records older than this are removed (hourly, and at start).
    public var retentionDays = 30.0
    /// `max_megabytes`: above this the oldest hours go first.
    public var maxMegabytes = 1024.0
    /// `postgres`: a PostgreSQL server every record is shipped to as well (docs/FLIGHTLOG.md, Shipping).
    public var postgres: PostgresTarget?

    public init() {}

    /// The file the node records to.
    public func file(stateDirectory: String) -> String { path ?? stateDirectory + "/flight-log.sqlite" }
}
