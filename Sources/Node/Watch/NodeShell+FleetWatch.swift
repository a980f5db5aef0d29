import Avoidance
import Coordinator
import Geodesy
import MeshTypes
import Vehicles

extension NodeShell {
    /// A station's watch over its fleet picture, twice a second: autopilots falling silent and coming back, and
    /// predicted losses of separation between the drones' published predictions, as node events.
    func watchFleet() {
        let t = now
        guard configuration.role == .station, t >= nextFleetWatchAt else { return }
        nextFleetWatchAt = t + .milliseconds(500)
        let vehicles = core.fleetPicture(now: t).filter { $0.node != nodeID }.map { v in
            FleetWatch.Vehicle(
                node: v.node, label: vehicleLabel(v.node, v.uavNumber), linkQuality: Int(v.state.linkQuality),
                stale: v.isStale)
        }
        for e in fleetWatch.observe(vehicles: vehicles, conflicts: predictedConflicts(now: t), now: t) {
            event(e.level, e.kind, e.text, about: e.about)
        }
    }

    /// `UAV 12 (drone-2)`, or the name alone without a number.
    func vehicleLabel(_ node: NodeID, _ uav: UInt8?) -> String {
        uav.map { "UAV \($0) (\(displayName(node)))" } ?? displayName(node)
    }

    /// Pairs of drones whose fresh published predictions come closer than `[avoidance]`'s separation minima
    /// (horizontally closer than the minimum while vertically within the minimum plus growth).
    func predictedConflicts(now t: MeshInstant) -> [FleetWatch.Conflict] {
        let airspace = core.airspace(now: t)
        guard airspace.count > 1, let frame = airspaceFrame(airspace) else { return [] }
        let tracks = VehiclePilot.tracks(airspace, excluding: nodeID, in: frame, now: t)
        let snapshot = AirspaceSnapshot(
            tracks: tracks, now: Double(t.nanoseconds) / 1e9, configuration: configuration.avoidance.plan.configuration)
        let byRank = Dictionary(
            airspace.map { (AirspaceKey(uav: $0.uavNumber.map(Int.init) ?? 251, tiebreak: $0.node.low), $0) },
            uniquingKeysWith: { a, _ in a })
        // The snapshot grows the volumes of drones that do not avoid (taking off, landing) or are stale, as a planner
        // must; a warning to an operator is about the predicted paths themselves coming within the minimum.
        return snapshot.conflicts().filter { $0.closestHorizontal < snapshot.horizontalSeparation }.compactMap { c in
            let a = snapshot.tracks[c.first], b = snapshot.tracks[c.second]
            guard let ea = byRank[AirspaceKey(uav: a.uavNumber, tiebreak: a.tiebreak)],
                let eb = byRank[AirspaceKey(uav: b.uavNumber, tiebreak: b.tiebreak)]
            else { return nil }
            return FleetWatch.Conflict(
                first: ea.node, second: eb.node,
                label: "\(vehicleLabel(ea.node, ea.uavNumber)) and \(vehicleLabel(eb.node, eb.uavNumber))",
                inSeconds: Double(c.firstIndex) * snapshot.step, closest: c.closestHorizontal)
        }
    }
}

extension NodeShell {
    /// The frame a station judges `airspace` in: the agreed map origin, else the first predicted point.
    func airspaceFrame(_ airspace: [AirspaceEntry]) -> MapOrigin? {
        if let agreed = core.agreedMapOrigin, case .success(let map) = Self.mapOrigin(agreed.announcement) {
            return map
        }
        guard let p = airspace.lazy.compactMap(\.prediction.points.first).first else { return nil }
        return try? MapOrigin(latitude: p.latitude, longitude: p.longitude, altitude: p.altitude)
    }
}

/// A track's identity in the snapshot: its UAV number (251 without) and its node's low bits.
private struct AirspaceKey: Hashable {
    var uav: Int
    var tiebreak: UInt64
}
