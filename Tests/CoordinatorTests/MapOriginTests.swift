import MeshTypes
import Testing

@testable import Coordinator

@Suite("Map origin")
struct MapOriginTests {
    static let prague = GeoPoint(latitude: 50.0755, longitude: 14.4378, altitude: 0)
    static let brno = GeoPoint(latitude: 49.1951, longitude: 16.6068, altitude: 237.5)

    static func changes(_ ds: [Directive]) -> [(MapOriginAnnouncement, NodeID)] {
        ds.compactMap { if case .mapOriginChanged(let a, let by) = $0 { return (a, by) } else { return nil } }
    }

    static func conflicts(_ ds: [Directive]) -> Int {
        ds.filter { if case .mapOriginConflict = $0 { true } else { false } }.count
    }

    // MARK: Codec

    /// A broadcast envelope for the codec tests.
    static var envelope: Envelope {
        Envelope(origin: NodeID(high: 0, low: 1), originIncarnation: 2, sequence: 3, destination: .broadcast, ttl: 8)
    }

    /// The announcement of Brno at epoch 9, broadcast in `envelope` and encoded.
    static func encodedBrno() -> (type: UInt16, payload: [UInt8]) {
        CoordinatorMessage.routed(envelope, .mapOrigin(MapOriginAnnouncement(position: brno, epoch: 9))).encode()
    }

    @Test("a map origin body is 22 bytes after a broadcast envelope, big-endian as documented")
    func layout() throws {
        let env = Self.envelope
        let a = MapOriginAnnouncement(
            position: Self.prague, forcedZone: 33, southernHemisphere: false, epoch: 0x0102_0304_0506_0708)
        let (type, payload) = CoordinatorMessage.routed(env, .mapOrigin(a)).encode()
        #expect(type == 0x520A)
        #expect(payload.count == 34 + 22)
        let body = Array(payload[34...])
        #expect(Array(body[0..<4]) == [0x1D, 0xD8, 0xEA, 0x38])  // latitude 50.0755° × 10⁷ = 500755000
        #expect(body[12] == 33 && body[13] == 0)
        #expect(Array(body[14...]) == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(try CoordinatorMessage(type: type, payload: payload) == .routed(env, .mapOrigin(a)))
    }

    @Test("truncated map origins are refused with the field named")
    func truncation() {
        let (type, payload) = Self.encodedBrno()
        for cut in 0..<payload.count {
            #expect(throws: WireError.self) { try CoordinatorMessage(type: type, payload: Array(payload[..<cut])) }
        }
        var e: WireError?
        do { _ = try CoordinatorMessage(type: type, payload: Array(payload.dropLast(3))) } catch { e = error }
        #expect(e?.reason.contains("truncated mapOrigin.epoch") == true)
        do { _ = try CoordinatorMessage(type: type, payload: Array(payload[..<(34 + 12)])) } catch { e = error }
        #expect(e?.reason.contains("truncated mapOrigin.zone") == true)
    }

