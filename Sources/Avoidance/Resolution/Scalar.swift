// Non-generic scalar helpers for the hot loops: in unoptimized (debug) builds the generic `min`, `max` and `abs`
// cost a witness-table call each, which made the deterministic simulation tests several times slower.

@inline(__always) func lesser(_ a: Double, _ b: Double) -> Double { a < b ? a : b }
@inline(__always) func greater(_ a: Double, _ b: Double) -> Double { a > b ? a : b }
@inline(__always) func magnitude(_ a: Double) -> Double { a < 0 ? -a : a }
@inline(__always) func clamp(_ a: Double, _ lo: Double, _ hi: Double) -> Double { a < lo ? lo : (a > hi ? hi : a) }
