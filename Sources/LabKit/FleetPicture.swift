import ControlProtocol
import Foundation
import Geodesy
import Node

/// A UAV number that none of `held` is: the highest free one, for probing "unknown UAV number" answers (the mesh
/// draws numbers at random, so no fixed number is safe to assume free).
public func uavNumberNobodyHolds(_ held: [Int]) -> Int {
    (1...250).reversed().first { !held.contains($0) }!
}

/// The lab's local map: east, north and up in metres on the tangent plane at a home point (Geodesy's `TangentPlane`,
/// so the demo and the lab tests place and measure drones with the same geometry as the node).
public struct LabMap: Sendable {
    public let plane: TangentPlane

    /// The map around `home` (latitude, longitude in degrees) at altitude 0.
    public init(home: (Double, Double)) {
        plane = TangentPlane(origin: GeodeticCoordinate(latitude: home.0, longitude: home.1))
    }

    /// Latitude and longitude of the point `east`, `north` metres from home.
    public func point(east: Double, north: Double) -> (latitude: Double, longitude: Double) {
        let g = plane.geodetic(LocalPosition(east: east, north: north, up: 0))
        return (g.latitude, g.longitude)
    }

    /// East and north in metres of a latitude and longitude.
    public func local(latitude: Double, longitude: Double) -> (east: Double, north: Double) {
        let l = plane.local(GeodeticCoordinate(latitude: latitude, longitude: longitude))
        return (l.east, l.north)
    }

    /// Horizontal distance in metres between two latitude/longitude points.
    public func distance(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
        let (p, q) = (local(latitude: a.0, longitude: a.1), local(latitude: b.0, longitude: b.1))
        return hypot(p.east - q.east, p.north - q.north)
    }
}

extension VehicleReport {
    /// East, north and up in metres from `home` (latitude, longitude in degrees), moved on by the vehicle's velocity over the
    /// report's age, so that vehicles reported at different moments are placed at the same one.
    public func placed(relativeTo home: (Double, Double)) -> (east: Double, north: Double, up: Double) {
        let age = Double(ageMs) / 1000
        let p = LabMap(home: home).local(latitude: latitude, longitude: longitude)
        return (
            p.east + (velocityEast ?? 0) * age, p.north + (velocityNorth ?? 0) * age,
            altitude + (velocityUp ?? 0) * age
        )
    }
}
