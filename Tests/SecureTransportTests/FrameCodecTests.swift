import Determinism
import MeshTypes
import Testing

@testable import SecureTransport

@Suite("Frame codec")
struct FrameCodecTests {
    static let samples: [Frame] = [
        .unreliable(type: 0x0102, payload: [1, 2, 3]),
        .unreliable(type: 0, payload: []),
        .reliable(sequence: 0x0102_0304_0506_0708, type: 7, payload: Array(repeating: 0xEE, count: 300)),
        .ack(cumulative: 41, selective: 0b1011_0000),
        .heartbeat(id: 0xDEAD_BEEF, sentAtMicros: 1_800_000_000_123_456),
        .heartbeatReply(id: 1, sentAtMicros: 2),
        .goodbye(reason: 3),
    ]

    @Test func everyFrameRoundTrips() throws {
        for f in Self.samples {
            var bytes: [UInt8] = []
            try f.encode(into: &bytes)
            #expect(bytes.count == f.encodedSize)
            #expect(try Frame.decodeAll(bytes) == [f])
        }
        let all = try Frame.encode(Self.samples)
        #expect(try Frame.decodeAll(all) == Self.samples)
        #expect(try Frame.decodeAll([]) == [])
    }

    @Test func exactBytes() throws {
        #expect(
            try Frame.encode([.ack(cumulative: 1, selective: 2)])
                == [0x03, 0x00, 0x10, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2])
        #expect(try Frame.encode([.unreliable(type: 0x0A0B, payload: [0xFF])]) == [0x01, 0x00, 0x03, 0x0A, 0x0B, 0xFF])
        #expect(try Frame.encode([.goodbye(reason: 9)]) == [0x06, 0x00, 0x01, 0x09])
    }

    @Test func unknownKindsAreSkipped() throws {
        var bytes: [UInt8] = [0x7F, 0x00, 0x04, 9, 9, 9, 9]  // unknown kind, 4-byte body
        bytes += try Frame.encode([.goodbye(reason: 1)])
        bytes += [0xF0, 0x00, 0x00]  // unknown kind, empty body
        #expect(try Frame.decodeAll(bytes) == [.goodbye(reason: 1)])
    }

    @Test func longerFixedBodiesAreAcceptedForExtension() throws {
        let bytes: [UInt8] = [0x06, 0x00, 0x03, 0x05, 0xAA, 0xBB]
        #expect(try Frame.decodeAll(bytes) == [.goodbye(reason: 5)])
    }

    @Test func malformedInputThrowsPreciseErrors() {
        #expect(throws: WireError("truncated frame: field length of frame 0 needs 2 bytes at offset 1, only 1 left")) {
            try Frame.decodeAll([0x03, 0x00])
        }
        #expect(throws: WireError("frame 0 (kind 3): length 16 exceeds the 2 bytes left")) {
            try Frame.decodeAll([0x03, 0x00, 0x10, 1, 2])
        }
        #expect(throws: WireError("truncated frame 0 (ack): field selective needs 8 bytes at offset 8, only 7 left")) {
            try Frame.decodeAll([0x03, 0x00, 0x0F] + Array(repeating: 0, count: 15))
        }
        #expect(throws: WireError("truncated frame 1 (goodbye): field reason needs 1 bytes at offset 0, only 0 left")) {
            try Frame.decodeAll([0x06, 0x00, 0x01, 0x00, 0x06, 0x00, 0x00])
        }
    }

    @Test func oversizePayloadIsRefusedWhenEncoding() {
        let big = Frame.unreliable(type: 1, payload: Array(repeating: 0, count: Frame.maximumUnreliablePayload + 1))
        var out: [UInt8] = []
        #expect(throws: WireError.self) { try big.encode(into: &out) }
        let fits = Frame.unreliable(type: 1, payload: Array(repeating: 0, count: Frame.maximumUnreliablePayload))
        #expect(throws: Never.self) { try fits.encode(into: &out) }
    }

    @Test func randomBytesNeverTrap() throws {
        var rng = SeededRandom(seed: 77)
        var decoded = 0
        for _ in 0..<3000 {
            var bytes = rng.bytes(Int.random(in: 0...64, using: &rng))
            if Bool.random(using: &rng), !bytes.isEmpty { bytes[0] = UInt8.random(in: 1...6, using: &rng) }
            if let frames = try? Frame.decodeAll(bytes) {
                decoded += 1
                // Whatever decodes re-encodes to something that decodes the same.
                #expect(try Frame.decodeAll(Frame.encode(frames)) == frames)
            }
        }
        #expect(decoded > 0)
    }
}
