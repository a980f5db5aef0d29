import Determinism
import MAVLink
import Testing

@Suite struct ParserTests {
    static let sample: [any MAVLinkMessageType] = [
        Heartbeat(
            type: .quadrotor, autopilot: .px4, baseMode: [.safetyArmed], customMode: 65536, systemStatus: .active),
        GlobalPositionInt(
            timeBootMs: 1000, lat: 473_977_420, lon: 85_455_940, alt: 488_000, relativeAlt: 10_000,
            vx: 12, vy: -3, vz: 0, hdg: 9000),
        Attitude(timeBootMs: 1000, roll: 0.01, pitch: -0.02, yaw: 1.5, rollspeed: 0, pitchspeed: 0, yawspeed: 0.1),
        Statustext(severity: .info, text: "Armed"),
        CommandLong(targetSystem: 1, targetComponent: 1, command: .componentArmDisarm, param1: 1),
    ]

    static func validFrames(seq: inout UInt8) -> [[UInt8]] {
        sample.map { m in
            defer { seq &+= 1 }
            return frameBytes(m, seq: seq)
        }
    }

    static func frameBytes(_ m: any MAVLinkMessageType, seq: UInt8) -> [UInt8] {
        func open<M: MAVLinkMessageType>(_ m: M) -> [UInt8] {
            MAVLinkEncoder.frame(for: m, sysid: 1, compid: 1, seq: seq).bytes
        }
        return open(m)
    }

