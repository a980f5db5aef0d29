import Avoidance
import Coordinator
import Flight
import Geodesy
import Membership
import MeshTypes
import Vehicles

/// The node's metrics: what a scrape reads from the actor, and the scrape itself.
extension NodeShell {
    /// The Prometheus text exposition of this node's metrics (version 0.0.4): the figures are read on the actor in one
    /// call; the separation between drones (pairs × instants) is worked out and the text rendered off it.
    public nonisolated func metricsExposition() async -> [UInt8] {
        var (snapshot, airspace) = await metricsSnapshot()
        if let airspace { (snapshot.separationNow, snapshot.separationPredicted) = airspace.levelSeparation() }
        return metrics.render(snapshot)
    }

    /// Every figure the metrics sample, as it stands now, and the airspace picture to measure separation in (nil with
    /// fewer than two drones).
    func metricsSnapshot() -> (MetricsSnapshot, AirspaceSnapshot?) {
        let t = now
        let mesh = node.mesh
        var s = MetricsSnapshot()
        s.uptimeSeconds = Double(t.nanoseconds) / 1e9
        for p in mesh.membership.peers.values { s.peers[p.state, default: 0] += 1 }
        s.sessions = mesh.endpoint.sessions.count
        coordinate(now: t) {
            $0.refreshRoutes()
            return []
        }
        s.relayedNodes = core.routes.values.filter { $0.hops > 1 }.count
        s.traffic = tally
        s.rejections = mesh.rejections
        s.socketRebinds = transport?.rebinds ?? 0
        s.floodsPruned = node.floodsPruned
        if let receive = transport?.receiveBuffer {
            s.unreadByKernel = Int(receive.kernelDrops)
            s.unreadByQueue = Int(receive.queueDrops)
        }
        s.roundTrips = mesh.roundTrips
        s.groupWaits = groupWaits
        for v in core.fleetPicture(now: t) where v.node != nodeID {
            if v.isStale {
                s.staleVehicles += 1
            } else {
                s.liveVehicles += 1
                s.oldestTelemetrySeconds = max(s.oldestTelemetrySeconds ?? 0, v.age.secondsDouble)
            }
        }
        let airspace = core.airspace(now: t)
        var picture: AirspaceSnapshot?
        if airspace.count > 1, let frame = airspaceFrame(airspace) {
            picture = AirspaceSnapshot(
                tracks: VehiclePilot.tracks(airspace, excluding: nil, in: frame, now: t),
                now: Double(t.nanoseconds) / 1e9, configuration: configuration.avoidance.plan.configuration)
        }
        s.manualSamples = manualStats.received
        s.targetsFromSources = targetsFromSources
        s.avahiUp = discovery == nil ? nil : avahiState == "running"
        s.publicationPace = core.pace.level.rawValue
        return (s, picture)
    }
}

extension AirspaceSnapshot {
    /// The smallest horizontal distance between two tracks within the vertical separation of each other, at grid index
    /// 0 (now) and over the whole grid (the prediction horizon); nil where no pair is that close vertically.
    func levelSeparation() -> (now: Double?, predicted: Double?) {
        var now: Double?
        var predicted: Double?
        for i in 0..<count {
            for j in (i + 1)..<count {
                for k in 0..<pointsPerTrack {
                    let a = position(track: i, index: k)
                    let b = position(track: j, index: k)
                    guard abs(a.z - b.z) < verticalSeparation else { continue }
                    let d = (a - b).horizontalLength
                    if k == 0 { now = min(now ?? d, d) }
                    predicted = min(predicted ?? d, d)
                }
            }
        }
        return (now, predicted)
    }
}
