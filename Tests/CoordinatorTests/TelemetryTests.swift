import MeshTypes
import Testing

@testable import Coordinator

@Suite("Telemetry, predictions and targets")
struct TelemetryTests {
    /// GS (0) — D1 (1) — D2 (2): the station has no session with D2.
    static func world() -> Pump {
        var p = Pump([(.station, "GS", nil, nil), (.drone, "D1", nil, 1), (.drone, "D2", nil, 2)])
        p.link(0, 1)
        p.link(1, 2)
        p.advance(.milliseconds(300))
        return p
    }

    static let here = GeoPoint(latitude: 46.5, longitude: 7.5, altitude: 30)

    @Test("telemetry is published at the configured rate and reaches a non-neighbour; stale vehicles are flagged")
    func fleetPicture() {
        var p = Self.world()
        let state = VehicleState(position: Self.here, batteryPercent: 77, activity: .hovering, armed: true)
        p.call(2) { $0.onLocalVehicleState(state, now: $1) }
        var published = 0
        for _ in 0..<10 {
            p.now = p.now + .milliseconds(100)
            let ds = p.cores[2].onTick(now: p.now)
            published +=
                ds.filter { if case .send(.routed(_, .telemetry), _, .unreliable) = $0 { true } else { false } }.count
            p.handle(2, ds)
            p.drain()
            for i in 0..<2 {
                p.handle(i, p.cores[i].onTick(now: p.now))
                p.drain()
            }
        }
        #expect(published == 10)  // 10 Hz, one neighbour
        let fleet = p.cores[0].fleetPicture(now: p.now)
        #expect(fleet.count == 1)
        #expect(fleet[0].uavNumber == 2 && fleet[0].state == state && !fleet[0].isStale)
        #expect(p.cores[0].fleetPicture(now: p.now + .milliseconds(1500))[0].isStale)
    }

    @Test(
        "telemetry rates fall with distance: a station up to 3 hops away gets every sample, one further every second, unless it holds the drone's lease"
    )
    func fartherStationsGetEverySecondSample() {
        // GS (0) — D1 — D2 — D3 — D4 (4): the station 3 hops from D3, 4 from D4.
        func line(fullRateHops: Int) -> Pump {
            var p = Pump(
                [
                    (.station, "GS", nil, nil), (.drone, "D1", nil, 1), (.drone, "D2", nil, 2),
                    (.drone, "D3", nil, 3), (.drone, "D4", nil, 4),
                ], configure: { $0.telemetryFullRateHops = fullRateHops })
            for i in 0..<4 { p.link(i, i + 1) }
            p.advance(.milliseconds(300))
            let state = VehicleState(position: Self.here, batteryPercent: 77, activity: .hovering, armed: true)
            for i in 1...4 { p.call(i) { $0.onLocalVehicleState(state, now: $1) } }
            return p
        }
        func sent(_ p: inout Pump, _ i: Int, periods: Int) -> Int {
            var count = 0
            for _ in 0..<periods {
                p.now = p.now + .milliseconds(100)
                let ds = p.cores[i].onTick(now: p.now)
                count += ds.filter { if case .send(.routed(_, .telemetry), _, _) = $0 { true } else { false } }.count
                p.handle(i, ds)
                p.drain()
            }
            return count
        }
        var p = line(fullRateHops: 3)
        #expect(sent(&p, 3, periods: 10) == 10)
        #expect(sent(&p, 4, periods: 10) == 5)
        #expect(p.cores[0].fleetPicture(now: p.now).count == 2)
        // The station flying D4 gets all of them.
        p.cores[4].lease = Lease(holder: p.id(0), name: "GS", expires: p.now + .seconds(60))
        #expect(sent(&p, 4, periods: 10) == 10)
        // 0: every station every period.
        var every = line(fullRateHops: 0)
        #expect(sent(&every, 4, periods: 10) == 10)
    }

