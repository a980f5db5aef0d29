/// A sliding anti-replay window over 64-bit message counters (RFC 6479 bitmap, 8,192 bits).
///
/// The bitmap is 128 words of 64 bits used as a ring: bit `c mod 8192` records counter `c`. When a counter above the
/// greatest seen arrives, the words between the old greatest's word and the new one are cleared (at most all 128) before
/// the bit is set, so no stale bit survives a wrap. A counter is acceptable when it is above the greatest seen, or
/// less than `usableSize` (8,128) below it and its bit is clear.
///
/// Use it in two steps: `canAccept` before decrypting (cheap rejection), `record` only after the AEAD tag verified,
/// so forged datagrams never move the window.
public struct ReplayWindow: Sendable, Equatable {
    /// The bitmap size in bits.
    public static let bitCount = 8192
    /// How far below the greatest counter seen a counter is still accepted: `bitCount` minus one word.
    public static let usableSize: UInt64 = UInt64(bitCount - 64)
    static let wordCount = bitCount / 64

    private var words: [UInt64]
    /// The greatest counter recorded (0 when none was recorded yet; bit 0 then tells whether 0 was).
    public private(set) var greatest: UInt64 = 0

    /// An empty window: every counter is acceptable once.
    public init() {
        words = Array(repeating: 0, count: Self.wordCount)
    }

    /// Whether `counter` is new: not recorded before and not too old. Does not change the window.
    public func canAccept(_ counter: UInt64) -> Bool {
        if counter > greatest { return true }
        if greatest - counter >= Self.usableSize { return false }
        let bit = counter & UInt64(Self.bitCount - 1)
        return words[Int(bit >> 6)] & (1 << (bit & 63)) == 0
    }

    /// Records `counter`, returning false (and changing nothing) when it is a duplicate or too old.
    @discardableResult
    public mutating func record(_ counter: UInt64) -> Bool {
        guard canAccept(counter) else { return false }
        if counter > greatest {
            let oldWord = greatest >> 6
            let newWord = counter >> 6
            let toClear = min(newWord - oldWord, UInt64(Self.wordCount))
            var i: UInt64 = 1
            while i <= toClear {
                words[Int((oldWord &+ i) & UInt64(Self.wordCount - 1))] = 0
                i += 1
            }
            greatest = counter
        }
        let bit = counter & UInt64(Self.bitCount - 1)
        words[Int(bit >> 6)] |= 1 << (bit & 63)
        return true
    }
}
