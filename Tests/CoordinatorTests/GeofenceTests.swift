import Foundation
import MeshTypes
import Testing

@testable import Coordinator

@Suite("Geofence")
struct GeofenceTests {
    /// A 100 m × 100 m square near Prague, corners as [lat, lon].
    static let square: [[Double]] = [
        [50.0750, 14.4370], [50.0750, 14.4384], [50.0759, 14.4384], [50.0759, 14.4370],
    ]
    static let triangle: [[Double]] = [[50.0750, 14.4370], [50.0750, 14.4384], [50.0759, 14.4377]]

    static func fence(_ corners: [[Double]] = square, floor: Double = 2, ceiling: Double = 60) -> SharedGeofence {
        try! SharedGeofence(degrees: corners, floor: floor, ceiling: ceiling)
    }

    static func changes(_ ds: [Directive]) -> [GeofenceAnnouncement] {
        ds.compactMap { if case .geofenceChanged(let a) = $0 { return a } else { return nil } }
    }

    static func problem(_ corners: [[Double]], floor: Double = 2, ceiling: Double = 60) -> GeofenceProblem? {
        do {
            _ = try SharedGeofence(degrees: corners, floor: floor, ceiling: ceiling)
            return nil
        } catch { return error }
    }

    // MARK: Checks

