/// The answer: exactly one of its fields, by command (`status`, `vehicles`, `airspace`, `command`, `group`, `target`,
/// `origin`, `sources`, `manual`, `events`, `geofence`), or `error`.
public struct ControlResponse: Codable, Sendable {
    public var status: NodeStatus?
    public var error: String?
    public var vehicles: [VehicleReport]?
    public var airspace: [AirspaceReport]?
    public var command: CommandReport?
    public var group: GroupCommandReport?
    public var target: TargetReport?
    public var origin: OriginReport?
    public var sources: TargetSourcesReport?
    public var manual: ManualStreamReport?
    public var events: EventsReport?
    public var geofence: GeofenceReport?

    public init(
        status: NodeStatus? = nil, error: String? = nil, vehicles: [VehicleReport]? = nil,
        airspace: [AirspaceReport]? = nil, command: CommandReport? = nil, group: GroupCommandReport? = nil,
        target: TargetReport? = nil,
        origin: OriginReport? = nil, sources: TargetSourcesReport? = nil, manual: ManualStreamReport? = nil,
        events: EventsReport? = nil, geofence: GeofenceReport? = nil
    ) {
        self.status = status
        self.error = error
        self.vehicles = vehicles
        self.airspace = airspace
        self.command = command
        self.group = group
        self.target = target
        self.origin = origin
        self.sources = sources
        self.manual = manual
        self.events = events
        self.geofence = geofence
    }
}
