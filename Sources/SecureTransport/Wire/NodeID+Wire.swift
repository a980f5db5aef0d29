import MeshTypes

extension NodeID {
    /// The 16 wire bytes: `high` then `low`, both big-endian.
    var wireBytes: [UInt8] {
        var b: [UInt8] = []
        b.reserveCapacity(16)
        b.appendBigEndian(high)
        b.appendBigEndian(low)
        return b
    }
}

extension NodeRole {
    /// The role's wire byte: 0 = station, 1 = drone.
    var wireValue: UInt8 {
        switch self {
        case .station: 0
        case .drone: 1
        }
    }

    /// The role for a wire byte, or nil for a value this version does not know.
    init?(wireValue: UInt8) {
        switch wireValue {
        case 0: self = .station
        case 1: self = .drone
        default: return nil
        }
    }
}
