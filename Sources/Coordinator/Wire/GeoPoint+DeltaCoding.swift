import MeshTypes

/// A path of positions coded by their second differences (PROTOCOL.md §7.3, prediction flags bit 2): the first point
/// whole (12 bytes), then runs: a varint counting the points whose step does not change, then (if points remain) one
/// point whose three steps change — for each field (latitude, longitude in degrees × 10⁷, altitude in millimetres) the
/// change of its step as a zigzag varint. A path flown at a steady velocity, or a hover, is a few runs.
///
/// The sender may keep each coded point within a `Tolerance` of its own (the coder here picks, at each change, the
/// steps that keep the longest run within it): 40 points of a steady flight take about 20 bytes instead of about 120
/// when every rounding of a step to whole units is coded. With `Tolerance.exact` the coding is lossless.
enum DeltaCodedPath {
    /// How far a coded point may lie from the sender's, per field, in that field's units.
    struct Tolerance: Equatable {
        var latitudeE7: Int64
        var longitudeE7: Int64
        var altitudeMillimetres: Int64

        /// Lossless.
        static let exact = Tolerance(latitudeE7: 0, longitudeE7: 0, altitudeMillimetres: 0)
        /// What predictions use (PROTOCOL.md §7.3): 4 × 10⁻⁷° (at most 4.5 cm) in latitude and longitude, 4 cm in
        /// altitude; at most 7.7 cm in all, well below a prediction's own error.
        static let prediction = Tolerance(latitudeE7: 4, longitudeE7: 4, altitudeMillimetres: 40)

        subscript(_ k: Int) -> Int64 { k == 0 ? latitudeE7 : k == 1 ? longitudeE7 : altitudeMillimetres }
    }

    /// Appends count u8 and the coded points, each within `tolerance` of `points`.
    static func write(_ points: [GeoPoint], tolerance: Tolerance = .exact, to w: inout WireWriter) {
        w.u8(UInt8(points.count))
        guard let first = points.first else { return }
        first.write(to: &w)
        let n = points.count
        // The sender's fields, point by point; the decoded value and step the receiver will hold.
        let truth = points.map(fields)
        var value = truth[0]
        var step: [Int64] = [0, 0, 0]
        var i = 1
        /// Whether point j (j ≥ i) stays within tolerance on field k, and within the field's range, with the step
        /// `s` kept from point i − 1.
        func fits(_ k: Int, _ s: Int64, _ j: Int) -> Bool {
            let decoded = value[k] + Int64(j - i + 1) * s
            return abs(truth[j][k] - decoded) <= tolerance[k] && ranges[k].contains(decoded)
        }
        while i < n {
            // The run of unchanged steps.
            var z = 0
            while i + z < n, (0..<3).allSatisfy({ fits($0, step[$0], i + z) }) { z += 1 }
            writeVarint(UInt64(z), to: &w)
            for k in 0..<3 { value[k] += Int64(z) * step[k] }
            i += z
            guard i < n else { break }
            // A change at point i: for each field, the step (within tolerance at point i) whose run goes furthest;
            // of equal runs, the smallest change.
            for k in 0..<3 {
                let exactStep = truth[i][k] - value[k]
                var best = (step: exactStep, run: 0, change: abs(exactStep - step[k]))
                for s in (exactStep - tolerance[k])...(exactStep + tolerance[k]) where fits(k, s, i) {
                    var run = 1
                    while i + run < n, fits(k, s, i + run) { run += 1 }
                    let change = abs(s - step[k])
                    if run > best.run || (run == best.run && change < best.change) { best = (s, run, change) }
                }
                writeVarint(zigzag(best.step - step[k]), to: &w)
                step[k] = best.step
                value[k] += best.step
            }
            i += 1
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
        func append() {
            points.append(
                GeoPoint(
                    latitudeE7: Int32(latitude.value), longitudeE7: Int32(longitude.value),
                    altitudeMillimetres: Int32(altitude.value)))
        }
        while points.count < count {
            let at = r.offset
            let i = points.count
            let run = try readVarint(&r, "\(field())[\(i)].run")
            guard run <= UInt64(count - i) else {
                throw WireError(
                    "\(field())[\(i)].run at offset \(at): \(run) unchanged steps, but only \(count - i) points remain")
            }
            for _ in 0..<Int(run) {
                let j = points.count
                try latitude.next(change: 0, name: "latitudeE7", point: j, at: at, field())
                try longitude.next(change: 0, name: "longitudeE7", point: j, at: at, field())
                try altitude.next(change: 0, name: "altitudeMillimetres", point: j, at: at, field())
                append()
            }
            guard points.count < count else { break }
            try latitude.next(&r, name: "latitudeE7", point: points.count, field())
            try longitude.next(&r, name: "longitudeE7", point: points.count, field())
            try altitude.next(&r, name: "altitudeMillimetres", point: points.count, field())
            append()
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
            try next(change: change, name: name, point: i, at: at, field())
        }

        /// Applies a step change read at `at`.
        mutating func next(
            change: Int64, name: String, point i: Int, at: Int, _ field: @autoclosure () -> String
        ) throws(WireError) {
            guard let d = step.addingReportingOverflowIfSafe(change), let v = value.addingReportingOverflowIfSafe(d),
                range.contains(v)
            else {
                throw WireError("\(field())[\(i)].\(name) at offset \(at): the coded step leaves the range \(range)")
            }
            step = d
            value = v
        }
    }

    /// The range of each field: latitude, longitude (degrees × 10⁷), altitude (mm).
    private static let ranges: [ClosedRange<Int64>] = [
        -900_000_000...900_000_000, -1_800_000_000...1_800_000_000, Int64(Int32.min)...Int64(Int32.max),
    ]

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
