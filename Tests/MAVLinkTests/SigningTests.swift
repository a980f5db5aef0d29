import MAVLink
import Testing

@Suite struct SigningTests {
    typealias Rejection = MAVLinkSignatureVerifier.Rejection
    let t0 = MAVLinkTimestamp(rawValue: 400_000_000_000)  // about 46 days after the epoch

    func signedFrame(
        _ message: some MAVLinkMessageType = Attitude(timeBootMs: 5, roll: 0.5),
        sysid: UInt8 = 1, compid: UInt8 = 1, link: UInt8 = 0, at ts: MAVLinkTimestamp,
        key: MAVLinkSigningKey = TestData.key
    ) -> MAVLinkFrame {
        MAVLinkEncoder.frame(
            for: message, sysid: sysid, compid: compid, seq: 0,
            signing: MAVLinkSignatureParameters(key: key, linkID: link, timestamp: ts))
    }

    func reparsed(_ frame: MAVLinkFrame) throws -> MAVLinkFrame {
        let (frames, _, _) = parseAll(frame.bytes)
        return try #require(frames.first)
    }

    @Test func goodSignatureIsAcceptedAfterParsing() throws {
        var verifier = MAVLinkSignatureVerifier(key: TestData.key)
        let frame = try reparsed(signedFrame(at: t0))
        #expect(frame.isSigned && frame.bytes.count == 10 + frame.payload.count + 2 + 13)
        #expect(frame.incompatFlags == 0x01)
        let result = try verifier.verify(frame, now: t0)
        #expect(result == .signed(.init(systemID: 1, componentID: 1, linkID: 0), t0))
        #expect(verifier.streams.count == 1 && verifier.acceptedCount == 1)
    }