    @Test("a square, a triangle and a concave polygon are fences; corners keep their order and the wire's units")
    func goodFences() throws {
        let f = Self.fence()
        #expect(
            f.corners.count == 4 && f.corners[1].longitudeE7 == 144_384_000 && f.corners[1].altitudeMillimetres == 0)
        #expect(f.floorMillimetres == 2000 && f.ceilingMillimetres == 60000)
        _ = Self.fence(Self.triangle)
        // An L shape (concave) is accepted: any simple polygon.
        let l: [[Double]] = [
            [50.0750, 14.4370], [50.0750, 14.4384], [50.0753, 14.4384], [50.0753, 14.4374], [50.0759, 14.4374],
            [50.0759, 14.4370],
        ]
        _ = Self.fence(l)
        // 64 corners on a circle are the most allowed.
        let circle = (0..<64).map { i -> [Double] in
            let a = Double(i) / 64 * 2 * .pi
            return [50.0755 + 0.0005 * cos(a), 14.4377 + 0.0008 * sin(a)]
        }
        #expect(Self.fence(circle).corners.count == 64)
    }

    @Test("bad fences are refused naming the field and the problem")
    func refusals() {
        let cases: [([[Double]], Double, Double, String, String)] = [
            (Array(Self.square.prefix(2)), 2, 60, "corners", "a geofence needs 3–64 corners, found 2"),
            (Array(repeating: [50.0, 14.0], count: 65), 2, 60, "corners", "found 65"),
            (
                [[50.0750, 14.4370], [95, 14.4384], [50.0759, 14.4377]], 2, 60, "corners[1]",
                "latitude must be within -90…90"
            ),
            (
                [[50.0750, 14.4370], [50.0750, 194], [50.0759, 14.4377]], 2, 60, "corners[1]",
                "longitude must be within"
            ),
            (
                [[50.0750, 14.4370], [50.0750], [50.0759, 14.4377]], 2, 60, "corners[1]",
                "expected [latitude, longitude]"
            ),
            (Self.square, 60, 2, "ceiling", "must be above the floor (60.0 m), found 2.0 m"),
            (Self.square, 10, 10, "ceiling", "must be above the floor"),
            (Self.square, -2000, 60, "floor", "must be within -1000…10000 m above home, found -2000.0 m"),
            (Self.square, 2, .infinity, "ceiling", "must be within -1000…10000 m"),
            // A bow tie: the second and fourth edges cross.
            (
                [[50.0750, 14.4370], [50.0759, 14.4384], [50.0750, 14.4384], [50.0759, 14.4370]], 2, 60, "corners",
                "edge corners[0]–corners[1] crosses edge corners[2]–corners[3]: the polygon must not intersect itself"
            ),
            // A corner given twice in a row.
            (
                [[50.0750, 14.4370], [50.0750, 14.4384], [50.0750, 14.4384], [50.0759, 14.4377]], 2, 60,
                "corners[2]", "repeats corners[1]"
            ),
            // All on one line: the way back from the last corner runs over the first edge.
            (
                [[50.0750, 14.4370], [50.0750, 14.4380], [50.0750, 14.4390]], 2, 60, "corners[0]",
                "turns straight back: the edges before and after it overlap"
            ),
            // Up the east side and straight back down it: the way home runs back over the first edge.
            (
                [[50.0750, 14.4370], [50.0750, 14.4384], [50.0759, 14.4384], [50.0750, 14.4384]], 2, 60,
                "corners[0]", "turns straight back"
            ),
            // A spike on a square's top edge: up from its middle and straight back down.
            (
                [
                    [50.0750, 14.4370], [50.0750, 14.4384], [50.0759, 14.4384], [50.0759, 14.4377], [50.0765, 14.4377],
                    [50.07590001, 14.4377], [50.0759, 14.4370],
                ], 2, 60, "corners[4]", "turns straight back"
            ),
            // Corner 3 touches edge 0–1 from above: the polygon pinches.
            (
                [
                    [50.0750, 14.4370], [50.0750, 14.4384], [50.0759, 14.4384], [50.0750, 14.4377], [50.0759, 14.4370],
                ],
                2, 60, "corners", "crosses edge"
            ),
            // 60 km north: too big.
            (
                [[50.0, 14.0], [50.0, 14.01], [50.54, 14.0]], 2, 60, "corners[2]",
                "km from corners[0]; a geofence spans at most 50 km"
            ),
            // A sliver of 11 cm by 1 m: no usable area.
            (
                [[50.0750, 14.4370], [50.0750, 14.437014], [50.075001, 14.437007]], 2, 60, "corners",
                "a geofence needs at least 1 m²"
            ),
        ]
        for (corners, floor, ceiling, field, fragment) in cases {
            let p = Self.problem(corners, floor: floor, ceiling: ceiling)
            #expect(
                p?.field == field && p?.problem.contains(fragment) == true,
                "\(corners) \(floor) \(ceiling): \(String(describing: p))")
        }
    }

    // MARK: Codec

    static var envelope: Envelope {
        Envelope(origin: NodeID(high: 0, low: 1), originIncarnation: 2, sequence: 3, destination: .broadcast, ttl: 8)
    }

    @Test("a geofence body is announcer, epoch, kind, floor, ceiling, count and 8 bytes per corner, big-endian")
    func layout() throws {
        let by = NodeID(high: 0x0A0B_0C0D_0E0F_1011, low: 0x1213_1415_1617_1819)
        let a = GeofenceAnnouncement(announcedBy: by, epoch: 0x0102_0304_0506_0708, fence: Self.fence())
        let (type, payload) = CoordinatorMessage.routed(Self.envelope, .geofence(a)).encode()
        #expect(type == 0x520C)
        #expect(payload.count == 34 + 16 + 8 + 1 + 4 + 4 + 1 + 4 * 8)
        let body = Array(payload[34...])
        #expect(Array(body[0..<4]) == [0x0A, 0x0B, 0x0C, 0x0D])
        #expect(Array(body[16..<24]) == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(body[24] == 1)
        #expect(Array(body[25..<29]) == [0, 0, 0x07, 0xD0])  // floor 2000 mm
        #expect(Array(body[29..<33]) == [0, 0, 0xEA, 0x60])  // ceiling 60000 mm
        #expect(body[33] == 4)
        #expect(Array(body[34..<38]) == [0x1D, 0xD8, 0xD6, 0xB0])  // 50.0750° × 10⁷ = 500750000
        #expect(try CoordinatorMessage(type: type, payload: payload) == .routed(Self.envelope, .geofence(a)))
        // "No fence" is the 25-byte head alone.
        let none = GeofenceAnnouncement(announcedBy: by, epoch: 7, fence: nil)
        let cleared = CoordinatorMessage.routed(Self.envelope, .geofence(none)).encode()
        #expect(cleared.payload.count == 34 + 25 && cleared.payload.last == 0)
        #expect(
            try CoordinatorMessage(type: cleared.type, payload: cleared.payload)
                == .routed(Self.envelope, .geofence(none)))
    }

    @Test("truncated geofences are refused with the field named, and so is every bad fence a peer might send")
    func wireRefusals() {
        let a = GeofenceAnnouncement(announcedBy: NodeID(high: 0, low: 5), epoch: 9, fence: Self.fence())
        let (type, good) = CoordinatorMessage.routed(Self.envelope, .geofence(a)).encode()
        for cut in 0..<good.count {
            #expect(throws: WireError.self) { try CoordinatorMessage(type: type, payload: Array(good[..<cut])) }
        }
        func reason(_ mutate: (inout [UInt8]) -> Void) -> String? {
            var p = good
            mutate(&p)
            do {
                _ = try CoordinatorMessage(type: type, payload: p)
                return nil
            } catch { return error.reason }
        }
        let head = 34 + 25
        #expect(
            reason { $0.removeLast(3) }?.contains("truncated geofence.corners: expected 32 bytes for 4 corners") == true
        )
        #expect(reason { $0[34 + 24] = 2 }?.contains("geofence.kind at offset 58: expected 0…1, found 2") == true)
        #expect(
            reason { $0[head + 8] = 2 }?.contains("geofence.cornerCount at offset 67: expected 3…64, found 2") == true)
        #expect(reason { $0[head + 8] = 65 }?.contains("expected 3…64, found 65") == true)
        // Floor above ceiling.
        #expect(reason { $0[head + 2] = 0xFF }?.contains("geofence.ceiling: must be above the floor") == true)
        // Corner 1 moved onto corner 0: a repeated corner.
        #expect(
            reason { p in for i in 0..<8 { p[head + 9 + 8 + i] = p[head + 9 + i] } }?.contains(
                "geofence.corners[1]: repeats corners[0]") == true)
        // Corners 1 and 2 swapped: a bow tie.
        #expect(
            reason { p in
                for i in 0..<8 { p.swapAt(head + 9 + 8 + i, head + 9 + 16 + i) }
            }?.contains("the polygon must not intersect itself") == true)
        #expect(reason { $0.append(0) }?.contains("trailing") == true)
        #expect(reason { _ in } == nil)
    }

    @Test("a link-state advertisement carries the fence a node uses after its neighbours (flag bit 2)")
    func advertisement() throws {
        let stamp = GeofenceStamp(epoch: 77, announcedBy: NodeID(high: 1, low: 2))
        let lsa = LinkStateAdvertisement(
            origin: NodeID(high: 0, low: 3), incarnation: 1, sequence: 2, role: .drone, name: "A", uavNumber: 4,
            numberPinned: false, flying: true, neighbours: [NodeID(high: 0, low: 1)], geofence: stamp)
        let (type, payload) = CoordinatorMessage.linkState(lsa).encode()
        let plain = CoordinatorMessage.linkState(
            {
                var l = lsa
                l.geofence = nil
                return l
            }()
        ).encode().payload
        #expect(payload.count == plain.count + 24)
        #expect(try CoordinatorMessage(type: type, payload: payload) == .linkState(lsa))
        #expect(throws: WireError.self) { try CoordinatorMessage(type: type, payload: Array(payload.dropLast(1))) }
    }

    // MARK: Agreement

    @Test("a station's fence reaches every node of a line at once, and each node reports it once")
    func lineAdoption() {
        var p = Pump([(.station, "GS", nil, nil), (.drone, "A", nil, 1), (.drone, "B", nil, 2)])
        p.link(0, 1)
        p.link(1, 2)
        p.call(0) { core, now in core.setGeofence(Self.fence(), wallClockMilliseconds: 1_000, now: now) }
        for i in 0..<3 {
            #expect(p.cores[i].geofenceInForce?.announcement.fence == Self.fence(), "node \(i)")
            #expect(p.cores[i].geofenceInForce?.announcement.stamp == GeofenceStamp(epoch: 1_000, announcedBy: p.id(0)))
            #expect(Self.changes(p.directives[i]).count == 1, "node \(i)")
        }
        // Flooded again every 2 s: B's last-heard time follows, with no new change.
        p.advance(.seconds(5))
        #expect(p.now - p.cores[2].geofenceInForce!.lastHeardAt <= .seconds(2))
        #expect(Self.changes(p.directives[2]).count == 1)
    }

    @Test("the node's shell reports the fence it uses, and every node sees it in that node's advertisement")
    func inUseIsAdvertised() {
        var p = Pump([(.station, "GS", nil, nil), (.drone, "A", nil, 1), (.drone, "B", nil, 2)])
        p.link(0, 1)
        p.link(1, 2)
        p.call(0) { core, now in core.setGeofence(Self.fence(), wallClockMilliseconds: 1_000, now: now) }
        let stamp = p.cores[2].geofenceInForce!.announcement.stamp
        #expect(p.cores[0].geofenceInUse(by: p.id(2)) == nil)
        p.call(2) { core, now in core.onGeofenceInUse(stamp, now: now) }
        p.advance(.milliseconds(300))
        #expect(p.cores[0].geofenceInUse(by: p.id(2)) == stamp)
        #expect(p.cores[2].geofenceInUse(by: p.id(2)) == stamp)
        #expect(p.cores[0].geofenceInUse(by: p.id(1)) == nil)
    }

    @Test("a later fence from another station wins everywhere; an older one heard afterwards changes nothing")
    func newerEpochWins() {
        var p = Pump([(.station, "GS-1", nil, nil), (.station, "GS-2", nil, nil), (.drone, "A", nil, 1)])
        p.link(0, 2)
        p.link(1, 2)
        p.call(0) { core, now in core.setGeofence(Self.fence(), wallClockMilliseconds: 5_000, now: now) }
        p.call(1) { core, now in core.setGeofence(Self.fence(Self.triangle), wallClockMilliseconds: 6_000, now: now) }
        for i in 0..<3 {
            #expect(p.cores[i].geofenceInForce?.announcement.announcedBy == p.id(1), "node \(i)")
            #expect(p.cores[i].geofenceInForce?.announcement.fence == Self.fence(Self.triangle))
        }
        // GS-1 floods the fence in force (GS-2's) from now on, not its own older one.
        p.advance(.seconds(3))
        for i in 0..<3 { #expect(p.cores[i].geofenceInForce?.announcement.epoch == 6_000) }
        #expect(Self.changes(p.directives[2]).count == 2)
    }

    @Test("a station whose clock runs behind still replaces the fence in force: its epoch goes one above it")
    func clockBehind() {
        var p = Pump([(.station, "GS-1", nil, nil), (.station, "GS-2", nil, nil), (.drone, "A", nil, 1)])
        p.link(0, 2)
        p.link(1, 2)
        p.call(0) { core, now in core.setGeofence(Self.fence(), wallClockMilliseconds: 9_000, now: now) }
        p.call(1) { core, now in core.setGeofence(nil, wallClockMilliseconds: 1_000, now: now) }
        for i in 0..<3 {
            #expect(
                p.cores[i].geofenceInForce?.announcement
                    == GeofenceAnnouncement(announcedBy: p.id(1), epoch: 9_001, fence: nil))
        }
    }

    @Test("equal epochs go to the lower NodeID, whatever the order they arrive in")
    func tieBreak() {
        for order in [[0, 1], [1, 0]] {
            // Set before they hear each other (a station that heard a fence would go one above it).
            var p = Pump([(.station, "GS-1", nil, nil), (.station, "GS-2", nil, nil), (.drone, "A", nil, 1)])
            for i in 0..<2 {
                let fence = i == 0 ? Self.fence() : Self.fence(Self.triangle)
                p.call(i) { core, now in core.setGeofence(fence, wallClockMilliseconds: 4_000, now: now) }
            }
            p.link(order[0], 2)
            p.advance(.milliseconds(300))
            p.link(order[1], 2)
            p.advance(.seconds(3))
            for i in 0..<3 {
                #expect(p.cores[i].geofenceInForce?.announcement.announcedBy == p.id(0), "order \(order), node \(i)")
            }
        }
    }

    @Test("a late joiner gets the fence from the drone it meets at once, and the rest of its part of the mesh with it")
    func lateJoinerAndHealedPartition() {
        var p = Pump([(.station, "GS", nil, nil), (.drone, "A", nil, 1), (.drone, "B", nil, 2), (.drone, "C", nil, 3)])
        {
            $0.geofenceInterval = .seconds(600)
        }
        p.link(0, 1)
        p.call(0) { core, now in core.setGeofence(Self.fence(), wallClockMilliseconds: 1_000, now: now) }
        // B and C form a part of their own, then B meets A: no station flood comes for 10 minutes, yet both hear it.
        p.link(2, 3)
        p.advance(.seconds(1))
        #expect(p.cores[2].geofenceInForce == nil)
        p.link(1, 2)
        #expect(p.cores[2].geofenceInForce?.announcement.epoch == 1_000)
        #expect(p.cores[3].geofenceInForce?.announcement.epoch == 1_000)
    }

    @Test("a late copy of an older announcement does not roll the fence back; the same one only refreshes it")
    func olderIgnored() {
        var core = CoordinatorCore(
            configuration: CoordinatorConfiguration(nodeID: NodeID(high: 0, low: 9), role: .drone, name: "A"),
            incarnation: 1, persistedUAVNumber: 3, now: MeshInstant(nanoseconds: 0))
        let station = NodeID(high: 0, low: 1)
        func env(_ seq: UInt64) -> Envelope {
            Envelope(origin: station, originIncarnation: 4, sequence: seq, destination: .broadcast, ttl: 8)
        }
        let t = MeshInstant(nanoseconds: 1_000_000_000)
        let newer = GeofenceAnnouncement(announcedBy: station, epoch: 20, fence: nil)
        let older = GeofenceAnnouncement(announcedBy: station, epoch: 10, fence: Self.fence())
        #expect(Self.changes(core.onMessage(.routed(env(2), .geofence(newer)), from: station, now: t)).count == 1)
        #expect(core.onMessage(.routed(env(1), .geofence(older)), from: station, now: t).isEmpty)
        #expect(core.geofenceInForce?.announcement == newer)
        let later = t + .seconds(2)
        #expect(core.onMessage(.routed(env(3), .geofence(newer)), from: station, now: later).isEmpty)
        #expect(core.geofenceInForce?.lastHeardAt == later)
    }

    @Test("drones do not announce fences and do not flood the one in force")
    func dronesDoNotAnnounce() {
        var p = Pump([(.drone, "A", nil, 1), (.drone, "B", nil, 2)])
        p.link(0, 1)
        p.call(0) { core, now in core.setGeofence(Self.fence(), wallClockMilliseconds: 1, now: now) }
        p.advance(.seconds(3))
        #expect(p.cores[0].geofenceInForce == nil && p.cores[1].geofenceInForce == nil)
    }
}
