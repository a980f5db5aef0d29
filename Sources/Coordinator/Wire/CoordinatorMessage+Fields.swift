import MeshTypes

// The coordinator wire format's shared parts: link-state advertisements, envelopes, positions and their checked
// fields (PROTOCOL.md §7).

extension LinkStateAdvertisement {
    func write(to w: inout WireWriter) {
        w.nodeID(origin)
        w.u64(incarnation)
        w.u64(sequence)
        w.u8(role == .station ? 0 : 1)
        w.u8((numberPinned ? 1 : 0) | (flying ? 2 : 0) | (geofence != nil ? 4 : 0) | (controller != nil ? 8 : 0))
        w.u8(uavNumber ?? 0)
        if let controller { w.nodeID(controller) }
        w.shortString(name)
        w.u16(UInt16(min(neighbours.count, WireLimits.maxNeighbours)))
        for n in neighbours.prefix(WireLimits.maxNeighbours) { w.nodeID(n) }
        if let geofence {
            w.u64(geofence.epoch)
            w.nodeID(geofence.announcedBy)
        }
    }

    init(from r: inout WireReader) throws(WireError) {
        let origin = try r.nodeID("lsa.origin")
        let incarnation = try r.u64("lsa.incarnation")
        let sequence = try r.u64("lsa.sequence")
        let role: NodeRole = try r.tag("lsa.role", max: 1) == 0 ? .station : .drone
        let flagsAt = r.offset
        let flags = try r.u8("lsa.flags")
        guard flags & ~15 == 0 else {
            throw WireError(
                "lsa.flags at offset \(flagsAt): expected bits 0–3 only, found 0x\(String(flags, radix: 16))")
        }
        let number = try readUAVNumber(&r, "lsa.uavNumber", allowNone: true)
        let controller = flags & 8 != 0 ? try r.nodeID("lsa.controller") : nil
        let name = try r.shortString("lsa.name")
        let countAt = r.offset
        let count = Int(try r.u16("lsa.neighbourCount"))
        guard count <= WireLimits.maxNeighbours else {
            throw WireError(
                "lsa.neighbourCount at offset \(countAt): expected ≤ \(WireLimits.maxNeighbours), found \(count)")
        }
        guard r.remaining >= count * 16 else {
            throw WireError("truncated lsa.neighbours: expected \(count * 16) bytes, found \(r.remaining)")
        }
        var neighbours: [NodeID] = []
        neighbours.reserveCapacity(count)
        for i in 0..<count { neighbours.append(try r.nodeID("lsa.neighbours[\(i)]")) }
        var geofence: GeofenceStamp?
        if flags & 4 != 0 {
            let epoch = try r.u64("lsa.geofence.epoch")
            geofence = GeofenceStamp(epoch: epoch, announcedBy: try r.nodeID("lsa.geofence.announcedBy"))
        }
        self.init(
            origin: origin, incarnation: incarnation, sequence: sequence, role: role, name: name,
            uavNumber: number, numberPinned: flags & 1 != 0, flying: flags & 2 != 0, neighbours: neighbours,
            geofence: geofence, controller: controller)
    }
}

/// Reads a UAV number: 1…250, or 0 for "none" where allowed.
func readUAVNumber(_ r: inout WireReader, _ field: @autoclosure () -> String, allowNone: Bool) throws(WireError)
    -> UInt8?
{
    let at = r.offset
    let n = try r.u8(field())
    if n == 0 && allowNone { return nil }
    guard n >= 1 && n <= WireLimits.maxUAVNumber else {
        throw WireError("\(field()) at offset \(at): expected \(allowNone ? "0…" : "1…")250, found \(n)")
    }
    return n
}

extension Envelope {
    func write(to w: inout WireWriter) {
        w.nodeID(origin)
        w.u64(originIncarnation)
        w.u64(sequence)
        w.u8(ttl)
        switch destination {
        case .broadcast: w.u8(0)
        case .node(let id):
            w.u8(1)
            w.nodeID(id)
        case .nodes(let ids):
            w.u8(2)
            w.u8(UInt8(ids.count))
            for id in ids { w.nodeID(id) }
        }
    }