    @Test func badSignaturesAreRejected() throws {
        var verifier = MAVLinkSignatureVerifier(key: TestData.key)
        // Wrong key.
        let other = MAVLinkSigningKey(passphrase: "not the key")
        #expect { try verifier.verify(signedFrame(at: t0, key: other), now: t0) } throws: {
            if case Rejection.badSignature = $0 { return true } else { return false }
        }
        // Flipped signature bit.
        var frame = try reparsed(signedFrame(at: t0))
        frame.signature!.value ^= 1 << 17
        #expect { try verifier.verify(frame, now: t0) } throws: {
            if case Rejection.badSignature = $0 { return true } else { return false }
        }
        // Payload changed and checksum recomputed: the CRC passes, the signature does not.
        var tampered = try reparsed(signedFrame(at: t0))
        tampered.payload[4] ^= 0x40
        tampered.checksum = tampered.computeChecksum(crcExtra: Attitude.crcExtra)
        let (frames, drops, _) = parseAll(tampered.bytes)
        #expect(frames.count == 1 && drops.isEmpty)
        #expect { try verifier.verify(frames[0], now: t0) } throws: {
            if case Rejection.badSignature = $0 { return true } else { return false }
        }
        // Changed link id in the trailer is covered by the signature too.
        var relinked = try reparsed(signedFrame(at: t0))
        relinked.signature!.linkID = 7
        #expect(throws: Rejection.self) { try verifier.verify(relinked, now: t0) }
        // Rejections never created stream state.
        #expect(verifier.streams.isEmpty && verifier.rejectedCount == 4)
        // A good frame with an older timestamp is still accepted afterwards.
        _ = try verifier.verify(signedFrame(at: MAVLinkTimestamp(rawValue: t0.rawValue - 10)), now: t0)
    }

    @Test func replayedAndOlderTimestampsAreRejectedPerStream() throws {
        var verifier = MAVLinkSignatureVerifier(key: TestData.key)
        let first = signedFrame(at: t0)
        _ = try verifier.verify(first, now: t0)
        let stream = MAVLinkSignatureVerifier.StreamID(systemID: 1, componentID: 1, linkID: 0)
        #expect(throws: Rejection.timestampNotIncreasing(stream: stream, last: t0, found: t0)) {
            try verifier.verify(first, now: t0)
        }
        let older = MAVLinkTimestamp(rawValue: t0.rawValue - 1)
        #expect(throws: Rejection.timestampNotIncreasing(stream: stream, last: t0, found: older)) {
            try verifier.verify(signedFrame(at: older), now: t0)
        }
        // Strictly newer: accepted. Other link id / component: independent streams.
        _ = try verifier.verify(signedFrame(at: MAVLinkTimestamp(rawValue: t0.rawValue + 1)), now: t0)
        _ = try verifier.verify(signedFrame(link: 1, at: older), now: t0)
        _ = try verifier.verify(signedFrame(compid: 2, at: older), now: t0)
        #expect(verifier.streams.count == 3)
    }

    @Test func newStreamMoreThanSixtySecondsBehindIsRejected() throws {
        var verifier = MAVLinkSignatureVerifier(key: TestData.key)
        let now = MAVLinkTimestamp(rawValue: t0.rawValue + 6_000_001)
        let stream = MAVLinkSignatureVerifier.StreamID(systemID: 1, componentID: 1, linkID: 0)
        #expect(throws: Rejection.timestampTooOld(stream: stream, now: now, found: t0)) {
            try verifier.verify(signedFrame(at: t0), now: now)
        }
        // Exactly 60 s behind is still accepted; once known, the stream is judged by its own history only.
        let edge = MAVLinkTimestamp(rawValue: t0.rawValue + 1)
        _ = try verifier.verify(signedFrame(at: edge), now: now)
        let farFuture = MAVLinkTimestamp(rawValue: now.rawValue + 100_000_000)
        _ = try verifier.verify(signedFrame(at: MAVLinkTimestamp(rawValue: t0.rawValue + 2)), now: farFuture)
    }

    @Test func unsignedFramesWhenSigningIsRequired() throws {
        var strict = MAVLinkSignatureVerifier(
            key: TestData.key, policy: .requireSigned,
            unsignedMessageIDs: [RadioStatus.id])
        let unsigned = MAVLinkEncoder.frame(for: Heartbeat(), sysid: 1, compid: 1, seq: 0)
        #expect(throws: Rejection.unsigned(messageID: Heartbeat.id)) { try strict.verify(unsigned, now: t0) }
        let radio = MAVLinkEncoder.frame(for: RadioStatus(rssi: 200), sysid: 51, compid: 68, seq: 0)
        #expect(try strict.verify(radio, now: t0) == .unsigned)
        let v1 = try MAVLinkEncoder.mavlink1Frame(for: Heartbeat(), sysid: 1, compid: 1, seq: 0)
        #expect(throws: Rejection.unsigned(messageID: 0)) { try strict.verify(v1, now: t0) }
        // Signed flag without a trailer.
        var flagOnly = unsigned
        flagOnly.incompatFlags = 0x01
        #expect(throws: Rejection.missingSignature) { try strict.verify(flagOnly, now: t0) }

        var lenient = MAVLinkSignatureVerifier(key: TestData.key, policy: .acceptUnsigned)
        #expect(try lenient.verify(unsigned, now: t0) == .unsigned)
        #expect(throws: Rejection.self) {
            try lenient.verify(signedFrame(at: t0, key: .init(passphrase: "x")), now: t0)
        }
    }

    @Test func streamTableIsBounded() throws {
        var verifier = MAVLinkSignatureVerifier(key: TestData.key, maxStreams: 2)
        _ = try verifier.verify(signedFrame(sysid: 1, at: t0), now: t0)
        _ = try verifier.verify(signedFrame(sysid: 2, at: t0), now: t0)
        #expect(throws: Rejection.tooManyStreams(limit: 2)) {
            try verifier.verify(signedFrame(sysid: 3, at: t0), now: t0)
        }
    }

    @Test func signerTimestampsAlwaysRise() {
        var signer = MAVLinkSigning(key: TestData.key, linkID: 3)
        let a = signer.nextParameters(now: t0).timestamp
        let b = signer.nextParameters(now: t0).timestamp
        let c = signer.nextParameters(now: MAVLinkTimestamp(rawValue: t0.rawValue - 500)).timestamp
        let d = signer.nextParameters(now: MAVLinkTimestamp(rawValue: t0.rawValue + 1000)).timestamp
        #expect(
            a == t0 && b.rawValue == t0.rawValue + 1 && c.rawValue == t0.rawValue + 2
                && d.rawValue == t0.rawValue + 1000)

        var encoder = MAVLinkEncoder(systemID: 1, componentID: 1, signing: signer)
        var verifier = MAVLinkSignatureVerifier(key: TestData.key)
        for i in 0..<300 {
            let frame = encoder.frame(for: Heartbeat(), now: t0)
            #expect(frame.sequence == UInt8(truncatingIfNeeded: i))
            #expect(throws: Never.self) { try verifier.verify(frame, now: t0) }
        }
    }

    @Test func timestampEpochAndKeyRules() throws {
        #expect(MAVLinkTimestamp(unixTimeSeconds: 1_420_070_400).rawValue == 0)
        #expect(MAVLinkTimestamp(unixTimeSeconds: 1_420_070_401.5).rawValue == 150_000)
        #expect(MAVLinkTimestamp(unixTimeSeconds: 0).rawValue == 0)
        #expect(MAVLinkTimestamp(rawValue: 1 << 50).rawValue == 0)
        #expect(throws: MAVLinkSigningKey.Error.wrongLength(expected: 32, found: 5)) {
            try MAVLinkSigningKey(bytes: [1, 2, 3, 4, 5])
        }
        #expect(MAVLinkSigningKey(passphrase: "abc").bytes.count == 32)
        // Trailer layout: link id, 48-bit little-endian timestamp, 48-bit signature.
        let sig = MAVLinkSignature(
            linkID: 0xAB, timestamp: MAVLinkTimestamp(rawValue: 0x0102_0304_0506),
            value: 0x1112_1314_1516)
        #expect(sig.bytes == [0xAB, 6, 5, 4, 3, 2, 1, 0x16, 0x15, 0x14, 0x13, 0x12, 0x11])
        #expect(MAVLinkSignature(bytes: sig.bytes) == sig)
    }
}
