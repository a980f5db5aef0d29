/// A drone's autopilot link, as `fleetmesh status --json` shows it (`autopilot`). Field names are a stable API.
public struct AutopilotReport: Codable, Sendable, Hashable {
    /// The link from `[drone] vehicle`, e.g. "serial:/dev/ttyACM0:921600" or "udpin:14601".
    public var link: String
    /// Where the autopilot's datagrams come from (udpin), once heard.
    public var remote: String?
    /// A HEARTBEAT has been heard and the last one is less than 3 s old.
    public var connected: Bool
    /// Heard before, but no HEARTBEAT for 3 s or more: commands are refused.
    public var silent: Bool
    /// "px4", "ardupilot" or "generic".
    public var autopilot: String?
    /// The autopilot's own MAVLink system and component ids (the mesh shows the drone under its UAV number).
    public var systemID: Int?
    public var componentID: Int?
    /// The flight mode, e.g. "GUIDED" or "AUTO.LOITER".
    public var mode: String?
    public var armed: Bool?
    /// Share of the autopilot's frames that arrived, 0…100 (0 while silent).
    public var linkQuality: Int
    /// Milliseconds since the last HEARTBEAT.
    public var lastHeartbeatMsAgo: Int?
    /// Frames written to the link, and frames dropped because it was not open (or, for udpin, the autopilot not heard).
    public var framesSent: Int
    public var framesDropped: Int

    public init(
        link: String,
        remote: String? = nil,
        connected: Bool,
        silent: Bool,
        autopilot: String? = nil,
        systemID: Int? = nil,
        componentID: Int? = nil,
        mode: String? = nil,
        armed: Bool? = nil,
        linkQuality: Int,
        lastHeartbeatMsAgo: Int? = nil,
        framesSent: Int,
        framesDropped: Int
    ) {
        self.link = link
        self.remote = remote
        self.connected = connected
        self.silent = silent
        self.autopilot = autopilot
        self.systemID = systemID
        self.componentID = componentID
        self.mode = mode
        self.armed = armed
        self.linkQuality = linkQuality
        self.lastHeartbeatMsAgo = lastHeartbeatMsAgo
        self.framesSent = framesSent
        self.framesDropped = framesDropped
    }
}