    init(from r: inout WireReader) throws(WireError) {
        let origin = try r.nodeID("envelope.origin")
        let inc = try r.u64("envelope.originIncarnation")
        let seq = try r.u64("envelope.sequence")
        let ttl = try r.u8("envelope.ttl")
        let dest: Destination
        switch try r.tag("envelope.destinationKind", max: 2) {
        case 0: dest = .broadcast
        case 1: dest = .node(try r.nodeID("envelope.destination"))
        default: dest = .nodes(try Self.readDestinations(&r))
        }
        self.init(origin: origin, originIncarnation: inc, sequence: seq, destination: dest, ttl: ttl)
    }

    /// Destination kind 2's list: a count of 2…16, then that many NodeIDs, each above the one before.
    private static func readDestinations(_ r: inout WireReader) throws(WireError) -> [NodeID] {
        let countAt = r.offset
        let count = Int(try r.u8("envelope.destinations.count"))
        guard (2...Destination.maxNodes).contains(count) else {
            throw WireError(
                "envelope.destinations.count at offset \(countAt): expected 2…\(Destination.maxNodes), found \(count)")
        }
        var ids: [NodeID] = []
        ids.reserveCapacity(count)
        for i in 0..<count {
            let at = r.offset
            let id = try r.nodeID("envelope.destinations[\(i)]")
            if let last = ids.last, id <= last {
                throw WireError(
                    "envelope.destinations[\(i)] at offset \(at): must be above envelope.destinations[\(i - 1)] "
                        + "(ascending, no repeats)")
            }
            ids.append(id)
        }
        return ids
    }
}

extension GeoPoint {
    func write(to w: inout WireWriter) {
        w.i32(latitudeE7)
        w.i32(longitudeE7)
        w.i32(altitudeMillimetres)
    }

    init(from r: inout WireReader, _ field: @autoclosure () -> String) throws(WireError) {
        let latAt = r.offset
        let lat = try r.i32(field() + ".latitudeE7")
        guard (-900_000_000...900_000_000).contains(lat) else {
            throw WireError("\(field()).latitudeE7 at offset \(latAt): expected −900000000…900000000, found \(lat)")
        }
        let lonAt = r.offset
        let lon = try r.i32(field() + ".longitudeE7")
        guard (-1_800_000_000...1_800_000_000).contains(lon) else {
            throw WireError("\(field()).longitudeE7 at offset \(lonAt): expected −1800000000…1800000000, found \(lon)")
        }
        self.init(latitudeE7: lat, longitudeE7: lon, altitudeMillimetres: try r.i32(field() + ".altitudeMillimetres"))
    }
}

func readHeading(_ r: inout WireReader, _ field: @autoclosure () -> String) throws(WireError) -> UInt16 {
    let at = r.offset
    let h = try r.u16(field())
    guard h < 36000 else { throw WireError("\(field()) at offset \(at): expected 0…35999, found \(h)") }
    return h
}

func readPercent(_ r: inout WireReader, _ field: @autoclosure () -> String) throws(WireError) -> UInt8 {
    let at = r.offset
    let p = try r.u8(field())
    guard p <= 100 else { throw WireError("\(field()) at offset \(at): expected 0…100, found \(p)") }
    return p
}

func writePoints(_ points: [GeoPoint], countWidth16: Bool, to w: inout WireWriter) {
    if countWidth16 { w.u16(UInt16(points.count)) } else { w.u8(UInt8(points.count)) }
    for p in points { p.write(to: &w) }
}

func readPoints(_ r: inout WireReader, _ field: @autoclosure () -> String, count: Int) throws(WireError) -> [GeoPoint] {
    guard r.remaining >= count * 12 else {
        throw WireError("truncated \(field()): expected \(count * 12) bytes for \(count) points, found \(r.remaining)")
    }
    var points: [GeoPoint] = []
    points.reserveCapacity(count)
    for i in 0..<count { points.append(try GeoPoint(from: &r, "\(field())[\(i)]")) }
    return points
}
