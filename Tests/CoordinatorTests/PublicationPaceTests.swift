import MeshTypes
import Testing

@testable import Coordinator

/// A drone that is behind publishes less: the pace steps down with its lateness and back up once it has been on time.
@Suite("Publication pace")
struct PublicationPaceTests {
    static let t0 = MeshInstant(nanoseconds: 1_000_000_000)

    @Test(
        "the pace steps down at 150 ms and 500 ms of lateness, at once and straight to the level the lateness calls for"
    )
    func stepsDown() {
        var pace = PublicationPace()
        #expect(pace.onLateness(.milliseconds(149), now: Self.t0) == nil)
        #expect(pace.level == .full)
        let down = pace.onLateness(.milliseconds(150), now: Self.t0 + .milliseconds(50))
        #expect(down == .init(from: .full, to: .reduced, lateness: .milliseconds(150)))
        #expect(pace.onLateness(.milliseconds(499), now: Self.t0 + .milliseconds(100)) == nil)
        #expect(pace.onLateness(.milliseconds(500), now: Self.t0 + .milliseconds(150))?.to == .minimal)

        var fresh = PublicationPace()
        #expect(fresh.onLateness(.seconds(2), now: Self.t0) == .init(from: .full, to: .minimal, lateness: .seconds(2)))
        // Lateness that falls does not bring the pace back up by itself.
        #expect(fresh.onLateness(.milliseconds(200), now: Self.t0 + .milliseconds(50)) == nil)
        #expect(fresh.level == .minimal)
    }

    @Test("back up one level after 10 s on time; a late moment in between starts the 10 s over")
    func recovers() {
        var pace = PublicationPace()
        _ = pace.onLateness(.milliseconds(800), now: Self.t0)
        var t = Self.t0
        var changes: [(Duration, PublicationPace.Change)] = []
        // 25 s of ticks every 50 ms: on time, except one 80 ms moment at 4 s (late, but not enough to step down).
        for i in 1...500 {
            t = Self.t0 + .milliseconds(50 * i)
            let lateness: Duration = i == 80 ? .milliseconds(80) : .milliseconds(10)
            if let c = pace.onLateness(lateness, now: t) { changes.append((t - Self.t0, c)) }
        }
        // On time from 4.05 s: reduced at 14.05 s, full at 24.05 s; the worst lateness seen at the level left is told.
        #expect(changes.map(\.0) == [.milliseconds(14_050), .milliseconds(24_050)])
        #expect(changes.map(\.1.to) == [.reduced, .full])
        #expect(changes[0].1.lateness == .milliseconds(800) && changes[1].1.lateness == .milliseconds(10))
        #expect(pace.level == .full)
    }