    @Test(
        "a drone's telemetry for two stations is one message as far as their routes share next hops, split where they part"
    )
    func telemetryForSeveralStationsSharesItsRoute() {
        // S1 (0) and S2 (1) both behind R (2); D (4) two hops further: D — M (3) — R — S1, R — S2. And S3 (5) behind
        // S1, so that S1 delivers one copy and passes it on.
        func world(shared: Bool) -> Pump {
            var p = Pump(
                [
                    (.station, "S1", nil, nil), (.station, "S2", nil, nil), (.drone, "R", nil, 1),
                    (.drone, "M", nil, 2), (.drone, "D", nil, 3), (.station, "S3", nil, nil),
                ],
                configure: {
                    $0.sharesTelemetryCopies = shared
                    $0.telemetryFullRateHops = 0  // every sample to every station (S3 is 4 hops from D)
                })
            for (a, b) in [(0, 2), (1, 2), (2, 3), (3, 4), (0, 5)] { p.link(a, b) }
            p.advance(.seconds(2))
            p.publishTelemetry(4, periods: 10)
            return p
        }
        func telemetry(_ p: Pump, _ from: Int, _ to: Int) -> [Destination] {
            p.sends.compactMap { s in
                guard s.from == from, s.to == to, case .routed(let env, .telemetry) = s.message else { return nil }
                return env.destination
            }
        }
        let p = world(shared: true)
        let (s1, s2, s3) = (p.id(0), p.id(1), p.id(5))
        // One copy per period on each shared hop, addressed to all three stations.
        #expect(telemetry(p, 4, 3) == Array(repeating: .nodes([s1, s2, s3]), count: 10))
        #expect(telemetry(p, 3, 2) == Array(repeating: .nodes([s1, s2, s3]), count: 10))
        // R splits: S2 alone, S1 with S3 behind it; S1 keeps its copy and passes S3's on.
        #expect(telemetry(p, 2, 1) == Array(repeating: .node(s2), count: 10))
        #expect(telemetry(p, 2, 0) == Array(repeating: .nodes([s1, s3]), count: 10))
        #expect(telemetry(p, 0, 5) == Array(repeating: .node(s3), count: 10))
        for station in [0, 1, 5] {
            let seen = p.cores[station].fleetPicture(now: p.now)
            #expect(seen.map(\.node) == [p.id(4)] && seen.allSatisfy { !$0.isStale }, "station \(station)")
        }
        // Without sharing: a message per station on every hop of its route.
        let each = world(shared: false)
        #expect(telemetry(each, 4, 3).count == 30 && telemetry(each, 3, 2).count == 30)
        #expect(telemetry(each, 2, 0).count == 20)
    }

