import Flight
import Foundation
import Testing

@testable import Avoidance

@Suite("Conflict detection")
struct DetectionTests {
    let c = AvoidanceConfiguration()

    func conflicts(_ tracks: [AirspaceTrack], now: Double = 0) -> [Conflict] {
        AirspaceSnapshot(tracks: tracks, now: now, configuration: c).conflicts()
    }

    @Test("a conflict needs both minima at the same instant: horizontal < 5 m and vertical < 2.9 m")
    func minima() {
        // Parallel, 4.9 m apart, same altitude: conflict at every instant.
        var found = conflicts([
            track(1, from: Vector3(0, 0, 10), velocity: Vector3(4, 0, 0)),
            track(2, from: Vector3(0, 4.9, 10), velocity: Vector3(4, 0, 0)),
        ])
        #expect(found.count == 1)
        #expect(found.first?.firstIndex == 0 && found.first?.instants == 41)
        #expect(abs((found.first?.closestHorizontal ?? 0) - 4.9) < 1e-9)
        // 5.0 m exactly is not closer than 5 m.
        #expect(conflicts([track(1, from: Vector3(0, 0, 10)), track(2, from: Vector3(5, 0, 10))]).isEmpty)
        // Right above, 2.8 m: conflict; 3.0 m: none.
        #expect(conflicts([track(1, from: Vector3(0, 0, 10)), track(2, from: Vector3(0, 0, 12.8))]).count == 1)
        #expect(conflicts([track(1, from: Vector3(0, 0, 10)), track(2, from: Vector3(0, 0, 13.0))]).isEmpty)
        // The 3-D distance is not what counts: 4.5 m apart horizontally and 2.95 m vertically is no conflict.
        #expect(conflicts([track(1, from: Vector3(0, 0, 10)), track(2, from: Vector3(4.5, 0, 12.95))]).isEmpty)
        // Closing head-on from 60 m at 8 m/s: first conflict when the gap drops below 5 m, at 6.875 s → step 35.
        found = conflicts([
            track(1, from: Vector3(0, 0, 10), velocity: Vector3(4, 0, 0)),
            track(2, from: Vector3(60, 0, 10), velocity: Vector3(-4, 0, 0)),
        ])
        #expect(found.map(\.firstIndex) == [35])
    }

    @Test("the same place at different times is no conflict; predictions made at different times are aligned")
    func sameTime() {
        // Both pass through (20, 0) but 3 s apart.
        let a = track(1, from: Vector3(0, 0, 10), velocity: Vector3(4, 0, 0))
        let b = track(2, from: Vector3(20, -32, 10), velocity: Vector3(0, 4, 0))
        #expect(conflicts([a, b]).isEmpty)
        // The same b, but its prediction was made 3 s earlier from 12 m further back: now it is at the crossing together with a.
        let late = track(2, from: Vector3(20, -32, 10), velocity: Vector3(0, 4, 0), time: -3)
        let found = conflicts([a, late])
        #expect(found.count == 1)
        // Positions on the grid are the prediction's own, shifted by its age.
        let s = AirspaceSnapshot(tracks: [late], now: 0, configuration: c)
        #expect(s.position(track: 0, index: 0).distance(to: Vector3(20, -20, 10)) < 1e-9)
        #expect(s.position(track: 0, index: 25).distance(to: Vector3(20, 0, 10)) < 1e-9)
        // Beyond the end of its prediction (8 s after it was made) it is extrapolated at its last velocity.
        #expect(s.position(track: 0, index: 40).distance(to: Vector3(20, 12, 10)) < 1e-9)
    }

    @Test("stale predictions and drones that do not avoid grow by ½·a·τ², capped; very old ones are dropped")
    func conservative() {
        let fresh = track(1, from: Vector3(0, 0, 10))
        let stale = track(2, from: Vector3(0, 0, 10), time: -1.5)
        let manual = track(3, from: Vector3(0, 0, 10), avoiding: false)
        let old = track(4, from: Vector3(0, 0, 10), time: -3.5)
        let s = AirspaceSnapshot(tracks: [fresh, stale, manual, old], now: 0, configuration: c)
        #expect(s.count == 3)
        #expect(s.conservative == [false, true, true])
        #expect(s.growth(track: 0, index: 20) == (0, 0))
        // Stale and avoiding: grows from the moment it went stale (1 s after it was made): 0.5 s at index 0 →
        // 0.5·2·0.25 = 0.25 m horizontally, 0.5·1·0.25 vertically.
        #expect(abs(s.growth(track: 1, index: 0).horizontal - 0.25) < 1e-9)
        #expect(abs(s.growth(track: 1, index: 0).vertical - 0.125) < 1e-9)
        #expect(s.growth(track: 1, index: 40) == (c.maxHorizontalInflation, c.maxVerticalInflation))
        // Not avoiding: grows from its own prediction time.
        #expect(s.growth(track: 2, index: 0) == (0, 0))
        #expect(abs(s.growth(track: 2, index: 5).horizontal - 1) < 1e-9)
        // A drone 8 m beside a stale one conflicts once the growth exceeds 3 m; beside a fresh one it never does.
        let beside = track(9, from: Vector3(8, 0, 10))
        #expect(conflicts([fresh, beside]).isEmpty)
        let found = conflicts([stale, beside])
        #expect(found.count == 1)
        #expect(found.first!.firstIndex == 7)  // 2.9 s old, 1.9 s stale: growth 3.61 m > 3 m
        // The same prediction from a drone that does not avoid grows from the time it was made: index 2 (τ = 1.9 s).
        let wild = track(2, from: Vector3(0, 0, 10), time: -1.5, avoiding: false)
        #expect(conflicts([wild, beside]).first?.firstIndex == 2)
    }

