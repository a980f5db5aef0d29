import Determinism
import Foundation
import MAVLink
import Testing

/// Both directions against pymavlink, an independent MAVLink implementation.
@Suite struct PymavlinkCrossCheckTests {
    static let names = MAVLinkMessage.generatedTypes.map { $0.messageName }

    @Test func pymavlinkFramesDecodeAndReencodeByteExactInSwift() throws {
        let vectors = try Pymavlink.run([
            "generate", "--seed", "7", "--key", TestData.keyHex, "--link", "9",
            "--timestamp", "500000000", "--messages", Self.names.joined(separator: ","),
        ])
        #expect(
            vectors.allSatisfy { ($0["kind"] as? String) != "missing" },
            "pymavlink lacks a generated message: \(vectors.filter { ($0["kind"] as? String) == "missing" })")
        var kinds: [String: Int] = [:]
        for vector in vectors where (vector["kind"] as? String) != "missing" {
            let name = try #require(vector["name"] as? String)
            let kind = try #require(vector["kind"] as? String)
            let bytes = hexBytes(try #require(vector["hex"] as? String))
            let expectedFields = try #require(vector["fields"] as? [String: Any])
            kinds[kind, default: 0] += 1

            let (frames, drops, _) = parseAll(bytes)
            try #require(frames.count == 1 && drops.isEmpty, "\(name)/\(kind): frames \(frames.count), drops \(drops)")
            let frame = frames[0]
            #expect(frame.version == (kind == "v1" ? .v1 : .v2))
            let type = try #require(MAVLinkMessage.generatedTypes.first { $0.messageName == name })
            #expect(frame.messageID == type.id)
            try checkFields(type, frame: frame, expected: expectedFields, context: "\(name)/\(kind)")

            // Re-encode in Swift with the same header (and signature parameters): must be byte-identical.
            let reencoded = try reencode(type, frame: frame)
            #expect(
                reencoded == bytes, "\(name)/\(kind): swift \(hexString(reencoded)) vs pymavlink \(hexString(bytes))")

            if kind == "v2signed" {
                var verifier = MAVLinkSignatureVerifier(key: TestData.key)
                let now = try #require(frame.signature?.timestamp)
                #expect(throws: Never.self, "\(name)") { try verifier.verify(frame, now: now) }
            }
        }
        #expect(
            kinds["v2"] == Self.names.count - 0 && kinds["v2signed"] == Self.names.count && (kinds["v1"] ?? 0) > 20,
            "vector kinds: \(kinds)")
    }

    @Test func swiftFramesParseInPymavlinkWithSameFieldsAndBytes() throws {
        var rng = SeededRandom(seed: 99)
        var signer = MAVLinkSigning(key: TestData.key, linkID: 4)
        var lines: [[UInt8]] = []
        var messages: [any MAVLinkMessageType] = []
        var seq: UInt8 = 0
        for type in MAVLinkMessage.generatedTypes {
            for variant in 0..<4 {
                let payload =
                    variant == 1
                    ? [UInt8](repeating: 0, count: type.maxPayloadLength)
                    : TestData.randomPayload(for: type, using: &rng)
                seq &+= 1
                let sign = variant == 2 ? signer.nextParameters(now: MAVLinkTimestamp(rawValue: 700_000_000)) : nil
                guard
                    let (message, frame) = makeFrame(
                        type, payload: payload, seq: seq, signing: sign,
                        mavlink1: variant == 3)
                else { continue }
                lines.append(frame.bytes)
                messages.append(message)
            }
        }
        let input = FileManager.default.temporaryDirectory.appendingPathComponent(
            "mavlink-swift-frames-\(getpid()).txt")
        try lines.map(hexString).joined(separator: "\n").write(to: input, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: input) }
        let results = try Pymavlink.run(["parse", "--key", TestData.keyHex, "--input", input.path])
        try #require(results.count == lines.count)
        var signedSeen = 0
        for (i, result) in results.enumerated() {
            let message = messages[i]
            let name = type(of: message).messageName
            try #require(result["ok"] as? Bool == true, "\(name): pymavlink rejected \(hexString(lines[i])): \(result)")
            #expect(result["name"] as? String == name)
            if result["signed"] as? Bool == true { signedSeen += 1 }
            let fields = try #require(result["fields"] as? [String: Any])
            let ours = TestData.fieldValues(message)
            let isV1 = lines[i][0] == 0xFE
            for field in type(of: message).fields where !(isV1 && field.isExtension) {
                let theirs = try #require(fields[field.name], "\(name).\(field.name) missing in pymavlink output")
                let mine = try #require(ours[field.name])
                #expect(TestData.matches(mine, theirs), "\(name).\(field.name): swift \(mine) vs pymavlink \(theirs)")
            }
            #expect(result["repack"] as? String == hexString(lines[i]), "\(name): pymavlink re-pack differs")
        }
        #expect(signedSeen == MAVLinkMessage.generatedTypes.count)
    }

    // MARK: helpers

    private func checkFields(
        _ type: any MAVLinkMessageType.Type, frame: MAVLinkFrame, expected: [String: Any],
        context: String
    ) throws {
        let message = decodeAny(type, frame.payload)
        let ours = TestData.fieldValues(message)
        for (name, theirs) in expected {
            let mine = try #require(ours[name], "\(context): no Swift property for \(name)")
            #expect(TestData.matches(mine, theirs), "\(context).\(name): swift \(mine) vs pymavlink \(theirs)")
        }
    }

    private func decodeAny<M: MAVLinkMessageType>(_ type: M.Type, _ payload: [UInt8]) -> any MAVLinkMessageType {
        M(payload: payload)
    }

    private func reencode<M: MAVLinkMessageType>(_ type: M.Type, frame: MAVLinkFrame) throws -> [UInt8] {
        let message = try frame.decode(M.self)
        if frame.version == .v1 {
            return try MAVLinkEncoder.mavlink1Frame(
                for: message, sysid: frame.systemID, compid: frame.componentID,
                seq: frame.sequence
            ).bytes
        }
        let signing = frame.signature.map {
            MAVLinkSignatureParameters(key: TestData.key, linkID: $0.linkID, timestamp: $0.timestamp)
        }
        return MAVLinkEncoder.frame(
            for: message, sysid: frame.systemID, compid: frame.componentID,
            seq: frame.sequence, signing: signing
        ).bytes
    }

    private func makeFrame<M: MAVLinkMessageType>(
        _ type: M.Type, payload: [UInt8], seq: UInt8,
        signing: MAVLinkSignatureParameters?,
        mavlink1: Bool
    ) -> (any MAVLinkMessageType, MAVLinkFrame)? {
        let message = M(payload: payload)
        if mavlink1 {
            guard M.id <= 255,
                let frame = try? MAVLinkEncoder.mavlink1Frame(for: message, sysid: 17, compid: 1, seq: seq)
            else { return nil }
            return (message, frame)
        }
        return (message, MAVLinkEncoder.frame(for: message, sysid: 17, compid: 1, seq: seq, signing: signing))
    }
}
