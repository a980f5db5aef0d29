import MeshTypes

/// The TXT record of a node's `_fleetmesh._udp` service (docs/PROTOCOL.md §1).
///
/// Keys: `v` protocol version, `id` node id (32 hex), `inc` incarnation (16 hex), `role` station|drone,
/// `name` display name, `uav` UAV number (drones that have one), `fp` mesh fingerprint (16 hex).
public struct MeshAdvertisement: Sendable, Equatable {
    public static let protocolVersion = 5

    public var version: Int = MeshAdvertisement.protocolVersion
    public var nodeID: NodeID
    public var incarnation: Incarnation
    public var role: NodeRole
    public var name: String
    public var uavNumber: Int?
    public var fingerprint: String

    public init(
        nodeID: NodeID, incarnation: Incarnation, role: NodeRole, name: String, uavNumber: Int?, fingerprint: String
    ) {
        self.nodeID = nodeID
        self.incarnation = incarnation
        self.role = role
        self.name = name
        self.uavNumber = uavNumber
        self.fingerprint = fingerprint
    }

    public var txt: [String: String] {
        var t = [
            "v": String(version), "id": nodeID.hex, "inc": hex16(incarnation), "role": role.rawValue,
            "name": String(name.utf8.prefix(200)) ?? name, "fp": fingerprint,
        ]
        if let uavNumber { t["uav"] = String(uavNumber) }
        return t
    }

    /// Decodes a TXT record; the error says which key is missing or malformed.
    public init(txt: [String: String]) throws(WireError) {
        guard let v = txt["v"], let version = Int(v) else { throw WireError("TXT: missing or non-numeric 'v'") }
        guard version == MeshAdvertisement.protocolVersion else {
            throw WireError("TXT: protocol version \(version), this node speaks \(MeshAdvertisement.protocolVersion)")
        }
        guard let idText = txt["id"], let id = NodeID(hex: idText) else {
            throw WireError("TXT: 'id' must be 32 hex digits")
        }
        guard let incText = txt["inc"], let inc = UInt64(incText, radix: 16) else {
            throw WireError("TXT: 'inc' must be hex")
        }
        guard let roleText = txt["role"], let role = NodeRole(rawValue: roleText) else {
            throw WireError("TXT: 'role' must be station or drone")
        }
        guard let fp = txt["fp"], fp.count == 16 else { throw WireError("TXT: 'fp' must be 16 hex digits") }
        var uav: Int?
        if let u = txt["uav"] {
            guard let n = Int(u), (1...250).contains(n) else { throw WireError("TXT: 'uav' must be 1–250, found \(u)") }
            uav = n
        }
        self.init(nodeID: id, incarnation: inc, role: role, name: txt["name"] ?? "", uavNumber: uav, fingerprint: fp)
        self.version = version
    }
}

private func hex16(_ v: UInt64) -> String {
    let s = String(v, radix: 16)
    return String(repeating: "0", count: 16 - s.count) + s
}
