import Avoidance
import ControlProtocol
import Coordinator
import FlightLog
import Foundation
import Geodesy
import Logging
import MeshTypes

/// The control socket's side of the coordinator: commands with their answers, targets, manual control, reports.
extension NodeShell {
    // MARK: - Control socket

    /// Sends `command` to the drone holding `number` and waits up to `timeout` for its final answer.
    /// With `takeover`, the drone's control lease moves to this station even if another one holds it.
    public func send(_ command: Command, toUAV number: UInt8, takeover: Bool = false, timeout: Duration) async
        -> CommandReport
    {
        let t = now
        let (id, effects) = node.sendCommand(command, toUAV: number, takeover: takeover, now: t)
        answers[id] = []
        commandSentAt[id] = t
        noteCommandSent(id, command, to: number)
        logger.info(
            "command \(id) \(command.summary) to UAV \(number)\(takeover ? " (takeover)" : "")")
        apply(effects, now: t)
        return await reports(for: [id], to: [number], summary: command.summary, until: clock.now + timeout)[0]
    }

    /// Waits until every command in `ids` (sent to `numbers`, in order) has its final answer or `deadline` passes,
    /// then returns their reports (a command without a final answer by then has timed out) and forgets them.
    func reports(
        for ids: [CommandID], to numbers: [UInt8], summary: String, until deadline: ContinuousClock.Instant
    ) async -> [CommandReport] {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { for id in ids { await self.waitForFinalAnswer(id) } }
            group.addTask { try? await Task.sleep(until: deadline, clock: .continuous) }
            await group.next()
            group.cancelAll()
            for id in ids { self.endWait(id) }
        }
        var reports: [CommandReport] = []
        for (id, n) in zip(ids, numbers) {
            finishedWaits.remove(id)
            let got = answers.removeValue(forKey: id) ?? []
            commandSentAt[id] = nil
            commandStartsAtMs[id] = nil
            let timedOut = !got.contains { $0.answer != "accepted" }
            if timedOut { metrics.commandTimedOut() }
            reports.append(
                CommandReport(
                    uavNumber: Int(n), command: summary, answers: got,
                    timedOut: timedOut))
        }
        return reports
    }

    func waitForFinalAnswer(_ id: CommandID) async {
        guard !finishedWaits.contains(id) else { return }
        await withCheckedContinuation { finalAnswerWaiters[id] = $0 }
    }

    /// Ends the wait for `id`'s final answer (it came, or the deadline passed).
    func endWait(_ id: CommandID) {
        finishedWaits.insert(id)
        finalAnswerWaiters.removeValue(forKey: id)?.resume()
    }

    /// Floods a target to one drone or all; with `follow`, also tells each addressed drone to follow it.
    public func target(_ location: GeoPoint, uav: UInt8?, follow: Bool, timeout: Duration) async -> TargetReport {
        let t = now
        let address: TargetAddress = uav.map { .uav($0) } ?? .all
        let target = Target(address: address, location: location)
        coordinate(now: t) { $0.sendTarget(target, now: t) }
        recordTarget(target, source: "operator")
        var report = TargetReport(
            address: uav.map { "UAV \($0)" } ?? "all", latitude: location.latitude,
            longitude: location.longitude, altitude: location.altitude, follow: nil)
        guard follow else { return report }
        let numbers: [UInt8]
        if let uav {
            numbers = [uav]
        } else {
            numbers = Set(core.fleetPicture(now: t).compactMap { $0.uavNumber }).sorted()
        }
        var follows: [CommandReport] = []
        for n in numbers { follows.append(await send(.followTarget(true), toUAV: n, timeout: timeout)) }
        report.follow = follows
        return report
    }

    /// Sends one manual-control sample to the drone holding `number` (unreliable, unanswered; the drone obeys it if
    /// this station holds or, with `takeover`, takes its control lease). False if no reachable drone holds the number.
    @discardableResult
    public func sendManualControl(_ sample: ManualControl, toUAV number: UInt8, takeover: Bool = false) -> Bool {
        let t = now
        var routed = false
        coordinate(now: t) { core in
            let directives = core.sendManualControl(sample, toUAV: number, takeover: takeover, now: t)
            routed = !directives.isEmpty
            return directives
        }
        if routed { noteManualSample(to: number, takeover: takeover) }
        return routed || core.uavNumber == number
    }

    /// Streams manual control to `numbers` at `rate` samples per second for `duration`, on absolute deadlines; each
    /// sample carries the wall-clock time it was made.
    public func streamManualControl(
        _ axes: (x: Int16, y: Int16, z: Int16, r: Int16), to numbers: [UInt8], rate: Double,
        duration: Duration, takeover: Bool
    ) async -> ManualStreamReport {
        let period = Duration.nanoseconds(Int64((1e9 / rate).rounded()))
        let start = clock.now
        var next = start
        var sent = 0
        var unreachable: Set<UInt8> = []
        while next - start < duration {
            unreachable = []
            let micros = UInt64((Date().timeIntervalSince1970 * 1e6).rounded())
            for n in numbers {
                let sample = ManualControl(x: axes.x, y: axes.y, z: axes.z, r: axes.r, sentAtMicros: micros)
                if !sendManualControl(sample, toUAV: n, takeover: takeover) { unreachable.insert(n) }
            }
            sent += 1
            next = next.advanced(by: period)
            try? await Task.sleep(until: next, clock: .continuous)
        }
        let elapsed = (clock.now - start).secondsDouble
        return ManualStreamReport(
            uavs: numbers.map(Int.init), samplesPerUAV: sent,
            sentRateHz: elapsed > 0 ? Double(sent) / elapsed : 0,
            durationMs: Int((elapsed * 1000).rounded()), unreachable: unreachable.sorted().map(Int.init))
    }

    /// A target from a target source (loc-broadcaster): flooded to the drones it addresses, like `target`.
    public func injectTarget(_ target: Target, source: String) {
        let t = now
        targetsFromSources += 1
        coordinate(now: t) { $0.sendTarget(target, now: t) }
        recordTarget(target, source: source)
    }

    /// The fleet picture.
    public func vehicles() -> [VehicleReport] {
        let t = now
        return core.fleetPicture(now: t).map(report)
    }

    /// One vehicle of the fleet picture as the control protocol reports it.
    func report(_ v: FleetVehicle) -> VehicleReport {
        let s = v.state
        let speed =
            (Double(s.velocityNorthCmS) * Double(s.velocityNorthCmS) + Double(s.velocityEastCmS)
            * Double(s.velocityEastCmS)).squareRoot() / 100
        return VehicleReport(
            uavNumber: v.uavNumber.map(Int.init), node: v.node.hex, name: displayName(v.node),
            role: (v.node == core.nodeID ? core.role : core.advertisement(of: v.node)?.role ?? .drone).rawValue,
            latitude: s.position.latitude, longitude: s.position.longitude, altitude: s.position.altitude,
            speed: speed, heading: Double(s.headingCentidegrees) / 100, activity: "\(s.activity)", armed: s.armed,
            batteryPercent: Int(s.batteryPercent), ageMs: Int(v.age.wholeNanoseconds / 1_000_000), stale: v.isStale,
            linkQuality: Int(s.linkQuality), velocityNorth: Double(s.velocityNorthCmS) / 100,
            velocityEast: Double(s.velocityEastCmS) / 100, velocityUp: -Double(s.velocityDownCmS) / 100,
            controller: v.controller.map(displayName), controllerNode: v.controller?.hex,
            controlledHere: v.controller.map { $0 == core.nodeID })
    }

    /// The airspace picture (predictions).
    public func airspace() -> [AirspaceReport] {
        core.airspace(now: now).map { e in
            AirspaceReport(
                uavNumber: e.uavNumber.map(Int.init), node: e.node.hex, name: displayName(e.node),
                ageMs: Int(e.age.wholeNanoseconds / 1_000_000), stepMs: Int(e.prediction.stepMilliseconds),
                points: e.prediction.points.map { [$0.latitude, $0.longitude, $0.altitude] },
                avoiding: e.prediction.avoiding,
                uncertaintyGrowth: e.prediction.uncertainty.growth > 0 ? e.prediction.uncertainty.growth : nil)
        }
    }

    /// The map origin this node agrees on, with its UTM offset; nil while none is known (or it cannot be projected).
    public func origin() -> OriginReport? {
        guard let agreed = core.agreedMapOrigin, case .success(let map) = Self.mapOrigin(agreed.announcement) else {
            return nil
        }
        let a = agreed.announcement
        let age = now - agreed.lastHeardAt
        return OriginReport(
            latitude: a.position.latitude, longitude: a.position.longitude, altitude: a.position.altitude,
            zone: map.zone.description, zoneForced: a.forcedZone != nil,
            announcedBy: displayName(agreed.announcedBy), announcedByNode: agreed.announcedBy.hex,
            epoch: a.epoch, ageMs: Int(age.wholeNanoseconds / 1_000_000),
            utmEasting: map.easting, utmNorthing: map.northing)
    }

    /// Adds what the coordinator knows to the node's status: this node's number, each peer's number and hop count,
    /// and the agreed map origin.
    func annotate(_ status: NodeStatus) -> NodeStatus {
        coordinate(now: now) {
            $0.refreshRoutes()
            return []
        }
        var s = status
        s.mapOrigin = origin()
        s.node.uavNumber = core.uavNumber.map(Int.init)
        s.manualControl = manualStats.report
        s.autopilot = autopilotReport()
        s.flightLog = flightLogReport
        s.flightLog?.shipping = flightShippingReport
        for i in s.peers.indices {
            guard let id = NodeID(hex: s.peers[i].id) else { continue }
            if let ad = core.advertisement(of: id), let n = ad.uavNumber, ad.role == .drone {
                s.peers[i].uavNumber = Int(n)
            }
            if let route = core.route(to: id) { s.peers[i].hops = Int(route.hops) }
        }
        // Nodes reached only through relays: no session of their own, listed with their hop count and next hop.
        let direct = Set(s.peers.map(\.id))
        for (id, route) in core.routes.sorted(by: { $0.key < $1.key })
        where !direct.contains(id.hex) && id != core.nodeID {
            let ad = core.advertisement(of: id)
            s.peers.append(
                NodeStatus.Peer(
                    id: id.hex, name: ad?.name, role: ad?.role.rawValue,
                    uavNumber: ad?.role == .drone ? ad?.uavNumber.map(Int.init) : nil,
                    address: "via \(displayName(route.nextHop))", state: "relayed", hops: Int(route.hops),
                    incarnation: ad.map { String($0.incarnation, radix: 16) }, lastHeardMsAgo: nil, rttMs: nil,
                    linkQuality: nil, discoveredAtMs: nil, establishedAtMs: nil))
        }
        return s
    }

    /// The node's recent events numbered above `after`, at most `limit`.
    public func events(after: Int, limit: Int) -> EventsReport {
        eventLog.page(after: after, limit: limit)
    }

    /// Logs `text` and keeps it as an event (`fleetmesh events`, the dashboard), with the UAV number of the node it is
    /// about when that is known.
    func event(
        _ level: Logger.Level, _ kind: String, _ text: String, about node: NodeID? = nil, uavNumber: Int? = nil
    ) {
        let uav = uavNumber ?? node.flatMap { core.advertisement(of: $0)?.uavNumber }.map(Int.init)
        // The event's kind, peer and UAV number as fields (the journal's FLEETMESH_EVENT, _PEER, _UAV).
        var fields: Logger.Metadata = ["event": "\(kind)"]
        if let node { fields["peer"] = "\(node.hex)" }
        if let uav { fields["uav"] = "\(uav)" }
        logger.log(level: level, "\(text)", metadata: fields)
        let timeMs = Int64(Date().timeIntervalSince1970 * 1000)
        eventLog.record(kind: kind, level: level.rawValue, text: text, node: node?.hex, uavNumber: uav, timeMs: timeMs)
        flightRecords?.offer(
            .event(
                EventRecord(
                    timeMs: timeMs, kind: kind, level: level.rawValue, text: text, node: node?.hex, uavNumber: uav)))
    }

    func displayName(_ node: NodeID) -> String {
        if node == core.nodeID { return name }
        return self.node.name(of: node) ?? node.short
    }
}
