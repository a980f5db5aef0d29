import Avoidance
import Coordinator
import Geodesy
import MeshTypes
import Testing
import Vehicles

/// `LocalTrackCache`: the pilot's tracks of the other drones, projected once per published path and only aged between.
@Suite struct LocalTrackCacheTests {
    static let frame = try! MapOrigin(latitude: 50.0755, longitude: 14.4378, altitude: 0)

    /// A straight 40-point path from `east` metres east of the origin, heading north at `speed` m/s.
    static func path(east: Double, speed: Double = 5) -> TrajectoryPrediction {
        TrajectoryPrediction(
            points: (1...40).map { i in
                GeoPoint(frame.geodetic(LocalPosition(east: east, north: Double(i) * 0.2 * speed, up: 10)))
            })
    }

    static func entry(_ low: UInt64, _ prediction: TrajectoryPrediction, age: Duration) -> AirspaceEntry {
        AirspaceEntry(node: NodeID(high: 7, low: low), uavNumber: UInt8(low), prediction: prediction, age: age)
    }

    @Test("the cached tracks equal freshly projected ones, cycle after cycle, as paths age, change and go")
    func cachedTracksEqualFreshOnes() {
        var cache = LocalTrackCache()
        let own = NodeID(high: 7, low: 1)
        let a = Self.path(east: 20), b = Self.path(east: -20), a2 = Self.path(east: 25, speed: 8)
        let cycles: [[AirspaceEntry]] = [
            [Self.entry(1, a, age: .zero), Self.entry(2, a, age: .zero), Self.entry(3, b, age: .milliseconds(30))],
            [
                Self.entry(1, a, age: .zero), Self.entry(2, a, age: .milliseconds(50)),
                Self.entry(3, b, age: .milliseconds(80)),
            ],
            [Self.entry(2, a2, age: .milliseconds(10)), Self.entry(3, b, age: .milliseconds(130))],
            [Self.entry(2, a2, age: .milliseconds(60))],
        ]
        var t = MeshInstant.zero + .seconds(100)
        for (i, airspace) in cycles.enumerated() {
            let cached = cache.tracks(airspace, excluding: own, in: Self.frame, now: t)
            let fresh = VehiclePilot.tracks(airspace, excluding: own, in: Self.frame, now: t)
            #expect(cached == fresh, "cycle \(i)")
            #expect(cached.count == airspace.count { $0.node != own }, "cycle \(i)")
            t = t + .milliseconds(50)
        }
        // Projected: 2 and 3 at first; nothing new in the second cycle; 2's new path in the third; nothing in the last.
        #expect(cache.projected == 3)
        #expect(cache.count == 1)
    }

    @Test("a track is aged by the entry's age on the caller's clock, without projecting again")
    func aTrackIsAgedNotProjectedAgain() throws {
        var cache = LocalTrackCache()
        let p = Self.path(east: 0)
        let now = MeshInstant.zero + .seconds(10)
        let first = try #require(
            cache.tracks([Self.entry(2, p, age: .zero)], excluding: nil, in: Self.frame, now: now).first)
        let later = try #require(
            cache.tracks(
                [Self.entry(2, p, age: .milliseconds(500))], excluding: nil, in: Self.frame,
                now: now + .milliseconds(500)
            ).first)
        #expect(first.prediction.time == 10)
        #expect(later.prediction.time == 10)
        #expect(later.prediction.points == first.prediction.points)
        #expect(cache.projected == 1)
    }

    @Test("another map projects every path again")
    func anotherMapProjectsAgain() throws {
        var cache = LocalTrackCache()
        let airspace = [Self.entry(2, Self.path(east: 0), age: .zero)]
        let there = try MapOrigin(latitude: 50.08, longitude: 14.44, altitude: 0)
        let here = try #require(cache.tracks(airspace, excluding: nil, in: Self.frame, now: .zero).first)
        let moved = try #require(cache.tracks(airspace, excluding: nil, in: there, now: .zero).first)
        #expect(cache.projected == 2)
        #expect(moved == VehiclePilot.tracks(airspace, excluding: nil, in: there, now: .zero).first)
        #expect(abs(moved.prediction.points[0].position.x - here.prediction.points[0].position.x) > 100)
    }
}
