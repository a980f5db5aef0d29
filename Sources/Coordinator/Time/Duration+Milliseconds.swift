extension Duration {
    /// Whole milliseconds, truncated toward zero and clamped to `UInt32`'s range (negative → 0).
    var clampedMilliseconds: UInt32 {
        let (s, atto) = components
        if s < 0 { return 0 }
        let ms = Double(s) * 1000 + Double(atto) / 1e15
        return ms >= Double(UInt32.max) ? .max : UInt32(ms)
    }

    /// This duration in seconds as a floating-point number.
    var inSeconds: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) * 1e-18
    }
}