    @Test("a message for two stations takes the neighbour on a shortest path to both, not each one's first route")
    func severalDestinationsShareANextHopWherePathsAllow() {
        // D (4) hears A (2) and B (3); S1 (0) is 2 hops away through either, S2 (1) only through B. D's first shortest
        // path to S1 goes through A (the lower NodeID), so by first routes the message would split at D.
        var p = Pump(
            [
                (.station, "S1", nil, nil), (.station, "S2", nil, nil), (.drone, "A", nil, 1), (.drone, "B", nil, 2),
                (.drone, "D", nil, 3),
            ], configure: { $0.telemetryFullRateHops = 0 })
        for (a, b) in [(4, 2), (4, 3), (2, 0), (3, 0), (3, 1)] { p.link(a, b) }
        p.advance(.seconds(2))
        #expect(p.cores[4].route(to: p.id(0))?.nextHop == p.id(2) && p.cores[4].route(to: p.id(1))?.nextHop == p.id(3))
        func fromD() -> [(to: Int, Destination)] {
            p.sends.compactMap { s -> (Int, Destination)? in
                guard s.from == 4, case .routed(let env, .telemetry) = s.message else { return nil }
                return (s.to, env.destination)
            }
        }
        let both = Destination.nodes([p.id(0), p.id(1)])
        p.publishTelemetry(4, periods: 5)
        #expect(fromD().count == 5 && fromD().allSatisfy { $0.to == 3 && $0.1 == both }, "\(fromD())")
        for station in [0, 1] { #expect(p.cores[station].fleetPicture(now: p.now).map(\.node) == [p.id(4)]) }
        // Far from D the links change (S2 now hangs on A, not B; D's own neighbours stay): the copy goes through A,
        // from hop counts reckoned on the new database, not those of the first copy.
        p.unlink(3, 1)
        p.link(2, 1)
        p.advance(.seconds(2))
        p.sends = []
        p.publishTelemetry(4, periods: 5)
        #expect(fromD().count == 5 && fromD().allSatisfy { $0.to == 2 && $0.1 == both }, "\(fromD())")
    }

    @Test("a drone's new number in its advertisement shows in the fleet picture before its next telemetry sample")
    func renumberedByAdvertisement() {
        var p = Pump([(.station, "GS", nil, nil), (.drone, "D", nil, 9)])
        p.link(0, 1)
        p.advance(.milliseconds(300))
        let drone = p.id(1)
        let state = VehicleState(position: Self.here, batteryPercent: 80, activity: .landed, armed: false)
        let env = Envelope(origin: drone, originIncarnation: 101, sequence: 1_000, destination: .node(p.id(0)), ttl: 8)
        p.call(0) { $0.onMessage(.routed(env, .telemetry(uavNumber: 9, state: state)), from: drone, now: $1) }
        #expect(p.cores[0].fleetVehicle(drone, now: p.now)?.uavNumber == 9)
        // It lost a clash: its advertisement says 57 before any sample does.
        var lsa = p.cores[0].advertisement(of: drone)!
        lsa.sequence += 1
        lsa.uavNumber = 57
        p.call(0) { $0.onMessage(.linkState(lsa), from: drone, now: $1) }
        #expect(p.cores[0].fleetVehicle(drone, now: p.now)?.uavNumber == 57)
        #expect(p.cores[0].resolve(uavNumber: 9) == .unknown)
    }

    @Test("a station reports each newer telemetry sample only while asked to")
    func telemetryArrivals() {
        var p = Self.world()
        let state = VehicleState(position: Self.here, batteryPercent: 77, activity: .hovering, armed: true)
        p.call(2) { $0.onLocalVehicleState(state, now: $1) }
        func arrivals(_ p: Pump) -> Int {
            p.directives[0].filter { if case .telemetryArrived(let from) = $0 { from == p.id(2) } else { false } }.count
        }
        p.advance(.milliseconds(500))
        #expect(arrivals(p) == 0)
        p.cores[0].reportsTelemetryArrivals = true
        p.advance(.milliseconds(1000))
        // 10 Hz telemetry: one report per sample (give or take the tick that straddles the switch).
        #expect((9...11).contains(arrivals(p)), "\(arrivals(p))")
        let before = arrivals(p)
        p.cores[0].reportsTelemetryArrivals = false
        p.advance(.milliseconds(500))
        #expect(arrivals(p) == before)
        #expect(p.cores[0].fleetVehicle(p.id(2), now: p.now)?.state == state)
        #expect(p.cores[0].fleetVehicle(p.id(1), now: p.now) == nil)
    }

    @Test("predictions are shared and dropped after one second")
    func airspace() {
        var p = Self.world()
        let pred = TrajectoryPrediction(points: Array(repeating: Self.here, count: 40))
        p.call(2) { $0.onLocalPrediction(pred, now: $1) }
        p.advance(.milliseconds(300))
        // On the ground a drone publishes no prediction: the airspace picture holds airborne drones.
        #expect(p.cores[0].airspace(now: p.now).isEmpty)
        p.call(2) { $0.onFlyingChanged(true, now: $1) }
        p.advance(.milliseconds(100))
        let a = p.cores[0].airspace(now: p.now)
        #expect(a.count == 1 && a[0].prediction == pred && a[0].uavNumber == 2)
        #expect(p.cores[0].airspace(now: p.now + .milliseconds(1100)).isEmpty)
    }

    @Test("targets reach exactly the addressed drones; older samples of a stream are ignored")
    func targets() {
        var p = Self.world()
        p.call(0) { $0.sendTarget(Target(address: .uav(2), location: Self.here), now: $1) }
        p.call(0) { $0.sendTarget(Target(address: .group([1, 2]), location: Self.here), now: $1) }
        p.call(0) { $0.sendTarget(Target(address: .all, location: Self.here, headingCentidegrees: 100), now: $1) }
        let applied = { (i: Int) in p.directives[i].filter { if case .applyTarget = $0 { true } else { false } }.count }
        #expect(applied(1) == 2)
        #expect(applied(2) == 3)
        let env = Envelope(origin: p.id(0), originIncarnation: 100, sequence: 1, destination: .broadcast, ttl: 8)
        let late = p.cores[2].onMessage(
            .routed(env, .target(Target(address: .all, location: Self.here))), from: p.id(1), now: p.now)
        #expect(!late.contains { if case .applyTarget = $0 { true } else { false } })
    }

    @Test("telemetry goes only to stations; an unreliable flood is not repeated to the previous hop's neighbours")
    func floodingCost() {
        // A full mesh of one station and four drones, then a line GS — D1 — D2.
        var p = Pump([
            (.station, "GS", nil, nil), (.drone, "D1", nil, 1), (.drone, "D2", nil, 2), (.drone, "D3", nil, 3),
            (.drone, "D4", nil, 4),
        ])
        for a in 0..<5 { for b in (a + 1)..<5 { p.link(a, b) } }
        p.advance(.milliseconds(500))
        let state = VehicleState(position: Self.here, batteryPercent: 77, activity: .hovering, armed: true)
        p.call(1) { $0.onLocalVehicleState(state, now: $1) }
        p.now = p.now + .milliseconds(200)
        let tick = p.cores[1].onTick(now: p.now)
        let telemetry = tick.compactMap { d -> NodeID? in
            if case .send(.routed(_, .telemetry), let to, _) = d { return to } else { return nil }
        }
        #expect(telemetry == [p.id(0)])
        // D1's prediction reaches every node straight from D1; in a full mesh nobody forwards it.
        p.inbox = []
        let pred = TrajectoryPrediction(points: Array(repeating: Self.here, count: 40))
        p.call(1) { $0.onFlyingChanged(true, now: $1) }
        p.inbox = []
        p.call(1) { $0.onLocalPrediction(pred, now: $1) }
        let sent = p.cores[1].onTick(now: p.now + .milliseconds(300))
        let flood = sent.compactMap { d -> CoordinatorMessage? in
            if case .send(let m, _, _) = d, case .routed(_, .prediction) = m { return m } else { return nil }
        }
        #expect(flood.count == 4)
        for i in [0, 2, 3, 4] {
            let forwarded = p.cores[i].onMessage(flood[0], from: p.id(1), now: p.now + .milliseconds(300))
            #expect(
                !forwarded.contains { if case .send(.routed(_, .prediction), _, _) = $0 { true } else { false } },
                "node \(i) forwarded")
        }
        // In a line the middle node forwards it.
        var line = Self.world()
        let viaD1 = line.cores[1].onMessage(
            .routed(
                Envelope(origin: line.id(2), originIncarnation: 100, sequence: 99, destination: .broadcast, ttl: 8),
                .prediction(uavNumber: 2, prediction: pred)), from: line.id(2), now: line.now)
        #expect(
            viaD1.contains {
                if case .send(.routed(_, .prediction), let to, _) = $0 { to == line.id(0) } else { false }
            })
    }
}

extension Pump {
    /// Gives drone `i` a hovering state, then ticks it alone `periods` times 100 ms apart, every send on every link
    /// recorded (its telemetry and what the others pass on of it).
    mutating func publishTelemetry(_ i: Int, periods: Int) {
        let state = VehicleState(position: TelemetryTests.here, batteryPercent: 77, activity: .hovering, armed: true)
        call(i) { $0.onLocalVehicleState(state, now: $1) }
        recordsSends = true
        for _ in 0..<periods {
            now = now + .milliseconds(100)
            handle(i, cores[i].onTick(now: now))
            drain()
        }
    }
}
