import Determinism
import Testing

@testable import SecureTransport

@Suite("ReplayWindow")
struct ReplayWindowTests {
    @Test func inOrderCountersAreAllAccepted() {
        var w = ReplayWindow()
        for c in UInt64(0)..<20_000 { expectRecord(&w, c, true) }
        #expect(w.greatest == 19_999)
    }

    @Test func duplicatesAreRejected() {
        var w = ReplayWindow()
        expectRecord(&w, 0, true)
        expectRecord(&w, 0, false)
        expectRecord(&w, 7, true)
        #expect(!w.canAccept(7))
        expectRecord(&w, 7, false)
        expectRecord(&w, 0, false)
    }

    @Test func outOfOrderWithinWindowIsAcceptedOnce() {
        var w = ReplayWindow()
        expectRecord(&w, 100, true)
        for c: UInt64 in [50, 99, 0, 1, 64, 63] { expectRecord(&w, c, true) }
        for c: UInt64 in [50, 99, 0, 1, 64, 63, 100] { expectRecord(&w, c, false) }
        #expect(w.greatest == 100)
    }

    @Test func countersTooOldAreRejected() {
        var w = ReplayWindow()
        expectRecord(&w, 10_000, true)
        let oldestUsable = 10_000 - (ReplayWindow.usableSize - 1)  // 8,127 below the greatest
        #expect(w.canAccept(oldestUsable))
        #expect(!w.canAccept(oldestUsable - 1))
        expectRecord(&w, oldestUsable - 1, false)
        expectRecord(&w, oldestUsable, true)
    }

    @Test func bigJumpClearsTheWholeBitmap() {
        var w = ReplayWindow()
        for c in UInt64(0)..<300 { w.record(c) }
        expectRecord(&w, 1_000_000, true)
        #expect(!w.canAccept(5))  // now far too old
        expectRecord(&w, 999_999, true)
        expectRecord(&w, 1_000_000 - 8_127, true)
        expectRecord(&w, 1_000_001, true)
        // Slots that held counters 0..<300 are clear for the counters that now map to them.
        let sameSlot = UInt64(1_000_000 / 8192 * 8192) + 10
        expectRecord(&w, sameSlot, true)
    }

    @Test func bitmapWrapClearsStaleBits() {
        var w = ReplayWindow()
        for c in UInt64(0)..<100 { w.record(c) }
        expectRecord(&w, 8192 + 50, true)  // slot of counter 50 reused; window now 115...8242
        #expect(!w.canAccept(114))
        #expect(w.canAccept(115))
        expectRecord(&w, 8192 + 10, true)  // slot of 10 held counter 10's stale bit; it must have been cleared
        expectRecord(&w, 150, true)
        expectRecord(&w, 8192 + 10, false)
    }

    @Test func extremeCountersDoNotTrap() {
        var w = ReplayWindow()
        expectRecord(&w, .max, true)
        expectRecord(&w, .max, false)
        expectRecord(&w, .max - 1, true)
        #expect(!w.canAccept(0))
    }

    @Test func matchesAReferenceModelOnRandomTraffic() {
        var rng = SeededRandom(seed: 6479)
        var w = ReplayWindow()
        var seen = Set<UInt64>()
        var greatest: UInt64 = 0
        var front: UInt64 = 0
        for _ in 0..<30_000 {
            // Mostly near the front, sometimes far behind, sometimes a jump ahead.
            switch Int.random(in: 0..<10, using: &rng) {
            case 0: front += UInt64.random(in: 0...20_000, using: &rng)
            case 1...6: front += UInt64.random(in: 0...3, using: &rng)
            default: break
            }
            let back = UInt64.random(in: 0...9_000, using: &rng)
            let c = Bool.random(using: &rng) ? front : (front >= back ? front - back : 0)
            let expected = !seen.contains(c) && (seen.isEmpty || c > greatest || greatest - c < ReplayWindow.usableSize)
            #expect(w.canAccept(c) == expected, "counter \(c)")
            expectRecord(&w, c, expected)
            if expected {
                seen.insert(c)
                greatest = max(greatest, c)
            }
        }
    }
}

/// Records `counter` and checks the outcome (a helper because `#expect` cannot wrap a mutating call).
func expectRecord(
    _ w: inout ReplayWindow, _ counter: UInt64, _ expected: Bool, sourceLocation: SourceLocation = #_sourceLocation
) {
    let accepted = w.record(counter)
    #expect(accepted == expected, "counter \(counter)", sourceLocation: sourceLocation)
}
