import Determinism
import Flight
import MeshTypes
import Testing

@testable import Coordinator

/// One sample of every message kind, with awkward values.
let sampleMessages: [CoordinatorMessage] = {
    let a = NodeID(high: 0x0102_0304_0506_0708, low: 0x1112_1314_1516_1718)
    let b = NodeID(high: 0xFFFF_FFFF_FFFF_FFFF, low: 0)
    let env = Envelope(origin: a, originIncarnation: 0xDEAD_BEEF, sequence: 42, destination: .node(b), ttl: 8)
    let bcast = Envelope(origin: b, originIncarnation: 1, sequence: .max, destination: .broadcast, ttl: 1)
    let p = GeoPoint(latitude: -33.8688, longitude: 151.2093, altitude: 123.456)
    let state = VehicleState(
        position: p, velocityNorthCmS: -300, velocityEastCmS: 32767, velocityDownCmS: -32768,
        headingCentidegrees: 35999, batteryPercent: 100, activity: .followingTrajectory, armed: true, linkQuality: 0)
    return [
        .linkState(
            LinkStateAdvertisement(
                origin: a, incarnation: 9, sequence: 3, role: .drone, name: "UAV-ä✈️",
                uavNumber: 250, numberPinned: true, flying: true, neighbours: [b, a])),
        .linkState(
            LinkStateAdvertisement(
                origin: b, incarnation: 0, sequence: 0, role: .station, name: "",
                uavNumber: nil, numberPinned: false, flying: false, neighbours: [])),
        .routed(bcast, .telemetry(uavNumber: 17, state: state)),
        .routed(
            bcast, .prediction(uavNumber: 0, prediction: TrajectoryPrediction(points: Array(repeating: p, count: 40)))),
        .routed(bcast, .target(Target(address: .uav(3), location: p, headingCentidegrees: 9000))),
        .routed(bcast, .target(Target(address: .group([1, 2, 250]), location: p))),
        .routed(bcast, .target(Target(address: .all, location: p, headingCentidegrees: 0))),
        .routed(
            env,
            .command(
                CommandRequest(
                    counter: 7, uavNumber: 1, targetIncarnation: 5, takeover: true,
                    command: .takeoff(altitudeMillimetres: 15_000)))),
        .routed(
            env,
            .command(CommandRequest(counter: 8, uavNumber: 2, targetIncarnation: 5, takeover: false, command: .land))),
        .routed(
            env,
            .command(CommandRequest(counter: 9, uavNumber: 3, targetIncarnation: 5, takeover: false, command: .hover))),
        .routed(
            env,
            .command(
                CommandRequest(
                    counter: 10, uavNumber: 4, targetIncarnation: 5, takeover: false,
                    command: .goto(p, speedCmS: 1200)))),
        .routed(
            env,
            .command(
                CommandRequest(
                    counter: 11, uavNumber: 5, targetIncarnation: 5, takeover: false, command: .returnToLaunch))),
        .routed(
            env,
            .command(
                CommandRequest(
                    counter: 12, uavNumber: 6, targetIncarnation: 5, takeover: false, command: .followTarget(true)))),
        .routed(
            env,
            .command(
                CommandRequest(
                    counter: 13, uavNumber: 7, targetIncarnation: 5, takeover: false,
                    command: .trajectory([p, GeoPoint(latitudeE7: 0, longitudeE7: 0, altitudeMillimetres: -5)])))),
        .routed(
            env,
            .command(
                CommandRequest(
                    counter: 14, uavNumber: 7, targetIncarnation: 5, takeover: false,
                    command: .trajectory(
                        [p, GeoPoint(latitudeE7: 0, longitudeE7: 0, altitudeMillimetres: -5)],
                        stops: [
                            TrajectoryStop(index: 0, headingCentidegrees: 9025, holdDeciseconds: 20),
                            TrajectoryStop(index: 1, headingCentidegrees: nil, holdDeciseconds: 0),
                        ])))),
        .routed(env, .commandAnswer(counter: 1, requesterIncarnation: 2, answer: .accepted)),
        .routed(env, .commandAnswer(counter: 1, requesterIncarnation: 2, answer: .completed)),
        .routed(env, .commandAnswer(counter: 1, requesterIncarnation: 2, answer: .failed("motor fault"))),
        .routed(env, .commandAnswer(counter: 1, requesterIncarnation: 2, answer: .rejected(.unknownUAVNumber(9)))),
        .routed(env, .commandAnswer(counter: 1, requesterIncarnation: 2, answer: .rejected(.contestedNumber(9)))),
        .routed(env, .commandAnswer(counter: 1, requesterIncarnation: 2, answer: .rejected(.controlledBy("GS North")))),
        .routed(env, .commandAnswer(counter: 1, requesterIncarnation: 2, answer: .rejected(.targetRestarted))),
        .routed(
            env, .commandAnswer(counter: 1, requesterIncarnation: 2, answer: .rejected(.vehicle("battery too low")))),
        .routed(
            env,
            .manualControl(
                uavNumber: 9, takeover: false,
                control: ManualControl(
                    x: -1000, y: 1000, z: 500, r: 0, buttons: 0x8000_0001, sentAtMicros: 1_700_000_000_123_456))),
        .routed(
            bcast,
            .failsafeReport(
                FailsafeReport(
                    uavNumber: 4,
                    steps: [
                        FailsafeStep(action: .hover, afterSilenceMilliseconds: 5000),
                        FailsafeStep(action: .returnHome, afterSilenceMilliseconds: 15000),
                    ],
                    silenceMilliseconds: 20000))),
        .routed(env, .avoidanceReport(AvoidanceReport(uavNumber: 7, summary: "altitude 24.0 m (yielding to 3, 5)"))),
        .routed(env, .avoidanceReport(AvoidanceReport(uavNumber: 0, summary: "nominal"))),
        .routed(env, .leaseRevoked(uavNumber: 12, newHolder: "GS South")),
        .routed(env, .leaseUpdate(uavNumber: 12, release: true)),
        .routed(
            bcast, .mapOrigin(MapOriginAnnouncement(position: p, forcedZone: 56, southernHemisphere: true, epoch: .max))
        ),
        .routed(
            bcast,
            .mapOrigin(
                MapOriginAnnouncement(position: GeoPoint(latitude: 50.0755, longitude: 14.4378, altitude: 0), epoch: 0))
        ),
        .routed(
            bcast,
            .geofence(
                GeofenceAnnouncement(
                    announcedBy: a, epoch: 1_764_000_000_000,
                    fence: try! SharedGeofence(
                        degrees: [[-33.87, 151.20], [-33.87, 151.21], [-33.86, 151.21], [-33.86, 151.20]], floor: -5,
                        ceiling: 120.5)))),
        .routed(env, .geofence(GeofenceAnnouncement(announcedBy: b, epoch: 0, fence: nil))),
        .linkState(
            LinkStateAdvertisement(
                origin: a, incarnation: 1, sequence: 2, role: .drone, name: "fenced", uavNumber: 3, numberPinned: false,
                flying: false, neighbours: [b], geofence: GeofenceStamp(epoch: .max, announcedBy: b))),
        // Telemetry for several stations (destination kind 2).
        .routed(
            Envelope(origin: a, originIncarnation: 3, sequence: 77, destination: .nodes([a, b]), ttl: 8),
            .telemetry(uavNumber: 17, state: state)),
        // A drone's advertisement naming the station that controls it.
        .linkState(
            LinkStateAdvertisement(
                origin: a, incarnation: 9, sequence: 4, role: .drone, name: "d", uavNumber: 3, numberPinned: false,
                flying: true, neighbours: [b], controller: b)),
        // Scheduled commands: a start on the receiver's clock, and one whose start could not be carried.
        .routed(
            env,
            .command(
                CommandRequest(
                    counter: 14, uavNumber: 8, targetIncarnation: 5, takeover: true, command: .hover,
                    start: .at(MeshInstant(nanoseconds: 12_345_678_000))))),
        .routed(
            env,
            .command(
                CommandRequest(
                    counter: 15, uavNumber: 8, targetIncarnation: 5, takeover: false, command: .land,
                    start: .clockUnknown))),
        .routed(
            env,
            .commandAnswer(
                counter: 1, requesterIncarnation: 2,
                answer: .rejected(.startTime("arrived 120 ms after its start time (send it again with a longer lead)")))
        ),
    ]
}()

