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

    /// The decoder as it was before the buffer forms (field by field through `WireReader`): what they must match.
    static func referenceDecode(_ bytes: [UInt8]) throws(WireError) -> [Frame] {
        var frames: [Frame] = []
        var r = WireReader(bytes, context: "frame")
        var index = 0
        while r.remaining > 0 {
            let kindByte = try r.u8("kind of frame \(index)")
            let length = Int(try r.u16("length of frame \(index)"))
            guard r.remaining >= length else {
                throw WireError(
                    "frame \(index) (kind \(kindByte)): length \(length) exceeds the \(r.remaining) bytes left")
            }
            let body = try r.bytes(length, "body of frame \(index)")
            if let kind = Frame.Kind(rawValue: kindByte) {
                var b = WireReader(body, context: "frame \(index) (\(kind))")
                switch kind {
                case .unreliable: frames.append(.unreliable(type: try b.u16("type"), payload: b.rest()))
                case .reliable:
                    let sequence = try b.u64("sequence")
                    frames.append(.reliable(sequence: sequence, type: try b.u16("type"), payload: b.rest()))
                case .ack:
                    let cumulative = try b.u64("cumulative")
                    frames.append(.ack(cumulative: cumulative, selective: try b.u64("selective")))
                case .heartbeat:
                    let id = try b.u32("id")
                    frames.append(.heartbeat(id: id, sentAtMicros: try b.u64("sentAtMicros")))
                case .heartbeatReply:
                    let id = try b.u32("id")
                    frames.append(.heartbeatReply(id: id, sentAtMicros: try b.u64("sentAtMicros")))
                case .goodbye: frames.append(.goodbye(reason: try b.u8("reason")))
                case .echo:
                    let high = try b.u64("peer")
                    let low = try b.u64("peer")
                    let sent = try b.u64("sentAtMicros")
                    frames.append(
                        .echo(
                            peer: NodeID(high: high, low: low), sentAtMicros: sent, heldMicros: try b.u32("heldMicros"))
                    )
                }
            }
            index += 1
        }
        return frames
    }

    /// The buffer forms the mesh layer uses decode and encode exactly like the array forms did, errors included.
    @Test func bufferFormsMatchTheArrayForms() throws {
        let all = try Frame.encode(
            Self.samples + [.echo(peer: NodeID(high: 1, low: 2), sentAtMicros: 3, heldMicros: 4)])
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: all.count, alignment: 16)
        defer { buffer.deallocate() }
        let written = try Frame.encode(
            Self.samples + [.echo(peer: NodeID(high: 1, low: 2), sentAtMicros: 3, heldMicros: 4)], into: buffer)
        #expect(Array(buffer[0..<written]) == all)
        #expect(throws: WireError.self) { try Frame.encode(Self.samples, into: .init(rebasing: buffer[0..<10])) }
        var rng = SeededRandom(seed: 78)
        var failures = 0
        for k in 0..<3000 {
            var bytes = rng.bytes(Int.random(in: 0...64, using: &rng))
            if Bool.random(using: &rng), !bytes.isEmpty { bytes[0] = UInt8.random(in: 1...7, using: &rng) }
            if k % 2 == 0 {
                // Valid frames, cut short half the time.
                bytes = try Frame.encode(Self.samples.filter { _ in Bool.random(using: &rng) })
                if Bool.random(using: &rng) {
                    bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &rng)))
                }
            }
            let reference = Result { () throws(WireError) in try Self.referenceDecode(bytes) }
            let fromArray = Result { () throws(WireError) in try Frame.decodeAll(bytes) }
            let fromBuffer = bytes.withUnsafeBytes { b in Result { () throws(WireError) in try Frame.decodeAll(b) } }
            #expect(fromArray == reference)
            #expect(fromBuffer == reference)
            if case .failure = fromBuffer { failures += 1 }
        }
        // Both outcomes were exercised.
        #expect(failures > 100 && failures < 2900, "\(failures) of 3000 failed")
    }
}
