import Testing

@testable import Inspection

@Suite("Hand-written float parser")
struct TextScannerTests {
    static func parse(_ s: String) -> Float? {
        let bytes = Array(s.utf8)
        return bytes.withUnsafeBufferPointer { buf in
            var sc = TextScanner(buf)
            return sc.parseFloat()
        }
    }

    @Test func specialValues() {
        #expect(Self.parse("nan")!.isNaN)
        #expect(Self.parse("-nan")!.isNaN)
        #expect(Self.parse("NaN")!.isNaN)
        #expect(Self.parse("inf") == .infinity)
        #expect(Self.parse("-Infinity") == -.infinity)
        #expect(Self.parse("+5") == 5)
        #expect(Self.parse(".5") == 0.5)
        #expect(Self.parse("5.") == 5)
        #expect(Self.parse("-0")!.sign == .minus)
        #expect(Self.parse("1e39") == .infinity)
        #expect(Self.parse("1e-50") == 0)
        #expect(Self.parse("1.5E+3") == 1500)
        #expect(
            Self.parse("0.000000000000000000000000000000000000000000001401298464324817")
                == .leastNonzeroMagnitude)
        #expect(Self.parse("123456789012345678901234567890") == Float("123456789012345678901234567890"))
    }

    @Test func rejectsBadText() {
        for s in ["", "-", ".", "e5", "1e", "1e+", "abc", "1.2.3", "12x", "--1", "nanx", "0x10"] {
            #expect(Self.parse(s) == nil, "\(s)")
        }
    }

    @Test(
        "random values: shortest text, %.9g-like long text and long decimals agree with Float(String)")
    func randomAgreement() {
        var rng = SeededRNG(seed: 99)
        for i in 0..<20000 {
            let bits = UInt32.random(in: 0...UInt32.max, using: &rng)
            let f = Float(bitPattern: bits)
            guard f.isFinite else { continue }
            #expect(Self.parse(f.description) == f, "\(f)")
            let d = Double(f) * Double.random(in: 0.999...1.001, using: &rng)
            let text = i % 2 == 0 ? d.description : String(Double(Float(d)))
            let want = Float(text)!
            let got = Self.parse(text)!
            let ulps = abs(Int64(got.bitPattern) - Int64(want.bitPattern))
            #expect(ulps <= 1, "\(text): \(got) vs \(want)")
        }
    }
}