@Suite("Wire codec")
struct CodecTests {
    @Test("every message kind survives a round trip", arguments: sampleMessages)
    func roundTrip(_ m: CoordinatorMessage) throws {
        let (type, payload) = m.encode()
        #expect(try CoordinatorMessage(type: type, payload: payload) == m)
    }

    @Test("every strict prefix of a valid encoding is refused as truncated", arguments: sampleMessages)
    func truncation(_ m: CoordinatorMessage) {
        let (type, payload) = m.encode()
        for cut in 0..<payload.count {
            #expect(throws: WireError.self) { try CoordinatorMessage(type: type, payload: Array(payload[0..<cut])) }
        }
    }

    @Test("trailing bytes are refused")
    func trailing() throws {
        let (type, payload) = sampleMessages[0].encode()
        let e = #expect(throws: WireError.self) { try CoordinatorMessage(type: type, payload: payload + [0]) }
        #expect(e?.reason.contains("trailing") == true)
    }

    @Test("unknown message type is named in the error")
    func unknownType() {
        let e = #expect(throws: WireError.self) { try CoordinatorMessage(type: 0x1234, payload: []) }
        #expect(e?.reason.contains("0x1234") == true)
    }

    @Test("out-of-range fields are refused with field, expectation and finding")
    func fieldChecks() throws {
        // Telemetry: the UAV number byte comes right after the 34-byte broadcast envelope.
        let (type, payload) = sampleMessages[2].encode()
        var bad = payload
        bad[34] = 251
        let e = #expect(throws: WireError.self) { try CoordinatorMessage(type: type, payload: bad) }
        #expect(e?.reason == "telemetry.uavNumber at offset 34: expected 0…250, found 251")

        // Activity byte: envelope 34 + number 1 + position 12 + velocities 6 + heading 2 + battery 1 = offset 56.
        var badActivity = payload
        badActivity[56] = 9
        let e2 = #expect(throws: WireError.self) { try CoordinatorMessage(type: type, payload: badActivity) }
        #expect(e2?.reason.contains("telemetry.activity") == true)

        // Link-state flags only use bits 0–2 (offset 16 + 8 + 8 + 1).
        let (lt, lp) = sampleMessages[0].encode()
        var badFlags = lp
        badFlags[33] = 0x80
        let e3 = #expect(throws: WireError.self) { try CoordinatorMessage(type: lt, payload: badFlags) }
        #expect(e3?.reason.contains("lsa.flags") == true)

        // Several destinations: kind 2 at offset 33, the count at 34, the NodeIDs from 35 (ascending, no repeats).
        let a = NodeID(high: 1, low: 1)
        let b = NodeID(high: 1, low: 2)
        let state = VehicleState(position: GeoPoint(latitude: 1, longitude: 2, altitude: 3), batteryPercent: 50)
        func several(_ ids: [NodeID]) -> (UInt16, [UInt8]) {
            CoordinatorMessage.routed(
                Envelope(origin: a, originIncarnation: 1, sequence: 1, destination: .nodes(ids), ttl: 8),
                .telemetry(uavNumber: 1, state: state)
            ).encode()
        }
        let (st, sp) = several([a, b])
        #expect(Array(sp[33...34]) == [2, 2] && sp.count == 35 + 32 + 25)
        #expect(
            try CoordinatorMessage(type: st, payload: sp)
                == .routed(
                    Envelope(origin: a, originIncarnation: 1, sequence: 1, destination: .nodes([a, b]), ttl: 8),
                    .telemetry(uavNumber: 1, state: state)))
        for (ids, reason) in [
            ([a], "envelope.destinations.count at offset 34: expected 2…16, found 1"),
            (
                [b, a],
                "envelope.destinations[1] at offset 51: must be above envelope.destinations[0] (ascending, no repeats)"
            ),
            (
                [a, a],
                "envelope.destinations[1] at offset 51: must be above envelope.destinations[0] (ascending, no repeats)"
            ),
            (
                (1...17).map { NodeID(high: 2, low: UInt64($0)) },
                "envelope.destinations.count at offset 34: expected 2…16, found 17"
            ),
        ] {
            let (t, bytes) = several(ids)
            let e = #expect(throws: WireError.self) { try CoordinatorMessage(type: t, payload: bytes) }
            #expect(e?.reason == reason)
        }
        var kind3 = sp
        kind3[33] = 3
        let e4 = #expect(throws: WireError.self) { try CoordinatorMessage(type: st, payload: kind3) }
        #expect(e4?.reason.contains("envelope.destinationKind") == true)
    }

    @Test(
        "a prediction's uncertainty: flags bit 1 and two bytes (tenths of a metre, of a metre per second) before the step"
    )
    func predictionUncertaintyLayout() throws {
        let p = GeoPoint(latitude: 50.1, longitude: 14.4, altitude: 12)
        let plain = TrajectoryPrediction(points: [p, p], avoiding: true)
        var uncertain = plain
        uncertain.uncertainty = PredictionUncertainty(radius: 0.5, growth: 1.26)
        #expect(uncertain.uncertainty == PredictionUncertainty(radius: 0.5, growth: 1.3))
        let bcast = Envelope(
            origin: NodeID(high: 1, low: 2), originIncarnation: 1, sequence: 3, destination: .broadcast, ttl: 8)
        let a = CoordinatorMessage.routed(bcast, .prediction(uavNumber: 4, prediction: plain)).encode()
        let b = CoordinatorMessage.routed(bcast, .prediction(uavNumber: 4, prediction: uncertain)).encode()
        // Broadcast envelope 34, number 1: flags at 35 (bit 2: the path is coded by second differences).
        #expect(a.payload[35] == 0b101 && b.payload[35] == 0b111)
        #expect(Array(b.payload[36...37]) == [5, 13] && b.payload.count == a.payload.count + 2)
        #expect(
            try CoordinatorMessage(type: b.type, payload: b.payload)
                == .routed(bcast, .prediction(uavNumber: 4, prediction: uncertain)))
        #expect(
            try CoordinatorMessage(type: a.type, payload: a.payload)
                == .routed(bcast, .prediction(uavNumber: 4, prediction: plain)))
        // Bits 3–4 carry the publication's index (0–3), which relays far from the path go by.
        var third = plain
        third.index = 3
        let c = CoordinatorMessage.routed(bcast, .prediction(uavNumber: 4, prediction: third)).encode()
        #expect(c.payload[35] == 0b11101 && c.payload.count == a.payload.count)
        #expect(
            try CoordinatorMessage(type: c.type, payload: c.payload)
                == .routed(bcast, .prediction(uavNumber: 4, prediction: third)))
        #expect(TrajectoryPrediction(points: plain.points, index: 6).index == 2)
        // Unknown bits are refused, naming the field.
        var bad = a.payload
        bad[35] = 0b10_0101
        let e = #expect(throws: WireError.self) { try CoordinatorMessage(type: a.type, payload: bad) }
        #expect(
            e?.reason.hasPrefix(
                "prediction.flags at offset 35: only bits 0 (avoiding), 1 (uncertainty), 2 (coded path) and 3–4 (index)"
            )
                == true)
        // Out of range values are clamped to what the wire carries.
        #expect(PredictionUncertainty(radius: -1, growth: 99) == PredictionUncertainty(radius: 0, growth: 25.5))
    }

    @Test(
        "a trajectory with stops is kind 7 (points, then each stop's index, heading, hold); without, kind 6 as before")
    func trajectoryStopsLayout() throws {
        let env = Envelope(
            origin: NodeID(high: 1, low: 2), originIncarnation: 1, sequence: 3,
            destination: .node(NodeID(high: 3, low: 4)),
            ttl: 8)
        let p = GeoPoint(latitude: 50.1, longitude: 14.4, altitude: 12)
        func command(_ c: Command) -> CoordinatorMessage {
            .routed(
                env,
                .command(CommandRequest(counter: 1, uavNumber: 2, targetIncarnation: 3, takeover: false, command: c)))
        }
        let plain = command(.trajectory([p, p])).encode().payload
        let stopped = command(
            .trajectory([p, p], stops: [TrajectoryStop(index: 1, headingCentidegrees: 27000, holdDeciseconds: 25)])
        ).encode()
        // Unicast envelope 50, counter 8, number 1, incarnation 8, flags 1: the kind at 68.
        #expect(plain[68] == 6 && stopped.payload[68] == 7)
        #expect(stopped.payload.count == plain.count + 2 + 6)
        #expect(Array(stopped.payload.suffix(8)) == [0, 1, 0, 1, 0x69, 0x78, 0, 25])
        // A stop beyond the points, or a heading of 360°, is refused by name.
        var beyond = stopped.payload
        beyond[beyond.count - 5] = 2
        let e = #expect(throws: WireError.self) { try CoordinatorMessage(type: stopped.type, payload: beyond) }
        #expect(e?.reason.hasPrefix("command.trajectory.stops[0].index at offset") == true, "\(String(describing: e))")
        var round = stopped.payload
        round[round.count - 4] = 0x8C
        round[round.count - 3] = 0xA0
        let e2 = #expect(throws: WireError.self) { try CoordinatorMessage(type: stopped.type, payload: round) }
        #expect(e2?.reason.contains("expected < 36000 or 65535, found 36000") == true, "\(String(describing: e2))")
    }

    @Test("a scheduled command: flags bit 1 and the start in microseconds before the kind; the old layout otherwise")
    func scheduledCommandLayout() throws {
        let scheduled = sampleMessages[sampleMessages.count - 3].encode().payload
        // Unicast envelope 50, counter 8, number 1, incarnation 8: flags at 67, the start at 68…75, the kind at 76.
        #expect(scheduled.count == 50 + 8 + 1 + 8 + 1 + 8 + 1)
        #expect(scheduled[67] == 0b11)
        #expect(Array(scheduled[68..<76]) == [0, 0, 0, 0, 0, 0xBC, 0x61, 0x4E])  // 12,345,678 µs
        let unknown = sampleMessages[sampleMessages.count - 2].encode().payload
        #expect(unknown[67] == 0b10 && unknown[68..<76].allSatisfy { $0 == 0 })
        // An unscheduled command keeps version 1's bytes: takeover 0/1, then the kind.
        let plain = sampleMessages[8].encode().payload
        #expect(plain.count == 50 + 8 + 1 + 8 + 1 + 1 && plain[67] == 0)
        var bad = scheduled
        bad[67] = 0b100
        let e = #expect(throws: WireError.self) { try CoordinatorMessage(type: 0x5204, payload: bad) }
        #expect(e?.reason.hasPrefix("command.flags at offset 67") == true)
        // The controller rides only when bit 3 is set: 16 bytes after the number.
        let lsa = sampleMessages[sampleMessages.count - 4].encode().payload
        #expect(lsa[33] == 0b1010 && lsa.count == 35 + 16 + 1 + 1 + 2 + 16)
    }

    @Test("the documented layouts hold: sizes of fixed messages")
    func sizes() {
        #expect(sampleMessages[2].encode().payload.count == 34 + 25)  // telemetry
        // prediction of 40 equal points, its path coded: the first whole, then one run of 39 unchanged steps
        #expect(sampleMessages[3].encode().payload.count == 34 + 4 + 1 + 12 + 1)
        #expect(sampleMessages[23].encode().payload.count == 50 + 22)  // manual control, unicast envelope
        // LSA, two neighbours
        #expect(sampleMessages[0].encode().payload.count == 35 + 1 + "UAV-ä✈️".utf8.count + 2 + 32)
    }

    /// Whether `m`, decoded from `bytes`, encodes back to them — or, for a prediction whose coded path has another
    /// coding within the tolerance (a run split in two, a change of nothing: the coder picks the shortest it finds),
    /// to one that decodes to the same prediction within the tolerance.
    static func reencodes(_ m: CoordinatorMessage, _ bytes: [UInt8]) -> Bool {
        let again = m.encode()
        if again.payload == bytes { return true }
        guard case .routed(let e, .prediction(let n, let p)) = m,
            case .routed(let e2, .prediction(let n2, let p2))? = try? CoordinatorMessage(
                type: again.type, payload: again.payload)
        else { return false }
        var q = p2
        q.points = p.points
        return e == e2 && n == n2 && q == p && DeltaCodedPathTests.close(p.points, p2.points)
    }

    @Test("random bytes never trap, and whatever decodes re-encodes to the same bytes (or the same prediction)")
    func fuzzRandom() {
        var rng = SeededRandom(seed: 0xF022)
        let types: [UInt16] = [
            0x4C01, 0x4C02, 0x4C03, 0x4C04, 0x5201, 0x5202, 0x5203, 0x5204, 0x5205, 0x5206, 0x5207, 0x5208, 0x5209,
            0x520A,
            0x520B, 0, 0xFFFF,
        ]
        var decoded = 0
        for _ in 0..<20_000 {
            let type = types[Int(rng.next() % UInt64(types.count))]
            let bytes = (0..<Int(rng.next() % 120)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            if let m = try? CoordinatorMessage(type: type, payload: bytes) {
                decoded += 1
                #expect(Self.reencodes(m, bytes))
            }
        }
        _ = decoded
    }

    @Test("mutated valid encodings never trap; accepted mutants re-encode identically (or to the same prediction)")
    func fuzzMutations() {
        var rng = SeededRandom(seed: 7)
        var accepted = 0
        for _ in 0..<20_000 {
            let m = sampleMessages[Int(rng.next() % UInt64(sampleMessages.count))]
            var (type, payload) = m.encode()
            for _ in 0..<(1 + Int(rng.next() % 3)) {
                let i = Int(rng.next() % UInt64(payload.count))
                payload[i] ^= UInt8(truncatingIfNeeded: 1 << (rng.next() % 8))
            }
            if rng.next() % 8 == 0 { payload.removeLast(Int(rng.next() % UInt64(payload.count))) }
            if let d = try? CoordinatorMessage(type: type, payload: payload) {
                accepted += 1
                #expect(Self.reencodes(d, payload))
            }
        }
        #expect(accepted > 0)
    }
}
