/// A forward cursor over the bytes of a text (header or ASCII body), tracking the 1-based line number.
///
/// Value parsing works on the raw bytes: no `String` is made unless an error needs to quote a token.
struct TextScanner {
    let base: UnsafePointer<UInt8>
    let end: Int
    var pos: Int
    var line: Int

    init(_ buffer: UnsafeBufferPointer<UInt8>, pos: Int = 0, line: Int = 1) {
        // A dummy non-nil pointer for empty buffers keeps the hot paths free of optionals.
        self.base = buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!
        self.end = buffer.count
        self.pos = pos
        self.line = line
    }

    var atEnd: Bool { pos >= end }

    @inline(__always) static func isBlank(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0D }

    /// Skips spaces, tabs and carriage returns (not newlines).
    @inline(__always)
    mutating func skipBlanks() {
        while pos < end, TextScanner.isBlank(base[pos]) { pos &+= 1 }
    }

    /// True at a newline or the end of the text.
    @inline(__always)
    var atLineEnd: Bool { pos >= end || base[pos] == 0x0A }

    /// Moves past the rest of the current line and its newline.
    mutating func skipLine() {
        while pos < end, base[pos] != 0x0A { pos &+= 1 }
        if pos < end {
            pos &+= 1
            line &+= 1
        }
    }

    /// Moves past the newline the cursor stands on, if any.
    @inline(__always)
    mutating func consumeNewline() {
        if pos < end, base[pos] == 0x0A {
            pos &+= 1
            line &+= 1
        }
    }

    /// Skips one whitespace-delimited token.
    @inline(__always)
    mutating func skipToken() {
        while pos < end {
            let c = base[pos]
            if c == 0x20 || c == 0x09 || c == 0x0D || c == 0x0A { break }
            pos &+= 1
        }
    }

    /// Returns the current line's text (without its newline) and moves to the next line.
    mutating func readLine() -> String {
        let start = pos
        while pos < end, base[pos] != 0x0A { pos &+= 1 }
        let text = String(
            decoding: UnsafeBufferPointer(start: base + start, count: pos - start), as: UTF8.self)
        consumeNewline()
        return text
    }

    /// The token starting at `start`, for error messages.
    func token(at start: Int) -> String {
        var p = start
        while p < end {
            let c = base[p]
            if c == 0x20 || c == 0x09 || c == 0x0D || c == 0x0A { break }
            p += 1
        }
        let n = min(p - start, 40)
        return String(decoding: UnsafeBufferPointer(start: base + start, count: n), as: UTF8.self)
    }

    /// Parses a decimal number token (sign, digits, point, exponent, `nan`, `inf`, `infinity`).
    /// On success the cursor stands just past the token; on failure it is left at the token's start.
    @inline(__always)
    mutating func parseFloat() -> Float? {
        let start = pos
        if let v = FloatText.parse(base, &pos, end) {
            if pos >= end { return v }
            let c = base[pos]
            if c == 0x20 || c == 0x09 || c == 0x0D || c == 0x0A { return v }
        }
        pos = start
        return nil
    }
}

/// Hand-written decimal-to-Float conversion (correct to within 1 ulp of Float).
enum FloatText {
    /// Exact powers of ten representable in Double.
    static let powers: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    @inline(__always)
    static func lower(_ c: UInt8) -> UInt8 { c | 0x20 }

    /// Matches `word` (lowercase ASCII) case-insensitively at `p`.
    static func matches(_ base: UnsafePointer<UInt8>, _ p: Int, _ end: Int, _ word: StaticString)
        -> Bool
    {
        let n = word.utf8CodeUnitCount
        guard end - p >= n else { return false }
        let w = word.utf8Start
        for i in 0..<n where lower(base[p + i]) != w[i] { return false }
        return true
    }

    /// Parses a number starting at `pos`, advancing it past the characters used; nil if none.
    @inline(__always)
    static func parse(_ base: UnsafePointer<UInt8>, _ pos: inout Int, _ end: Int) -> Float? {
        var p = pos
        guard p < end else { return nil }
        var negative = false
        if base[p] == 0x2D {  // -
            negative = true
            p &+= 1
        } else if base[p] == 0x2B {  // +
            p &+= 1
        }
        guard p < end else { return nil }
        let first = base[p]
        if first &- 0x30 > 9 && first != 0x2E {
            if matches(base, p, end, "nan") {
                p += 3
                // PCL/C printf may write "nan(...)" or "-nan"; accept an optional parenthesised payload.
                if p < end, base[p] == 0x28 {
                    while p < end, base[p] != 0x29, base[p] != 0x0A { p += 1 }
                    if p < end, base[p] == 0x29 { p += 1 }
                }
                pos = p
                return .nan
            }
            if matches(base, p, end, "infinity") {
                pos = p + 8
                return negative ? -.infinity : .infinity
            }
            if matches(base, p, end, "inf") {
                pos = p + 3
                return negative ? -.infinity : .infinity
            }
            return nil
        }
        var mantissa: UInt64 = 0
        var digits = 0  // significant digits accumulated
        var exponent = 0
        var sawDigit = false
        // Integer part.
        while p < end {
            let d = base[p] &- 0x30
            if d > 9 { break }
            sawDigit = true
            if digits < 19 {
                mantissa = mantissa &* 10 &+ UInt64(d)
                if mantissa != 0 { digits &+= 1 }
            } else {
                exponent &+= 1
            }
            p &+= 1
        }
        // Fraction.
        if p < end, base[p] == 0x2E {
            p &+= 1
            while p < end {
                let d = base[p] &- 0x30
                if d > 9 { break }
                sawDigit = true
                if digits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(d)
                    if mantissa != 0 { digits &+= 1 }
                    exponent &-= 1
                }
                p &+= 1
            }
        }
        guard sawDigit else { return nil }
        // Exponent.
        if p < end, base[p] | 0x20 == 0x65 {  // e or E
            var q = p &+ 1
            var expNegative = false
            if q < end, base[q] == 0x2D {
                expNegative = true
                q &+= 1
            } else if q < end, base[q] == 0x2B {
                q &+= 1
            }
            var e = 0
            var sawExpDigit = false
            while q < end {
                let d = base[q] &- 0x30
                if d > 9 { break }
                sawExpDigit = true
                if e < 100_000 { e = e &* 10 &+ Int(d) }
                q &+= 1
            }
            guard sawExpDigit else { return nil }
            exponent &+= expNegative ? -e : e
            p = q
        }
        pos = p
        let magnitude = scale(mantissa, exponent)
        return negative ? -magnitude : magnitude
    }

    /// mantissa × 10^exponent rounded to Float.
    @inline(__always)
    static func scale(_ mantissa: UInt64, _ exponent: Int) -> Float {
        if mantissa == 0 { return 0 }
        var d = Double(mantissa)
        if exponent == 0 { return Float(d) }
        // 19 digits reach 1e19, so anything past these bounds is beyond Float's range.
        if exponent > 40 { return .infinity }
        if exponent < -70 { return 0 }
        var e = exponent
        if e > 0 {
            while e > 22 {
                d *= 1e22
                e -= 22
            }
            d *= powers[e]
        } else {
            while e < -22 {
                d /= 1e22
                e += 22
            }
            d /= powers[-e]
        }
        return Float(d)
    }
}
