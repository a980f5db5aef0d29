import ControlProtocol
import Foundation
import Node

/// A UAV number that none of `held` is: the highest free one, for probing "unknown UAV number" answers (the mesh
/// draws numbers at random, so no fixed number is safe to assume free).
public func uavNumberNobodyHolds(_ held: [Int]) -> Int {
    (1...250).reversed().first { !held.contains($0) }!
}

extension VehicleReport {
    /// East, north and up in metres from `home` (latitude, longitude in degrees), moved on by the vehicle's velocity over the
    /// report's age, so that vehicles reported at different moments are placed at the same one. Metre scale only.
    public func placed(relativeTo home: (Double, Double)) -> (east: Double, north: Double, up: Double) {
        let age = Double(ageMs) / 1000
        let metresPerDegree = 111_320.0
        return (
            (longitude - home.1) * metresPerDegree * cos(home.0 * .pi / 180) + (velocityEast ?? 0) * age,
            (latitude - home.0) * metresPerDegree + (velocityNorth ?? 0) * age,
            altitude + (velocityUp ?? 0) * age
        )
    }
}
