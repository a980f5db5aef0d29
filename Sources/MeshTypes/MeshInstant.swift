/// A point on a monotonic clock, in nanoseconds since an arbitrary origin chosen by whoever owns the clock.
///
/// The cores never read a clock: the shell passes `now` in. Because it is a plain number it can be built
/// deterministically, so a simulation can drive any number of nodes on one virtual clock.
public struct MeshInstant: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Nanoseconds since the clock's origin.
    public var nanoseconds: UInt64

    /// An instant `nanoseconds` after the clock's origin.
    public init(nanoseconds: UInt64) {
        self.nanoseconds = nanoseconds
    }

    /// The clock's origin.
    public static let zero = MeshInstant(nanoseconds: 0)

    /// An instant `duration` after the origin (durations before the origin clamp to it).
    public static func after(_ duration: Duration) -> MeshInstant {
        .zero + duration
    }

    public static func < (a: MeshInstant, b: MeshInstant) -> Bool { a.nanoseconds < b.nanoseconds }

    /// The instant `d` later (earlier for a negative `d`), saturating at the ends of the range.
    public static func + (a: MeshInstant, d: Duration) -> MeshInstant {
        let delta = d.wholeNanoseconds
        if delta >= 0 {
            let (sum, overflow) = a.nanoseconds.addingReportingOverflow(UInt64(delta))
            return MeshInstant(nanoseconds: overflow ? .max : sum)
        } else {
            let magnitude = delta.magnitude
            return MeshInstant(nanoseconds: a.nanoseconds >= magnitude ? a.nanoseconds - magnitude : 0)
        }
    }

    /// The instant `d` earlier.
    public static func - (a: MeshInstant, d: Duration) -> MeshInstant {
        a + (.zero - d)
    }

    /// Adds `d` in place.
    public static func += (a: inout MeshInstant, d: Duration) { a = a + d }

    /// The signed time from `b` to `a`.
    public static func - (a: MeshInstant, b: MeshInstant) -> Duration {
        if a.nanoseconds >= b.nanoseconds {
            return .nanoseconds(Int64(clamping: a.nanoseconds - b.nanoseconds))
        } else {
            return .zero - .nanoseconds(Int64(clamping: b.nanoseconds - a.nanoseconds))
        }
    }

    public var description: String {
        let ms = Double(nanoseconds) / 1e6
        return "t+\(ms)ms"
    }
}

extension Duration {
    /// This duration in whole nanoseconds, truncated toward zero and clamped to `Int64`.
    public var wholeNanoseconds: Int64 {
        let c = components
        let (fromSeconds, overflow) = c.seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return c.seconds < 0 ? .min : .max }
        let (sum, overflow2) = fromSeconds.addingReportingOverflow(c.attoseconds / 1_000_000_000)
        if overflow2 { return c.seconds < 0 ? .min : .max }
        return sum
    }

    /// This duration in whole milliseconds, truncated toward zero.
    public var wholeMilliseconds: Int64 { wholeNanoseconds / 1_000_000 }
}

extension Duration {
    /// This duration in seconds as a floating-point number.
    public var secondsDouble: Double {
        let c = components
        return Double(c.seconds) + Double(c.attoseconds) * 1e-18
    }
}
