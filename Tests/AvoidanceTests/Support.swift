import Determinism
import Flight
import Foundation

@testable import Avoidance

/// A prediction from `start` moving at constant `velocity`, made at `time` (40 points, 0.2 s apart).
func straight(from start: Vector3, velocity: Vector3, time: Double = 0, points: Int = 40, step: Double = 0.2)
    -> PredictedTrajectory
{
    PredictedTrajectory(
        time: time, origin: start,
        points: (1...points).map { .init(offset: Double($0) * step, position: start + velocity * (Double($0) * step)) })
}

/// A track of a drone moving at constant velocity.
func track(_ uav: Int, from start: Vector3, velocity: Vector3 = .zero, time: Double = 0, avoiding: Bool = true)
    -> AirspaceTrack
{
    AirspaceTrack(uavNumber: uav, avoiding: avoiding, prediction: straight(from: start, velocity: velocity, time: time))
}

/// An ownship flying to `goal`.
func ownship(_ uav: Int, at position: Vector3, velocity: Vector3 = .zero, goal: Vector3?, speed: Double = 4)
    -> AvoidanceOwnship
{
    AvoidanceOwnship(
        uavNumber: uav, position: position, velocity: velocity, goal: goal.map { .init(position: $0, speed: speed) })
}

/// A deterministic generator for property tests.
struct TestRandom {
    var rng: SeededRandom
    init(_ seed: UInt64) { rng = SeededRandom(seed: seed) }
    mutating func uniform(_ r: ClosedRange<Double>) -> Double { Double.random(in: r, using: &rng) }
    mutating func int(_ r: ClosedRange<Int>) -> Int { Int.random(in: r, using: &rng) }
    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &rng) < p }
}