    @Test("bad zone, hemisphere and latitude bytes are refused with their offsets")
    func badFields() {
        let (type, good) = Self.encodedBrno()
        func reason(_ mutate: (inout [UInt8]) -> Void) -> String? {
            var p = good
            mutate(&p)
            do {
                _ = try CoordinatorMessage(type: type, payload: p)
                return nil
            } catch { return error.reason }
        }
        #expect(reason { $0[34 + 12] = 61 }?.contains("mapOrigin.zone at offset 46: expected 0…60, found 61") == true)
        #expect(
            reason { $0[34 + 13] = 1 }?.contains("mapOrigin.hemisphere at offset 47: expected 0 without a zone") == true
        )
        #expect(
            reason {
                $0[34 + 12] = 33
                $0[34 + 13] = 2
            }?.contains("mapOrigin.hemisphere at offset 47: expected 0…1, found 2") == true)
        #expect(reason { $0[34] = 0x7F }?.contains("mapOrigin.position.latitudeE7") == true)
        #expect(reason { $0.append(0) }?.contains("trailing") == true)
        #expect(reason { _ in } == nil)
    }

    // MARK: Agreement

    @Test("a station's origin reaches every node of a line, and each reports it once as changed")
    func lineConvergence() {
        let epoch: UInt64 = 1_700_000_000_000
        var p = Pump([(.station, "GS", nil, nil), (.drone, "A", nil, 1), (.drone, "B", nil, 2)]) { c in
            if c.role == .station {
                c.mapOrigin = MapOriginAnnouncement(position: Self.prague, forcedZone: 33, epoch: epoch)
            }
        }
        p.link(0, 1)
        p.link(1, 2)
        // B came up after the station's first announcement: it hears the next one, at most a period later.
        p.advance(.milliseconds(2100))
        for i in 0..<3 {
            let agreed = p.cores[i].agreedMapOrigin
            #expect(agreed?.announcedBy == p.id(0))
            #expect(agreed?.announcement.position == Self.prague)
            #expect(agreed?.announcement.forcedZone == 33)
            #expect(Self.changes(p.directives[i]).count == 1)
        }
        // Re-announced every 2 s: the drones' last-heard time follows.
        p.advance(.seconds(5))
        #expect(p.now - p.cores[2].agreedMapOrigin!.lastHeardAt <= .seconds(2))
        #expect(Self.changes(p.directives[2]).count == 1)
    }

    @Test("a neighbour that comes up hears the origin at once, without waiting for the period")
    func neighbourUp() {
        var p = Pump([(.station, "GS", nil, nil), (.drone, "A", nil, 1)]) { c in
            c.mapOriginInterval = .seconds(60)
            if c.role == .station { c.mapOrigin = MapOriginAnnouncement(position: Self.prague, epoch: 5) }
        }
        p.advance(.milliseconds(500))
        #expect(p.cores[0].agreedMapOrigin?.announcedBy == p.id(0))
        p.link(0, 1)
        #expect(p.cores[1].agreedMapOrigin?.announcement.epoch == 5)
    }

    @Test(
        "two stations with different origins: the larger epoch wins everywhere, the conflict is reported once per node")
    func twoStationsEpochOrdering() {
        var p = Pump([(.station, "GS-1", nil, nil), (.station, "GS-2", nil, nil), (.drone, "A", nil, 1)]) { c in
            if c.name == "GS-1" { c.mapOrigin = MapOriginAnnouncement(position: Self.prague, epoch: 2000) }
            if c.name == "GS-2" {
                c.mapOrigin = MapOriginAnnouncement(position: Self.brno, forcedZone: 33, epoch: 1000)
            }
        }
        p.link(0, 2)
        p.link(1, 2)
        p.advance(.seconds(6))
        for i in 0..<3 {
            #expect(p.cores[i].agreedMapOrigin?.announcedBy == p.id(0))
            #expect(p.cores[i].agreedMapOrigin?.announcement.position == Self.prague)
            #expect(Self.conflicts(p.directives[i]) == 1, "node \(i)")
        }
        // GS-2 sets a new origin later: its epoch is now the largest, and everybody moves to it.
        p.call(1) { core, now in core.setMapOrigin(MapOriginAnnouncement(position: Self.brno, epoch: 3000), now: now) }
        for i in 0..<3 {
            #expect(p.cores[i].agreedMapOrigin?.announcedBy == p.id(1))
            #expect(p.cores[i].agreedMapOrigin?.announcement.epoch == 3000)
            #expect(Self.changes(p.directives[i]).last?.1 == p.id(1))
        }
    }

    @Test("equal epochs are decided by the lower NodeID, whatever the order announcements arrive in")
    func equalEpochTieBreak() {
        for order in [[0, 1], [1, 0]] {
            var p = Pump([(.station, "GS-1", nil, nil), (.station, "GS-2", nil, nil), (.drone, "A", nil, 1)]) { c in
                let position = c.name == "GS-1" ? Self.prague : Self.brno
                if c.role == .station { c.mapOrigin = MapOriginAnnouncement(position: position, epoch: 777) }
            }
            p.link(order[0], 2)
            p.advance(.milliseconds(300))
            p.link(order[1], 2)
            p.advance(.seconds(3))
            for i in 0..<3 {
                #expect(p.cores[i].agreedMapOrigin?.announcedBy == p.id(0), "order \(order), node \(i)")
                #expect(p.cores[i].agreedMapOrigin?.announcement.position == Self.prague)
            }
        }
    }

    @Test("a late copy with an older epoch from the same station does not roll the origin back")
    func olderEpochIgnored() {
        var core = CoordinatorCore(
            configuration: CoordinatorConfiguration(nodeID: NodeID(high: 0, low: 9), role: .drone, name: "A"),
            incarnation: 1, persistedUAVNumber: 3, now: MeshInstant(nanoseconds: 0))
        let station = NodeID(high: 0, low: 1)
        func env(_ seq: UInt64) -> Envelope {
            Envelope(origin: station, originIncarnation: 4, sequence: seq, destination: .broadcast, ttl: 8)
        }
        let t = MeshInstant(nanoseconds: 1_000_000_000)
        let newer = MapOriginAnnouncement(position: Self.brno, epoch: 20)
        let older = MapOriginAnnouncement(position: Self.prague, epoch: 10)
        #expect(Self.changes(core.onMessage(.routed(env(2), .mapOrigin(newer)), from: station, now: t)).count == 1)
        #expect(core.onMessage(.routed(env(1), .mapOrigin(older)), from: station, now: t).isEmpty)
        #expect(core.agreedMapOrigin?.announcement == newer)
        // The same announcement again only refreshes when it was heard.
        let later = t + .seconds(2)
        #expect(core.onMessage(.routed(env(3), .mapOrigin(newer)), from: station, now: later).isEmpty)
        #expect(core.agreedMapOrigin?.lastHeardAt == later)
    }

    @Test("drones never announce, even with an origin in their configuration")
    func dronesDoNotAnnounce() {
        var p = Pump([(.drone, "A", nil, 1), (.drone, "B", nil, 2)]) { c in
            c.mapOrigin = MapOriginAnnouncement(position: Self.prague, epoch: 1)
        }
        p.link(0, 1)
        p.advance(.seconds(3))
        #expect(p.cores[0].agreedMapOrigin == nil && p.cores[1].agreedMapOrigin == nil)
        #expect(p.cores[0].ownMapOrigin == nil)
    }
}
