import Coordinator
import MeshTypes

/// A target update: what a source streams (docs/PROTOCOL.md §9.3).
///
/// ```
/// 1  address kind: 0 = all drones, 1 = one UAV number, 2 = a group
/// 1  count n of UAV numbers (0 for all, 1 for one, 1…32 for a group)
/// n  UAV numbers, each 1…250
/// 4  latitude, int32, 1e-7 degree
/// 4  longitude, int32, 1e-7 degree
/// 4  altitude, int32, millimetres above home
/// 2  heading, uint16, centidegrees 0…35999; 0xFFFF = none
/// 8  sent at, uint64, microseconds since the Unix epoch by the source's clock (informational)
/// ```
public struct TargetUpdate: Sendable, Equatable {
    public var target: Target
    public var sentAtMicros: UInt64

    public init(target: Target, sentAtMicros: UInt64) {
        self.target = target
        self.sentAtMicros = sentAtMicros
    }

    /// The largest group one update may address.
    public static let maxGroup = 32

    public func encode() -> [UInt8] {
        var out: [UInt8] = []
        switch target.address {
        case .all: out += [0, 0]
        case .uav(let n): out += [1, 1, n]
        case .group(let ns):
            let g = ns.prefix(Self.maxGroup)
            out += [2, UInt8(g.count)] + g
        }
        let p = target.location
        out += i32(Int64(p.latitudeE7)) + i32(Int64(p.longitudeE7)) + i32(Int64(p.altitudeMillimetres))
        let h = target.headingCentidegrees ?? 0xFFFF
        out += [UInt8(h >> 8), UInt8(h & 0xFF)]
        out += sentAtMicros.bigEndianBytes
        return out
    }

    private func i32(_ v: Int64) -> [UInt8] {
        let u = UInt32(bitPattern: Int32(clamping: v))
        return [UInt8(u >> 24), UInt8((u >> 16) & 0xFF), UInt8((u >> 8) & 0xFF), UInt8(u & 0xFF)]
    }

    public init(decoding body: [UInt8]) throws(LocBroadcasterError) {
        var i = 0
        func take(_ n: Int, _ what: String) throws(LocBroadcasterError) -> ArraySlice<UInt8> {
            guard i + n <= body.count else {
                throw .malformedBody("\(what) at offset \(i): needs \(n) bytes, \(body.count - i) left")
            }
            defer { i += n }
            return body[i..<(i + n)]
        }
        func i32(_ what: String) throws(LocBroadcasterError) -> Int32 {
            Int32(bitPattern: UInt32(UInt64(bigEndianBytes: try take(4, what))))
        }
        let kind = try take(1, "address kind").first!
        let count = Int(try take(1, "count").first!)
        let numbers = Array(try take(count, "UAV numbers"))
        for n in numbers where !(1...250).contains(n) { throw .malformedBody("UAV number \(n) outside 1…250") }
        let address: TargetAddress
        switch kind {
        case 0:
            guard count == 0 else { throw .malformedBody("address kind 0 (all) with \(count) numbers") }
            address = .all
        case 1:
            guard count == 1 else { throw .malformedBody("address kind 1 (one UAV) with \(count) numbers") }
            address = .uav(numbers[0])
        case 2:
            guard (1...Self.maxGroup).contains(count) else {
                throw .malformedBody("group of \(count) numbers (1…\(Self.maxGroup) allowed)")
            }
            address = .group(numbers)
        default:
            throw .malformedBody("unknown address kind \(kind)")
        }
        let lat = try i32("latitude"), lon = try i32("longitude"), alt = try i32("altitude")
        guard (-900_000_000...900_000_000).contains(lat) else {
            throw .malformedBody("latitude \(Double(lat) / 1e7) outside -90…90")
        }
        guard (-1_800_000_000...1_800_000_000).contains(lon) else {
            throw .malformedBody("longitude \(Double(lon) / 1e7) outside -180…180")
        }
        let hb = try take(2, "heading")
        let heading = UInt16(hb.first!) << 8 | UInt16(hb.last!)
        guard heading == 0xFFFF || heading < 36_000 else {
            throw .malformedBody("heading \(heading) outside 0…35999 centidegrees")
        }
        let sent = UInt64(bigEndianBytes: try take(8, "sent at"))
        guard i == body.count else { throw .malformedBody("\(body.count - i) unexpected trailing bytes") }
        target = Target(
            address: address, location: GeoPoint(latitudeE7: lat, longitudeE7: lon, altitudeMillimetres: alt),
            headingCentidegrees: heading == 0xFFFF ? nil : heading)
        sentAtMicros = sent
    }
}

/// A subscription request (docs/PROTOCOL.md §9.2): the subscriber's NodeID and name.
///
/// ```
/// 16  NodeID (high then low, big-endian)
///  1  name length n (0…63)
///  n  name, UTF-8
/// ```
public struct SubscribeRequest: Sendable, Equatable {
    public var node: NodeID
    public var name: String

    public init(node: NodeID, name: String) {
        self.node = node
        self.name = name
    }

    public func encode() -> [UInt8] {
        let n = Array(name.utf8.prefix(63))
        return node.high.bigEndianBytes + node.low.bigEndianBytes + [UInt8(n.count)] + n
    }

    public init(decoding body: [UInt8]) throws(LocBroadcasterError) {
        guard body.count >= 17 else {
            throw .malformedBody("subscribe body of \(body.count) bytes, at least 17 expected")
        }
        let len = Int(body[16])
        guard len <= 63, body.count == 17 + len else {
            throw .malformedBody("subscribe name length \(len) does not match \(body.count - 17) bytes")
        }
        node = NodeID(high: UInt64(bigEndianBytes: body[0..<8]), low: UInt64(bigEndianBytes: body[8..<16]))
        name = String(decoding: body[17...], as: UTF8.self)
    }
}