    @Test("the log says the rates and why")
    func text() {
        let down = PublicationPace.Change(from: .full, to: .reduced, lateness: .milliseconds(320))
        #expect(
            down.text(telemetry: .milliseconds(100), prediction: .milliseconds(200), linkState: .milliseconds(200))
                .hasPrefix(
                    "publishing telemetry at 5 Hz, predictions at 3.3 Hz, neighbour changes at most every 400 ms (pace reduced): this node is 320 ms behind"
                ))
        let up = PublicationPace.Change(from: .minimal, to: .reduced, lateness: .milliseconds(900))
        #expect(
            up.text(telemetry: .milliseconds(100), prediction: .milliseconds(200), linkState: .milliseconds(200))
                .hasPrefix(
                    "publishing telemetry at 5 Hz, predictions at 3.3 Hz, neighbour changes at most every 400 ms again (pace reduced): this node has been on time for 10 s"
                ))
        let station = PublicationPace.Change(from: .reduced, to: .minimal, lateness: .milliseconds(700))
        #expect(
            station.text(telemetry: nil, prediction: nil, linkState: .milliseconds(200)).hasPrefix(
                "publishing neighbour changes at most every 1 s (pace minimal): this node is 700 ms behind"))
    }

    /// `TelemetryTests.world()` with its drone D2 (core 2) hovering in the air, a prediction to publish.
    static func flyingDrone() -> Pump {
        var p = TelemetryTests.world()
        let state = VehicleState(
            position: TelemetryTests.here, batteryPercent: 77, activity: .hovering, armed: true)
        p.call(2) { $0.onLocalVehicleState(state, now: $1) }
        p.call(2) { $0.onFlyingChanged(true, now: $1) }
        p.call(2) {
            $0.onLocalPrediction(
                TrajectoryPrediction(points: Array(repeating: TelemetryTests.here, count: 40)), now: $1)
        }
        return p
    }

    /// Telemetry and predictions a drone publishes in `seconds` of 50 ms ticks, `lateness` told before each.
    static func published(lateness: Duration, seconds: Int) -> (telemetry: Int, predictions: Int) {
        var p = Self.flyingDrone()
        var telemetry = 0
        var predictions = 0
        for _ in 0..<(seconds * 20) {
            p.now = p.now + .milliseconds(50)
            _ = p.cores[2].onLateness(lateness, now: p.now)
            let ds = p.cores[2].onTick(now: p.now)
            for d in ds {
                if case .send(.routed(_, .telemetry), _, .unreliable) = d { telemetry += 1 }
                if case .send(.routed(_, .prediction), _, _) = d { predictions += 1 }
            }
            p.handle(2, ds)
            p.drain()
        }
        return (telemetry, predictions)
    }

    /// The indices of the predictions a drone publishes in `seconds`, `lateness` behind, with the times they went.
    static func predictionIndices(lateness: Duration, seconds: Int) -> [(at: Duration, index: UInt8)] {
        var p = Self.flyingDrone()
        let start = p.now
        var out: [(at: Duration, index: UInt8)] = []
        for tick in 0..<(seconds * 20) {
            p.now = p.now + .milliseconds(50)
            // Full pace for the first second: the reduced pace then starts from an odd count.
            _ = p.cores[2].onLateness(tick < 20 ? .zero : lateness, now: p.now)
            let ds = p.cores[2].onTick(now: p.now)
            for d in ds {
                if case .send(.routed(_, .prediction(_, let prediction)), _, _) = d {
                    out.append((p.now - start, prediction.index))
                }
            }
            p.handle(2, ds)
            p.drain()
        }
        return out
    }

    @Test(
        "at every pace, relays beyond 200 m (index 0) pass a prediction on at least every 0.8 s, those beyond 100 m (even index) every 0.4 s"
    )
    func farRelaysKeepPredictionsFreshAtEveryPace() {
        for lateness in [Duration.zero, .milliseconds(200), .seconds(1)] {
            let published = Self.predictionIndices(lateness: lateness, seconds: 10).filter { $0.at > .seconds(2) }
            #expect(published.count >= 20, "\(lateness): \(published.count) predictions")
            for (kept, most) in [
                ({ (i: UInt8) in i == 0 }, Duration.milliseconds(800)), ({ $0 % 2 == 0 }, .milliseconds(400)),
            ] {
                let times = published.filter { kept($0.index) }.map(\.at)
                let gaps = zip(times, times.dropFirst()).map { $1 - $0 }
                #expect(
                    !times.isEmpty && gaps.allSatisfy { $0 <= most },
                    "\(lateness) behind: indices \(published.map(\.index)), gaps \(gaps)")
            }
        }
    }

    @Test("a drone publishes telemetry at 10, 5 and 5 Hz and predictions at 5, 3.3 and 2.5 Hz as the pace falls")
    func ratesFollowThePace() {
        // One station, one neighbour (D1) that a flood reaches: one copy of each per period.
        let full = Self.published(lateness: .zero, seconds: 10)
        let reduced = Self.published(lateness: .milliseconds(200), seconds: 10)
        let minimal = Self.published(lateness: .seconds(1), seconds: 10)
        #expect((99...101).contains(full.telemetry) && (49...51).contains(reduced.telemetry), "\(full) \(reduced)")
        #expect((49...51).contains(minimal.telemetry), "\(minimal)")
        #expect(full.predictions > 0 && reduced.predictions > 0 && minimal.predictions > 0)
        // Predictions: every 200, 300 and 400 ms (each flooded to the same neighbours).
        #expect(
            abs(Double(full.predictions) / Double(reduced.predictions) - 1.5) < 0.1
                && abs(Double(full.predictions) / Double(minimal.predictions) - 2) < 0.1,
            "\(full.predictions) \(reduced.predictions) \(minimal.predictions)")
    }
}

extension PublicationPaceTests {
    /// How long after node 0's third neighbour comes up node 1 (its first) sees node 0's advertisement list it, with
    /// node 0 `lateness` behind: the change waits for the shortest interval since the second neighbour's.
    static func thirdNeighbourHeardAfter(lateness: Duration) -> Duration? {
        var p = Pump((0..<4).map { (.station, "N\($0)", pinned: nil, persisted: nil) })
        p.link(0, 1)
        p.advance(.milliseconds(1500))
        _ = p.cores[0].onLateness(lateness, now: p.now)
        p.link(0, 2)
        p.advance(.milliseconds(50), step: .milliseconds(10))
        p.link(0, 3)
        let linked = p.now
        for _ in 0..<300 {
            if p.cores[1].advertisement(of: p.id(0))?.neighbours.contains(p.id(3)) == true { return p.now - linked }
            p.advance(.milliseconds(10), step: .milliseconds(10))
        }
        return nil
    }

    @Test("every node that is behind floods a change of its neighbours at most every 400 ms or 1 s, not every 200 ms")
    func linkStateChangesWait() throws {
        let full = try #require(Self.thirdNeighbourHeardAfter(lateness: .zero))
        let reduced = try #require(Self.thirdNeighbourHeardAfter(lateness: .milliseconds(200)))
        let minimal = try #require(Self.thirdNeighbourHeardAfter(lateness: .seconds(1)))
        // 50 ms after the second neighbour's advertisement: the rest of 200 ms, 400 ms and 1 s.
        #expect(full >= .milliseconds(140) && full <= .milliseconds(170), "\(full)")
        #expect(reduced >= .milliseconds(340) && reduced <= .milliseconds(370), "\(reduced)")
        #expect(minimal >= .milliseconds(940) && minimal <= .milliseconds(970), "\(minimal)")
    }
}