    @Test func randomGarbageNeverCrashesAndFramesAfterItAreRecovered() {
        var rng = SeededRandom(seed: 2024)
        var recovered = 0, inserted = 0
        for round in 0..<2000 {
            var seq: UInt8 = 0
            var stream: [UInt8] = []
            var expected: [[UInt8]] = []
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                // Garbage rich in start markers, then a valid frame.
                let garbage = (0..<Int.random(in: 0...300, using: &rng)).map { _ in
                    Int.random(in: 0..<8, using: &rng) == 0
                        ? (Bool.random(using: &rng) ? 0xFD : 0xFE)
                        : UInt8.random(in: 0...255, using: &rng)
                }
                stream += garbage
                let frame = Self.frameBytes(Self.sample[round % Self.sample.count], seq: seq)
                seq &+= 1
                stream += frame
                expected.append(frame)
            }
            stream += (0..<Int.random(in: 0...40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            // Feed in random chunk sizes.
            var parser = MAVLinkParser()
            var frames: [[UInt8]] = []
            var i = 0
            while i < stream.count {
                let n = min(stream.count - i, Int.random(in: 1...64, using: &rng))
                for case .frame(let f) in parser.feed(stream[i..<(i + n)]) { frames.append(f.bytes) }
                i += n
            }
            for case .frame(let f) in parser.finish() { frames.append(f.bytes) }
            #expect(parser.bufferedByteCount == 0)
            // Every inserted frame comes out, in order (garbage may not swallow it).
            var it = frames.makeIterator()
            for want in expected {
                inserted += 1
                while let got = it.next() {
                    if got == want {
                        recovered += 1
                        break
                    }
                }
            }
        }
        #expect(recovered == inserted, "recovered \(recovered) of \(inserted)")
    }

    @Test func pureRandomBytesInRandomChunksNeverTrap() {
        var rng = SeededRandom(seed: 77)
        var parser = MAVLinkParser(configuration: .init(unknownMessages: .deliverUnverified))
        var events = 0
        for _ in 0..<3000 {
            let chunk = (0..<Int.random(in: 0...200, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            for event in parser.feed(chunk) {
                events += 1
                if case .frame(let f) = event { _ = f.message }  // decoding arbitrary payloads must not trap
            }
        }
        _ = parser.finish()
        #expect(events > 0)
        #expect(parser.bufferedByteCount == 0)
    }

    @Test func singleBitFlipsAreCountedAsChecksumErrors() throws {
        var rng = SeededRandom(seed: 5)
        var seq: UInt8 = 0
        for original in Self.validFrames(seq: &seq) {
            for _ in 0..<200 {
                var bytes = original
                let index = Int.random(in: 0..<bytes.count, using: &rng)
                bytes[index] ^= 1 << UInt8.random(in: 0...7, using: &rng)
                let (frames, drops, parser) = parseAll(bytes)
                #expect(frames.isEmpty, "a corrupted frame was accepted (byte \(index))")
                switch index {
                case 0:
                    break  // start marker destroyed: the rest is garbage (rescanned, never a frame)
                case 1, 2:
                    #expect(!drops.isEmpty)  // length or flags changed: bad checksum or truncated
                case 7...9:
                    // The id changed: either another known id (checksum fails) or an unknown one.
                    switch drops.first {
                    case .badChecksum?, .unknownMessageID?: break
                    default: Issue.record("byte \(index): \(drops)")
                    }
                default:
                    // The first report is always the checksum failure of this very frame; later reports may come
                    // from start-marker bytes inside its payload while the parser rescans.
                    #expect(
                        drops.first
                            == .badChecksum(
                                messageID: UInt32(original[7]),
                                expected: expectedCRC(bytes), found: foundCRC(bytes)),
                        "byte \(index): \(drops)")
                    #expect(parser.statistics.badChecksums >= 1)
                }
            }
        }
    }

    private func foundCRC(_ bytes: [UInt8]) -> UInt16 {
        let at = 10 + Int(bytes[1])
        return UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
    }

    private func expectedCRC(_ bytes: [UInt8]) -> UInt16 {
        let crcExtra = MAVLinkDialect.common.info(for: UInt32(bytes[7]))!.crcExtra
        return MAVLinkCRC.checksum(bytes[1..<(10 + Int(bytes[1]))] + [crcExtra])
    }

    @Test func truncatedFramesAreReportedAndTheStreamContinues() throws {
        var seq: UInt8 = 0
        let frames = Self.validFrames(seq: &seq)
        let whole = frames[1]
        for cut in 1..<whole.count {
            // Cut at the end of input: reported as truncated on finish().
            let (got, drops, parser) = parseAll(Array(whole.prefix(cut)))
            #expect(got.isEmpty)
            #expect(drops.contains { if case .truncatedFrame = $0 { return true } else { return false } })
            #expect(parser.statistics.truncatedFrames >= 1)
            // Cut in the middle of a stream: the following frames still come out.
            let (after, _, _) = parseAll(Array(whole.prefix(cut)) + frames[2] + frames[3])
            #expect(after.map(\.bytes).suffix(2) == [frames[2], frames[3]], "cut at \(cut)")
        }
    }

    @Test func mavlink1FramesAreRead() throws {
        let hb = Heartbeat(
            type: .fixedWing, autopilot: .ardupilotmega, baseMode: [.customModeEnabled], customMode: 10,
            systemStatus: .standby)
        let v1 = try MAVLinkEncoder.mavlink1Frame(for: hb, sysid: 7, compid: 1, seq: 42)
        // Byte layout: FE len seq sys comp msgid payload crc
        #expect(Array(v1.bytes.prefix(6)) == [0xFE, 9, 42, 7, 1, 0])
        let sys = try MAVLinkEncoder.mavlink1Frame(
            for: SysStatus(load: 500, batteryRemaining: 80), sysid: 7, compid: 1, seq: 43)
        #expect(sys.payload.count == SysStatus.minPayloadLength)
        let (frames, drops, parser) = parseAll(v1.bytes + sys.bytes + Self.frameBytes(hb, seq: 44))
        #expect(drops.isEmpty)
        try #require(frames.count == 3)
        #expect(frames[0].version == .v1 && frames[0].sequence == 42 && frames[0].systemID == 7)
        #expect(frames[0].message == .heartbeat(hb))
        #expect(try frames[1].decode(SysStatus.self) == SysStatus(load: 500, batteryRemaining: 80))
        #expect(frames[2].version == .v2)
        #expect(parser.statistics.mavlink1Frames == 2 && parser.statistics.frames == 3)
        #expect(throws: MAVLinkEncoder.Error.messageIDTooLargeForMAVLink1(Odometry.id)) {
            try MAVLinkEncoder.mavlink1Frame(for: Odometry(), sysid: 1, compid: 1, seq: 0)
        }
        // With MAVLink 1 disabled, 0xFE is just a byte.
        let (only2, _, p2) = parseAll(
            v1.bytes + Self.frameBytes(hb, seq: 1), configuration: .init(acceptsMAVLink1: false))
        #expect(only2.count == 1 && only2[0].version == .v2 && p2.statistics.bytesDiscarded == v1.bytes.count)
    }

    @Test func unknownIncompatibilityFlagsDropTheFrameWithAReason() throws {
        var frame = MAVLinkEncoder.frame(for: Attitude(roll: 1), sysid: 1, compid: 1, seq: 0)
        frame.incompatFlags = 0x02
        frame.checksum = frame.computeChecksum(crcExtra: Attitude.crcExtra)
        let next = Self.frameBytes(Heartbeat(), seq: 1)
        let (frames, drops, parser) = parseAll(frame.bytes + next)
        #expect(drops == [.unsupportedIncompatFlags(messageID: Attitude.id, flags: 0x02)])
        #expect(frames.map(\.bytes) == [next])
        #expect(parser.statistics.unsupportedIncompatFlags == 1)
    }

    @Test func unknownMessageIDsAreDroppedOrDeliveredByPolicy() throws {
        // A frame for an id the dialect does not know (e.g. an ArduPilot dialect message), checksummed with 0x33.
        let foreign = MAVLinkEncoder.frame(
            messageID: 11_000, crcExtra: 0x33, payload: [1, 2, 3], sysid: 1, compid: 1, seq: 0)
        let (none, drops, _) = parseAll(foreign.bytes)
        #expect(none.isEmpty && drops == [.unknownMessageID(11_000)])

        let (delivered, _, parser) = parseAll(foreign.bytes, configuration: .init(unknownMessages: .deliverUnverified))
        #expect(delivered.count == 1 && parser.statistics.unverifiedFrames == 1)
        #expect(delivered.first?.message == .unknown(id: 11_000, payload: [1, 2, 3]))

        // Teaching the dialect the id makes the checksum verifiable; it still decodes as `.unknown`.
        let info = MAVLinkMessageInfo(
            id: 11_000, name: "VENDOR", crcExtra: 0x33, minPayloadLength: 3, maxPayloadLength: 3)
        let dialect = MAVLinkDialect.common.adding([info])
        let (verified, vdrops, _) = parseAll(foreign.bytes, configuration: .init(dialect: dialect))
        #expect(verified.count == 1 && vdrops.isEmpty)
        var encoder = MAVLinkEncoder(systemID: 1, componentID: 1, dialect: dialect)
        #expect(try encoder.frame(for: .unknown(id: 11_000, payload: [1, 2, 3]), now: .init(rawValue: 0)) == foreign)
        var plain = MAVLinkEncoder(systemID: 1, componentID: 1)
        #expect(throws: MAVLinkEncoder.Error.unknownMessageID(11_000)) {
            try plain.frame(for: .unknown(id: 11_000, payload: [1]), now: .init(rawValue: 0))
        }
    }

