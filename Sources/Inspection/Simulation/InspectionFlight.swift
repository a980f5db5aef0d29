import Flight
import Geodesy

/// What a simulated drone did on an inspection route.
public struct InspectionFlightReport: Sendable, Codable, Hashable {
    /// Whether it flew the whole route (to the end of the last hover).
    public var completed: Bool
    /// Seconds from takeoff to the end of the route.
    public var flightTime: Double
    /// Metres flown.
    public var distanceFlown: Double
    /// The smallest distance between the track flown on the route (from its start to its end; the takeoff from the
    /// ground is not counted) and any point of the cloud, metres.
    public var minimumClearance: Double
    /// Where that was (local ENU metres; the cloud point).
    public var closestPoint: [Double]?
    /// The largest distance between the drone and where the route had it at the same time, metres.
    public var maximumTrackingError: Double
    /// Snapshot points the drone hovered at (within 0.5 m, facing the heading within 5°).
    public var snapshotsTaken: Int
    /// Snapshot points on the route.
    public var snapshots: Int
}

/// Flies an inspection route with the built-in simulator and navigator (the drone node's own control loop, on a
/// virtual clock): take off above home, go to the route's start, fly the timed trajectory; then measures the flown
/// track against the raw cloud.
public enum InspectionFlight {
    /// Simulates the flight; `home` is the takeoff spot (local ENU, z ground), the route should start above it.
    public static func fly(
        _ route: InspectionRoute, cloud: PointCloud, origin: MapOrigin, home: SIMD3<Double>,
        simulator: SimulatorConfiguration = SimulatorConfiguration(),
        navigator configuration: NavigatorConfiguration = NavigatorConfiguration(), step dt: Double = 0.02
    ) -> InspectionFlightReport {
        let trajectory = route.trajectory
        var sim = MultirotorSimulator(origin: origin, home: Vector3(home.x, home.y, home.z), configuration: simulator)
        var navigator = Navigator(origin: origin, configuration: configuration)
        var now = 0.0
        var track: [SIMD3<Double>] = []
        var recording = false
        var distance = 0.0
        var previous = sim.state.position
        func tick() {
            sim.setpoint = navigator.setpoint(state: sim.state, now: now)
            sim.step(dt: dt)
            now += dt
            let p = sim.state.position
            distance += p.distance(to: previous)
            previous = p
            if recording && (track.isEmpty || Int(now / dt) % 5 == 0) { track.append(SIMD3(p.x, p.y, p.z)) }
        }
        func run(until done: () -> Bool, limit: Double) -> Bool {
            let end = now + limit
            while now < end {
                if done() { return true }
                tick()
            }
            return done()
        }
        let start = trajectory.start.position
        var completed = false
        var trackingError = 0.0
        var taken = Set<Int>()
        flight: do {
            guard
                (try? navigator.handle(.takeoff(altitude: max(1, start.z - home.z)), state: sim.state, now: now))
                    != nil,
                run(until: { sim.state.activity == .hovering }, limit: 60)
            else { break flight }
            guard (try? navigator.handle(.goToStart(trajectory), state: sim.state, now: now)) != nil,
                run(
                    until: {
                        sim.state.activity == .hovering
                            && sim.state.position.distance(to: start) <= configuration.trajectoryStartTolerance / 4
                    }, limit: 120)
            else { break flight }
            guard (try? navigator.handle(.startTrajectory(trajectory), state: sim.state, now: now)) != nil else {
                break flight
            }
            let began = now
            recording = true
            while now - began < trajectory.duration + 0.5 * dt {
                tick()
                let planned = trajectory.sample(at: now - began)
                trackingError = max(trackingError, sim.state.position.distance(to: planned.position))
                for (i, v) in route.snapshotVertices.enumerated() where !taken.contains(i) {
                    let target = route.vertices[v]
                    let heading = route.points[i].heading ?? sim.state.heading
                    if sim.state.position.distance(to: Vector3(target.x, target.y, target.z)) <= 0.5,
                        abs(headingDifference(from: sim.state.heading, to: heading)) <= 5,
                        sim.state.velocity.length < 0.2
                    {
                        taken.insert(i)
                    }
                }
            }
            completed = true
        }
        let clearance = RouteClearance.minimum(path: track, cloud: cloud)
        return InspectionFlightReport(
            completed: completed, flightTime: now, distanceFlown: distance, minimumClearance: clearance.distance,
            closestPoint: clearance.at.map { [$0.x, $0.y, $0.z] }, maximumTrackingError: trackingError,
            snapshotsTaken: taken.count, snapshots: route.points.count)
    }
}
