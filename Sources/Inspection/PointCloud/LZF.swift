/// LZF compression as used by PCD `binary_compressed` data (the liblzf stream format).
///
/// A stream is a series of runs, each starting with a control byte `c`:
/// `c < 32` copies the next `c + 1` bytes literally; otherwise `len = c >> 5` (7 means "add the next
/// byte"), and `len + 2` bytes are copied from `((c & 31) << 8) + next + 1` bytes back in the output.
public enum LZF {
    /// A corrupt stream: `offset` is the byte position in the compressed input.
    public struct Failure: Error, Sendable, Equatable {
        /// Byte offset into the compressed input where decoding failed.
        public var offset: Int
        /// What is wrong.
        public var reason: String
    }

    static let maxLiteral = 32
    static let maxOffset = 1 << 13
    static let maxMatch = 2 + 7 + 255
    static let hashBits = 15

    /// Compresses `input`; the result decompresses back to it exactly.
    public static func compress(_ input: [UInt8]) -> [UInt8] {
        let n = input.count
        if n == 0 { return [] }
        // Worst case: every 32 literals cost one extra control byte.
        let capacity = n + n / maxLiteral + 2
        return input.withUnsafeBufferPointer { src in
            [UInt8](unsafeUninitializedCapacity: capacity) { out, written in
                written = compress(src.baseAddress!, n, out.baseAddress!)
            }
        }
    }

    /// Compresses `n` bytes at `src` into `dst` (room for `n + n/32 + 2` bytes); returns the size used.
    static func compress(_ src: UnsafePointer<UInt8>, _ n: Int, _ dst: UnsafeMutablePointer<UInt8>)
        -> Int
    {
        let table = UnsafeMutablePointer<Int>.allocate(capacity: 1 << hashBits)
        defer { table.deallocate() }
        table.initialize(repeating: -1, count: 1 << hashBits)

        var ip = 0
        var op = 1  // dst[litStart] is the pending literal run's control byte
        var litStart = 0
        var litCount = 0

        @inline(__always) func hash(_ i: Int) -> Int {
            let v = UInt32(src[i]) << 16 | UInt32(src[i + 1]) << 8 | UInt32(src[i + 2])
            return Int((v &* 2_654_435_761) >> UInt32(32 - hashBits))
        }

        while ip + 2 < n {
            let h = hash(ip)
            let ref = table[h]
            table[h] = ip
            let distance = ip - ref
            if ref >= 0, distance <= maxOffset, src[ref] == src[ip], src[ref + 1] == src[ip + 1],
                src[ref + 2] == src[ip + 2]
            {
                var len = 3
                let limit = min(maxMatch, n - ip)
                while len < limit, src[ref + len] == src[ip + len] { len += 1 }
                // Close the literal run (or drop its unused control byte).
                if litCount > 0 {
                    dst[litStart] = UInt8(litCount - 1)
                } else {
                    op -= 1
                }
                let off = distance - 1
                let l = len - 2
                if l < 7 {
                    dst[op] = UInt8(off >> 8) | UInt8(l << 5)
                    op += 1
                } else {
                    dst[op] = UInt8(off >> 8) | (7 << 5)
                    dst[op + 1] = UInt8(l - 7)
                    op += 2
                }
                dst[op] = UInt8(off & 0xFF)
                op += 1
                // Index a few positions inside the match so later data can refer to them.
                let matchEnd = ip + len
                var j = ip + 1
                while j < matchEnd, j + 2 < n, j < ip + 4 {
                    table[hash(j)] = j
                    j += 1
                }
                ip = matchEnd
                litStart = op
                op += 1
                litCount = 0
            } else {
                dst[op] = src[ip]
                op += 1
                ip += 1
                litCount += 1
                if litCount == maxLiteral {
                    dst[litStart] = UInt8(maxLiteral - 1)
                    litStart = op
                    op += 1
                    litCount = 0
                }
            }
        }
        while ip < n {
            dst[op] = src[ip]
            op += 1
            ip += 1
            litCount += 1
            if litCount == maxLiteral {
                dst[litStart] = UInt8(maxLiteral - 1)
                litStart = op
                op += 1
                litCount = 0
            }
        }
        if litCount > 0 {
            dst[litStart] = UInt8(litCount - 1)
        } else {
            op -= 1
        }
        return op
    }