    @Test func byteByByteFeedingMatchesWholeBufferParsing() {
        var seq: UInt8 = 0
        let stream: [UInt8] = Self.validFrames(seq: &seq).flatMap { (f: [UInt8]) -> [UInt8] in [0x00, 0xFD, 0x13] + f }
        var parser = MAVLinkParser()
        var one: [MAVLinkParser.Event] = []
        for b in stream { one += parser.feed([b]) }
        one += parser.finish()
        let (frames, _, _) = parseAll(stream)
        #expect(one.compactMap { if case .frame(let f) = $0 { return f } else { return nil } } == frames)
        #expect(frames.count == Self.sample.count)
        #expect(parser.statistics.frames == Self.sample.count)
    }

    @Test func signedFramesCarryTheirTrailerThroughTheParser() throws {
        let params = MAVLinkSignatureParameters(key: TestData.key, linkID: 2, timestamp: .init(rawValue: 123_456_789))
        let frame = MAVLinkEncoder.frame(
            for: VfrHud(airspeed: 12, groundspeed: 11, heading: 90), sysid: 1, compid: 1,
            seq: 0, signing: params)
        let (frames, _, _) = parseAll(frame.bytes)
        #expect(frames == [frame])
        #expect(frames.first?.signature?.linkID == 2 && frames.first?.signature?.timestamp.rawValue == 123_456_789)
    }
}