    @Test("a published uncertainty widens the track by radius + growth × age, capped; a drone beside it conflicts")
    func uncertainty() {
        var wide = track(1, from: Vector3(0, 0, 10), time: -0.5)
        wide.uncertainty = PredictionUncertainty(radius: 0.5, growth: 1)
        let s = AirspaceSnapshot(tracks: [wide, track(2, from: Vector3(0, 0, 10))], now: 0, configuration: c)
        // 0.5 s old at index 0: 0.5 + 1 × 0.5 = 1 m; index 10 (2 s later): 3 m; the cap beyond.
        #expect(abs(s.growth(track: 0, index: 0).horizontal - 1) < 1e-9)
        #expect(abs(s.growth(track: 0, index: 10).horizontal - 3) < 1e-9)
        #expect(s.growth(track: 0, index: 40).horizontal == c.maxHorizontalInflation)
        #expect(s.growth(track: 0, index: 10).vertical == 0 && s.growth(track: 1, index: 10) == (0, 0))
        // 7 m beside it: no conflict with the certain prediction; with the uncertain one from index 6 (1.2 s on, 1.7 s
        // after it was made: 2.2 m > 7 − 5).
        let beside = track(9, from: Vector3(7, 0, 10))
        #expect(conflicts([track(1, from: Vector3(0, 0, 10), time: -0.5), beside]).isEmpty)
        let found = conflicts([wide, beside])
        #expect(found.count == 1 && found.first?.firstIndex == 6, "\(found)")
    }

    @Test("the broad phase finds exactly the pairs the all-pairs check finds, on random fleets")
    func broadPhaseEqualsAllPairs() {
        var random = TestRandom(2026)
        var totalConflicts = 0
        for round in 0..<150 {
            let n = random.int(2...(round % 15 == 0 ? 160 : 40))
            let side = random.uniform(20...(round % 3 == 0 ? 60 : 400))
            let clustered = random.chance(0.3)
            var tracks: [AirspaceTrack] = []
            for k in 0..<n {
                var start = Vector3(random.uniform(0...side), random.uniform(0...side), random.uniform(5...30))
                if clustered { start = Vector3(start.x / 4, start.y / 4, 10 + Double(k % 3) * 2.9) }
                var v = Vector3(random.uniform(-4...4), random.uniform(-4...4), random.uniform(-1...1))
                if random.chance(0.2) { v = .zero }
                let turning = random.chance(0.3)
                var p = start
                var points: [PredictedTrajectory.Point] = []
                for i in 1...40 {
                    if turning { v = Vector3(v.x * 0.98 - v.y * 0.1, v.y * 0.98 + v.x * 0.1, v.z) }
                    p += v * 0.2
                    points.append(.init(offset: Double(i) * 0.2, position: p))
                }
                // Some exactly at the threshold on a grid, to exercise the boundaries.
                if random.chance(0.05) {
                    points = points.map {
                        .init(
                            offset: $0.offset,
                            position: Vector3(($0.position.x / 5).rounded() * 5, $0.position.y, $0.position.z))
                    }
                }
                let age = random.chance(0.15) ? random.uniform(1...3.2) : random.uniform(0...0.5)
                tracks.append(
                    AirspaceTrack(
                        uavNumber: k + 1, avoiding: !random.chance(0.1),
                        prediction: PredictedTrajectory(time: 10 - age, origin: start, points: points)))
            }
            let s = AirspaceSnapshot(tracks: tracks, now: 10, configuration: c)
            let broad = s.conflicts()
            let reference = s.conflictsAllPairs()
            #expect(broad == reference, "round \(round): \(broad.count) vs \(reference.count) conflicts")
            if broad != reference { break }
            totalConflicts += reference.count
        }
        // The fleets must actually have conflicts, or the comparison proves little.
        #expect(totalConflicts > 500)
    }

    @Test("tracks from latitude/longitude land on the same local frame")
    func geodetic() throws {
        let origin = AvoidanceMission.libraryOrigin
        let local = straight(from: Vector3(10, 20, 15), velocity: Vector3(3, -1, 0.5), time: 4)
        let geo = local.points.map { origin.geodetic($0.position.localPosition) }
        let t = try AirspaceTrack(
            uavNumber: 7, avoiding: true, step: 0.2, points: geo, age: 0.3, now: 4.3, origin: origin)
        #expect(abs(t.prediction.time - 4) < 1e-12)
        #expect(t.prediction.origin.distance(to: Vector3(10, 20, 15)) < 1e-6)
        for (a, b) in zip(t.prediction.points, local.points) {
            #expect(abs(a.offset - b.offset) < 1e-12)
            #expect(a.position.distance(to: b.position) < 1e-6)
        }
    }
}
