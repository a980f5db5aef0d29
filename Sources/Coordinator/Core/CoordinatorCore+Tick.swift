import MeshTypes

extension CoordinatorCore {
    /// The periodic heartbeat of the core (call every 50–100 ms): ages the database, recomputes routes, settles
    /// numbers, checks lease and failsafe, floods this node's advertisement when due, publishes telemetry, sends
    /// commands again whose route changed and retransmits commands.
    public mutating func onTick(now: MeshInstant) -> [Directive] {
        ageDatabase(now: now)
        var out = checkTwoWayDue(now: now)
        refreshRoutes()
        out += evaluateNumbering(now: now)
        out += checkLease(now: now)
        out += checkFailsafe(now: now)
        out += originateAdvertisementIfDue(now: now)
        out += floodDue(now: now)
        out += publishDue(now: now)
        out += reportAvoidanceIfDue(now: now)
        out += mapOriginDue(now: now)
        out += geofenceDue(now: now)
        out += sendCommandsOnNewRoutes(now: now)
        out += retransmitCommands(now: now)
        out += renewLeases(now: now)
        forgetOldCommands(now: now)
        return out
    }
}
