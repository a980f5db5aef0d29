/// What a node is in the mesh.
public enum NodeRole: String, Sendable, Codable, CaseIterable {
    /// A ground station: a laptop an operator commands the fleet from. Stations carry no UAV number.
    case station
    /// A drone's companion computer. Drones carry a UAV number (1–250), also their MAVLink system ID.
    case drone
}
