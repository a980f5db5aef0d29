import MeshTypes

/// Remembers which of an origin's recent message sequence numbers were seen: the highest, and a 64-bit mask
/// of the 64 below it. Older numbers count as seen (dropped). A new incarnation starts afresh.
struct DuplicateWindow: Sendable {
    private(set) var incarnation: Incarnation
    private(set) var highest: UInt64
    private var mask: UInt64 = 1

    init(incarnation: Incarnation, first: UInt64) {
        self.incarnation = incarnation
        self.highest = first
    }

    /// Records `sequence` and returns whether it was new.
    mutating func accept(_ sequence: UInt64, incarnation inc: Incarnation) -> Bool {
        if inc != incarnation {
            self = DuplicateWindow(incarnation: inc, first: sequence)
            return true
        }
        if sequence > highest {
            let shift = sequence - highest
            mask = shift >= 64 ? 1 : (mask << shift) | 1
            highest = sequence
            return true
        }
        let back = highest - sequence
        guard back < 64 else { return false }
        let bit: UInt64 = 1 << back
        if mask & bit != 0 { return false }
        mask |= bit
        return true
    }
}
