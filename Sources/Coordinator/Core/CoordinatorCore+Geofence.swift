import MeshTypes

extension CoordinatorCore {
    /// The geofence announcement in force on this node: the best-ranked one heard or set here (larger epoch, ties to
    /// the lower announcing NodeID); nil until one is known (drones fly their configured fence meanwhile).
    public var geofenceInForce: HeardGeofence? { fenceInForce }

    /// The announcement this node uses, as its shell last reported it (`onGeofenceInUse`).
    public var geofenceInUse: GeofenceStamp? { fenceInUse }

    /// The announcement `node` says it uses (this node's own, or the one in its link-state advertisement); nil when it
    /// uses none (a drone flying its configured fence) or its advertisement is unknown.
    public func geofenceInUse(by node: NodeID) -> GeofenceStamp? {
        node == nodeID ? fenceInUse : database[node]?.geofence
    }

    /// Station: sets the mesh's geofence (`fence` nil: no fence at all) and floods it at once, then every
    /// `geofenceInterval`. Its epoch is the station's wall clock (`wallClockMilliseconds`, Unix milliseconds), or one
    /// above the fence in force if that is later (another station's clock runs ahead), so the new fence outranks
    /// every one this station has heard. Drones do not announce fences: for them this does nothing.
    public mutating func setGeofence(_ fence: SharedGeofence?, wallClockMilliseconds: UInt64, now: MeshInstant)
        -> [Directive]
    {
        guard role == .station else { return [] }
        let floor = fenceInForce.map { $0.announcement.epoch &+ 1 } ?? 0
        let a = GeofenceAnnouncement(announcedBy: nodeID, epoch: max(wallClockMilliseconds, floor), fence: fence)
        fenceInForce = HeardGeofence(announcement: a, lastHeardAt: now)
        return [.geofenceChanged(a)] + floodGeofence(now: now)
    }

    /// The shell's report of which announcement the node now uses (nil: none, e.g. a drone flying its configured
    /// fence); carried in this node's next link-state advertisement.
    public mutating func onGeofenceInUse(_ stamp: GeofenceStamp?, now: MeshInstant) -> [Directive] {
        guard stamp != fenceInUse else { return [] }
        fenceInUse = stamp
        ownAdvertisementDirty = true
        return []
    }

    /// Station with a fence in force: floods it now and restarts the period.
    mutating func floodGeofence(now: MeshInstant) -> [Directive] {
        guard role == .station, let f = fenceInForce else { return [] }
        nextGeofenceAt = now + configuration.geofenceInterval
        if f.announcement.announcedBy == nodeID { fenceInForce?.lastHeardAt = now }
        return sendRouted(.geofence(f.announcement), to: .broadcast, now: now)
    }

    /// Tick: a station floods the fence in force when due (its own or another station's: late joiners and healed
    /// partitions hear it from any station).
    mutating func geofenceDue(now: MeshInstant) -> [Directive] {
        guard role == .station, fenceInForce != nil, now >= nextGeofenceAt else { return [] }
        return floodGeofence(now: now)
    }

    /// A neighbour came up: it gets the fence in force at once, one hop only (any node, drones too, so two parts of
    /// the mesh that meet agree without waiting for a station's period).
    func handGeofence(to peer: NodeID) -> [Directive] {
        guard let f = fenceInForce else { return [] }
        let env = Envelope(
            origin: nodeID, originIncarnation: incarnation, sequence: 0, destination: .node(peer), ttl: 1)
        return [.send(.routed(env, .geofence(f.announcement)), to: peer, reliability: .unreliable)]
    }

    /// An announcement heard: adopted if it outranks the one in force. One handed over by a neighbour that just came
    /// up (addressed to this node) is flooded on when adopted, so the rest of this part of the mesh gets it too.
    mutating func receiveGeofence(_ env: Envelope, _ a: GeofenceAnnouncement, now: MeshInstant) -> [Directive] {
        if let current = fenceInForce {
            if current.announcement.stamp == a.stamp {
                fenceInForce?.lastHeardAt = now
                return []
            }
            guard a.stamp.outranks(current.announcement.stamp) else { return [] }
        }
        fenceInForce = HeardGeofence(announcement: a, lastHeardAt: now)
        var out: [Directive] = [.geofenceChanged(a)]
        if env.destination == .node(nodeID) { out += sendRouted(.geofence(a), to: .broadcast, now: now) }
        return out
    }
}