    /// Decompresses `input`, which must decode to exactly `outputCount` bytes.
    public static func decompress(_ input: [UInt8], outputCount: Int) throws(Failure) -> [UInt8] {
        let result: Result<[UInt8], Failure> = input.withUnsafeBufferPointer { src in
            decompress(src, outputCount: outputCount)
        }
        return try result.get()
    }

    /// Decompresses `src` into a new array of exactly `outputCount` bytes.
    static func decompress(_ src: UnsafeBufferPointer<UInt8>, outputCount: Int) -> Result<
        [UInt8], Failure
    > {
        var failure: Failure?
        let out = [UInt8](unsafeUninitializedCapacity: outputCount) { buf, written in
            let produced = decode(src, into: buf)
            switch produced {
            case .success(let n):
                if n != outputCount {
                    failure = Failure(
                        offset: src.count, reason: "decodes to \(n) bytes, expected \(outputCount)")
                }
            case .failure(let f):
                failure = f
            }
            // Bytes are plain UInt8, so exposing unfilled capacity is harmless; zero it to be safe.
            if case .success(let n) = produced, n < outputCount {
                (buf.baseAddress! + n).initialize(repeating: 0, count: outputCount - n)
            }
            written = failure == nil ? outputCount : 0
        }
        if let failure { return .failure(failure) }
        return .success(out)
    }

    /// Decodes into `out`; returns the number of bytes produced.
    static func decode(_ src: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>)
        -> Result<Int, Failure>
    {
        guard src.count > 0 else { return .success(0) }
        guard let dst = out.baseAddress else {
            return .failure(Failure(offset: 0, reason: "output overflow (more than 0 bytes)"))
        }
        let s = src.baseAddress!
        let inEnd = src.count
        let outEnd = out.count
        var ip = 0
        var op = 0
        while ip < inEnd {
            let runStart = ip
            let ctrl = Int(s[ip])
            ip += 1
            if ctrl < 32 {
                let len = ctrl + 1
                if ip + len > inEnd {
                    return .failure(
                        Failure(
                            offset: runStart,
                            reason: "input ends inside a literal run (needs \(len) bytes, \(inEnd - ip) left)"))
                }
                if op + len > outEnd {
                    return .failure(
                        Failure(offset: runStart, reason: "output overflow (more than \(outEnd) bytes)"))
                }
                (dst + op).update(from: s + ip, count: len)
                ip += len
                op += len
            } else {
                var len = ctrl >> 5
                if len == 7 {
                    guard ip < inEnd else {
                        return .failure(Failure(offset: runStart, reason: "input ends inside a back-reference"))
                    }
                    len += Int(s[ip])
                    ip += 1
                }
                guard ip < inEnd else {
                    return .failure(Failure(offset: runStart, reason: "input ends inside a back-reference"))
                }
                let ref = op - ((ctrl & 0x1F) << 8) - Int(s[ip]) - 1
                ip += 1
                len += 2
                if ref < 0 {
                    return .failure(
                        Failure(
                            offset: runStart,
                            reason:
                                "back-reference before start of output (\(op - ref) back at output byte \(op))"))
                }
                if op + len > outEnd {
                    return .failure(
                        Failure(offset: runStart, reason: "output overflow (more than \(outEnd) bytes)"))
                }
                if op - ref >= len {
                    (dst + op).update(from: dst + ref, count: len)
                } else {
                    // Overlapping copy repeats a short pattern; must go byte by byte.
                    for k in 0..<len { dst[op + k] = dst[ref + k] }
                }
                op += len
            }
        }
        return .success(op)
    }
}
