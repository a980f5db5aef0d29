import MeshTypes

/// The outcome of checking a station's right to control this drone.
enum LeaseGate {
    /// The station holds (or just took) the lease; directives announce changes.
    case granted([Directive])
    /// Another station holds it.
    case refused(holderName: String)
}

extension CoordinatorCore {
    /// Grants, renews or refuses the control lease for a command or manual-control sample from `origin`.
    mutating func leaseGate(origin: NodeID, takeover: Bool, now: MeshInstant) -> LeaseGate {
        var out: [Directive] = []
        if let l = lease, l.holder != origin {
            guard takeover else { return .refused(holderName: l.name) }
            if let n = uavNumber {
                out += sendRouted(
                    .leaseRevoked(uavNumber: n, newHolder: displayName(of: origin)), to: .node(l.holder), now: now)
            }
        }
        let changed = lease?.holder != origin
        lease = Lease(holder: origin, name: displayName(of: origin), expires: now + configuration.leaseDuration)
        if changed {
            out += cancelScheduledCommands("cancelled before its start: control taken by \(lease!.name)", now: now)
            out.append(.leaseChanged(holder: origin, name: lease!.name))
        }
        return .granted(out)
    }

    /// Ends the lease when its station is unreachable or it expired.
    mutating func checkLease(now: MeshInstant) -> [Directive] {
        guard let l = lease else { return [] }
        refreshRoutes()
        if now >= l.expires || routesStore[l.holder] == nil {
            lease = nil
            return cancelScheduledCommands(
                "cancelled before its start: the control lease of \(l.name) lapsed", now: now)
                + [.leaseChanged(holder: nil, name: nil)]
        }
        return []
    }
}

extension CoordinatorCore {
    /// Station: gives up the lease on the drone holding `uavNumber` (stops renewing it and tells the drone).
    public mutating func releaseControl(ofUAV number: UInt8, now: MeshInstant) -> [Directive] {
        guard let node = controlled.first(where: { $0.value.uavNumber == number })?.key else { return [] }
        controlled[node] = nil
        return sendRouted(.leaseUpdate(uavNumber: number, release: true), to: .node(node), now: now)
    }

    /// Station: remembers that a command to `target` was accepted, so this node now holds its lease.
    mutating func noteControl(of target: NodeID, uavNumber: UInt8, now: MeshInstant) {
        controlled[target] = ControlledDrone(uavNumber: uavNumber, nextRenewal: now + configuration.leaseDuration / 3)
    }

    /// Station: renews due leases.
    mutating func renewLeases(now: MeshInstant) -> [Directive] {
        guard configuration.renewsLeases, !controlled.isEmpty else { return [] }
        var out: [Directive] = []
        for node in controlled.keys.sorted() {
            guard var c = controlled[node], now >= c.nextRenewal else { continue }
            c.nextRenewal = now + configuration.leaseDuration / 3
            controlled[node] = c
            out += sendRouted(.leaseUpdate(uavNumber: c.uavNumber, release: false), to: .node(node), now: now)
        }
        return out
    }

    /// Drone: a renewal extends the holder's lease; a release ends it; either from a non-holder is answered with
    /// `leaseRevoked`, so a station that lost the lease (expiry, unreachability, takeover) learns it.
    mutating func receiveLeaseUpdate(_ env: Envelope, _ number: UInt8, release: Bool, now: MeshInstant) -> [Directive] {
        // Matched by holder, not number: a renumbered drone keeps its lease.
        guard role == .drone else { return [] }
        guard let l = lease, l.holder == env.origin else {
            if release { return [] }
            return sendRouted(
                .leaseRevoked(uavNumber: uavNumber ?? number, newHolder: lease?.name ?? ""), to: .node(env.origin),
                now: now)
        }
        if release {
            lease = nil
            return cancelScheduledCommands("cancelled before its start: \(l.name) released control", now: now)
                + [.leaseChanged(holder: nil, name: nil)]
        }
        lease!.expires = now + configuration.leaseDuration
        return []
    }
}
