import Testing

@testable import Inspection

@Suite("LZF")
struct LZFTests {
    static func roundTrip(_ data: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws
        -> Int
    {
        let packed = LZF.compress(data)
        #expect(packed.count <= data.count + data.count / 32 + 2, sourceLocation: sourceLocation)
        let back = try LZF.decompress(packed, outputCount: data.count)
        #expect(back == data, sourceLocation: sourceLocation)
        return packed.count
    }

    @Test func randomData() throws {
        var rng = SeededRNG(seed: 42)
        for n in [0, 1, 2, 3, 4, 31, 32, 33, 64, 65, 1000, 100_000] {
            let data = (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) }
            _ = try Self.roundTrip(data)
        }
    }

    @Test func repetitiveData() throws {
        let zeros = [UInt8](repeating: 0, count: 100_000)
        #expect(try Self.roundTrip(zeros) < 2000)
        let pattern = (0..<50_000).map { UInt8($0 % 7) }
        #expect(try Self.roundTrip(pattern) < 2000)
        let text = Array(
            String(repeating: "the quick brown fox jumps over the lazy dog; ", count: 300).utf8)
        #expect(try Self.roundTrip(text) < text.count / 10)
        // Long runs with distant repeats (beyond the 8 KiB window) and short noise between them.
        var rng = SeededRNG(seed: 9)
        let block = (0..<3000).map { _ in UInt8.random(in: 0...255, using: &rng) }
        var mixed: [UInt8] = []
        for i in 0..<20 {
            mixed += block
            mixed += [UInt8](repeating: UInt8(i), count: i * 37)
            if i % 3 == 0 { mixed += [UInt8](repeating: 0, count: 9000) }
        }
        #expect(try Self.roundTrip(mixed) < mixed.count / 3)
    }

    @Test("float coordinates compress and restore exactly")
    func floats() throws {
        let pts = Fixtures.randomPoints(20_000)
        var raw: [UInt8] = []
        for p in pts {
            for a in 0..<3 { withUnsafeBytes(of: p[a].bitPattern.littleEndian) { raw += $0 } }
        }
        _ = try Self.roundTrip(raw)
    }

    @Test("corrupt streams are rejected with the input offset")
    func corrupt() {
        // Back-reference before the start: literal "AB", then a reference 6 back.
        #expect(
            throws: LZF.Failure(
                offset: 3, reason: "back-reference before start of output (6 back at output byte 2)")
        ) {
            try LZF.decompress([0x01, 0x41, 0x42, 0x20, 0x05], outputCount: 10)
        }
        // Output overflow: a 4-byte literal into 3 bytes.
        #expect(throws: LZF.Failure(offset: 0, reason: "output overflow (more than 3 bytes)")) {
            try LZF.decompress([0x03, 1, 2, 3, 4], outputCount: 3)
        }
        // Back-reference that would overflow.
        #expect(throws: LZF.Failure(offset: 2, reason: "output overflow (more than 5 bytes)")) {
            try LZF.decompress([0x00, 0x41, 0xE0, 0x10, 0x00], outputCount: 5)
        }
        #expect(
            throws: LZF.Failure(
                offset: 0, reason: "input ends inside a literal run (needs 5 bytes, 2 left)")
        ) {
            try LZF.decompress([0x04, 1, 2], outputCount: 5)
        }
        #expect(throws: LZF.Failure(offset: 2, reason: "input ends inside a back-reference")) {
            try LZF.decompress([0x00, 0x41, 0xE0], outputCount: 50)
        }
        #expect(throws: LZF.Failure(offset: 3, reason: "decodes to 2 bytes, expected 3")) {
            try LZF.decompress([0x01, 1, 2], outputCount: 3)
        }
    }
}
