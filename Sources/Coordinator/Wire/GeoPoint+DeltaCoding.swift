import MeshTypes

/// A path of positions coded by their second differences (PROTOCOL.md §7.3, prediction flags bit 2): the first point
/// whole (12 bytes), then for each further point and each field (latitude, longitude in degrees × 10⁷, altitude in
/// millimetres) the change of its step from the previous step, as a zigzag varint. Lossless; a path flown at a steady
/// velocity costs about a byte per field and point instead of four, a turn or a stop a few more.
enum DeltaCodedPath {
    /// Appends count u8 and the coded points.
    static func write(_ points: [GeoPoint], to w: inout WireWriter) {
        w.u8(UInt8(points.count))
        guard let first = points.first else { return }
        first.write(to: &w)
        var previous = fields(first)
        var step: [Int64] = [0, 0, 0]
        for p in points.dropFirst() {
            let f = fields(p)
            for k in 0..<3 {
                let d = f[k] - previous[k]
                writeVarint(zigzag(d - step[k]), to: &w)
                step[k] = d
            }
            previous = f
        }
    }

    /// Reads count u8 and the coded points; every point is checked like a whole one (latitude within ±90°, longitude
    /// within ±180°, altitude within a 32-bit millimetre count), and the error names it. Allocates only the result
    /// (a prediction is decoded by every node that hears it, five times a second per drone).
    static func read(_ r: inout WireReader, _ field: @autoclosure () -> String) throws(WireError) -> [GeoPoint] {
        let count = Int(try r.u8(field() + ".count"))
        guard count > 0 else { return [] }
        let first = try GeoPoint(from: &r, "\(field())[0]")
        var points = [first]
        points.reserveCapacity(count)
        var latitude = Axis(value: Int64(first.latitudeE7), limit: 900_000_000)
        var longitude = Axis(value: Int64(first.longitudeE7), limit: 1_800_000_000)
        var altitude = Axis(value: Int64(first.altitudeMillimetres), limit: Int64(Int32.max))
        for i in 1..<count {
            try latitude.next(&r, name: "latitudeE7", point: i, field())
            try longitude.next(&r, name: "longitudeE7", point: i, field())
            try altitude.next(&r, name: "altitudeMillimetres", point: i, field())
            points.append(
                GeoPoint(
                    latitudeE7: Int32(latitude.value), longitudeE7: Int32(longitude.value),
                    altitudeMillimetres: Int32(altitude.value)))
        }
        return points
    }

    /// One field of the path while it is decoded: its last value and step, and its range (±limit, or the 32-bit
    /// range for the altitude, whose lower end is one further).
    private struct Axis {
        var value: Int64
        var step: Int64 = 0
        let limit: Int64

        init(value: Int64, limit: Int64) {
            self.value = value
            self.limit = limit
        }

        var range: ClosedRange<Int64> { (limit == Int64(Int32.max) ? -limit - 1 : -limit)...limit }

        mutating func next(
            _ r: inout WireReader, name: String, point i: Int, _ field: @autoclosure () -> String
        ) throws(WireError) {
            let at = r.offset
            let change = unzigzag(try readVarint(&r, "\(field())[\(i)].\(name)"))
            guard let d = step.addingReportingOverflowIfSafe(change), let v = value.addingReportingOverflowIfSafe(d),
                range.contains(v)
            else {
                throw WireError("\(field())[\(i)].\(name) at offset \(at): the coded step leaves the range \(range)")
            }
            step = d
            value = v
        }
    }

    private static func fields(_ p: GeoPoint) -> [Int64] {
        [Int64(p.latitudeE7), Int64(p.longitudeE7), Int64(p.altitudeMillimetres)]
    }

    static func zigzag(_ v: Int64) -> UInt64 { UInt64(bitPattern: (v << 1) ^ (v >> 63)) }
    static func unzigzag(_ u: UInt64) -> Int64 { Int64(bitPattern: u >> 1) ^ -Int64(bitPattern: u & 1) }

    static func writeVarint(_ value: UInt64, to w: inout WireWriter) {
        var v = value
        while v >= 0x80 {
            w.u8(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        w.u8(UInt8(v))
    }

    /// A varint of at most 10 bytes (64 bits).
    static func readVarint(_ r: inout WireReader, _ field: @autoclosure () -> String) throws(WireError) -> UInt64 {
        var value: UInt64 = 0
        let at = r.offset
        for i in 0..<10 {
            let b = try r.u8(field())
            if i == 9, b > 1 { break }
            value |= UInt64(b & 0x7F) << (7 * UInt64(i))
            if b & 0x80 == 0 { return value }
        }
        throw WireError("\(field()) at offset \(at): varint longer than 64 bits")
    }
}

extension Int64 {
    /// The sum, or nil if it overflows.
    fileprivate func addingReportingOverflowIfSafe(_ other: Int64) -> Int64? {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? nil : sum
    }
}
