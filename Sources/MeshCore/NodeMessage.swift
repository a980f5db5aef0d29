import MeshTypes

/// Message types of the node layer, carried in reliable or unreliable frames. Types 0–255 belong to the node
/// layer; the coordinator uses 256 and above (docs/PROTOCOL.md §5).
public enum NodeMessageType {
    /// Sent reliably right after a session is established: who the sender is, for peers met by handshake only.
    public static let hello: UInt16 = 1
}

/// The hello message: `[name length u8][name UTF-8][uav number u8, 0 = none]`.
public struct HelloMessage: Equatable, Sendable {
    public var name: String
    public var uavNumber: Int?

    public init(name: String, uavNumber: Int?) {
        self.name = name
        self.uavNumber = uavNumber
    }

    public func encode() -> [UInt8] {
        let nameBytes = Array(name.utf8.prefix(255))
        return [UInt8(nameBytes.count)] + nameBytes + [UInt8(uavNumber ?? 0)]
    }

    public init(decoding bytes: [UInt8]) throws(WireError) {
        guard let n = bytes.first else { throw .truncated("hello: no name length") }
        guard bytes.count == 1 + Int(n) + 1 else {
            throw WireError("hello: \(bytes.count) bytes, expected \(2 + Int(n))")
        }
        name = String(decoding: bytes[1..<(1 + Int(n))], as: UTF8.self)
        let uav = Int(bytes[1 + Int(n)])
        uavNumber = uav == 0 ? nil : uav
    }
}
