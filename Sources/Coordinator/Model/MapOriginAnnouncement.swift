import MeshTypes

/// A station's map origin as shared with the mesh: the origin of the test area (position), an optional forced UTM
/// zone, and the epoch that orders announcements (the station's wall-clock milliseconds when it set the origin;
/// the core never reads a clock, the shell passes it in).
public struct MapOriginAnnouncement: Hashable, Sendable {
    /// Latitude and longitude (degrees × 10⁷) and altitude (millimetres) of the origin.
    public var position: GeoPoint
    /// A forced UTM zone number 1…60, nil for the origin's standard zone.
    public var forcedZone: UInt8?
    /// Whether the forced zone is on the southern hemisphere (only meaningful with `forcedZone`).
    public var southernHemisphere: Bool
    /// Larger epochs win; equal epochs are decided by the lower announcing NodeID.
    public var epoch: UInt64

    /// An announcement from its fields. A hemisphere without a zone is dropped.
    public init(position: GeoPoint, forcedZone: UInt8? = nil, southernHemisphere: Bool = false, epoch: UInt64) {
        self.position = position
        self.forcedZone = forcedZone
        self.southernHemisphere = forcedZone == nil ? false : southernHemisphere
        self.epoch = epoch
    }

    /// Whether two announcements name the same origin (position and zone), whatever their epochs.
    public func sameOrigin(as other: MapOriginAnnouncement) -> Bool {
        position == other.position && forcedZone == other.forcedZone && southernHemisphere == other.southernHemisphere
    }
}

/// The map origin this node agrees on, who announced it and when it was last heard.
public struct AgreedMapOrigin: Hashable, Sendable {
    /// The winning announcement.
    public var announcement: MapOriginAnnouncement
    /// The station that announced it (this node for its own configured origin).
    public var announcedBy: NodeID
    /// When it was last heard (for this node's own origin: when it was last announced).
    public var lastHeardAt: MeshInstant

    /// An agreed origin from its fields.
    public init(announcement: MapOriginAnnouncement, announcedBy: NodeID, lastHeardAt: MeshInstant) {
        self.announcement = announcement
        self.announcedBy = announcedBy
        self.lastHeardAt = lastHeardAt
    }

    /// Whether `(epoch, announcer)` ranks above `other`: larger epoch, ties to the lower NodeID.
    public func outranks(_ other: AgreedMapOrigin) -> Bool {
        if announcement.epoch != other.announcement.epoch { return announcement.epoch > other.announcement.epoch }
        return announcedBy < other.announcedBy
    }
}
