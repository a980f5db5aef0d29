/// A voxel's integer coordinates packed into one `Int64`: 21 bits per axis, each offset by 2²⁰, so any cell within
/// ±1,048,575 cells of the origin (±209 km at 0.2 m) has a key, and no key is negative.
struct VoxelKey {
    static let bias: Int64 = 1 << 20
    static let limit: Int32 = (1 << 20) - 1

    @inline(__always)
    static func pack(_ c: SIMD3<Int32>) -> Int64 {
        ((Int64(c.x) &+ bias) << 42) | ((Int64(c.y) &+ bias) << 21) | (Int64(c.z) &+ bias)
    }

    @inline(__always)
    static func unpack(_ k: Int64) -> SIMD3<Int32> {
        let mask: Int64 = (1 << 21) - 1
        return SIMD3(
            Int32(truncatingIfNeeded: ((k >> 42) & mask) - bias), Int32(truncatingIfNeeded: ((k >> 21) & mask) - bias),
            Int32(truncatingIfNeeded: (k & mask) - bias))
    }

    /// Whether every coordinate is within the packable range.
    @inline(__always)
    static func fits(_ c: SIMD3<Int32>) -> Bool {
        abs(c.x) <= limit && abs(c.y) <= limit && abs(c.z) <= limit
    }
}

/// An open-addressing hash table from voxel keys to 32-bit values (linear probing, load at most one half): the
/// occupancy map's voxels and blocks and the planner's visited cells. Several times smaller and faster than a
/// `Dictionary<Int64, Int32>` at millions of entries.
struct VoxelTable {
    private static let empty = Int64.min
    private(set) var keys: [Int64]
    private(set) var values: [Int32]
    private(set) var count = 0
    private var mask: Int

    /// A table that holds `capacity` entries before it grows.
    init(capacity: Int = 16) {
        var slots = 16
        while slots < capacity * 2 { slots <<= 1 }
        keys = Array(repeating: Self.empty, count: slots)
        values = Array(repeating: 0, count: slots)
        mask = slots - 1
    }

    /// Spatially coherent hashing: the cells of one 4 × 4 × 4 group share 64 consecutive slots (in the order of
    /// their place in the group) at a place chosen by mixing the group's key. Neighbouring cells, and points read in
    /// a scanner's order, then touch the same few cache lines instead of random ones.
    @inline(__always)
    private static func hash(_ k: Int64) -> Int {
        let field: Int64 = (1 << 21) - 1
        let x = (k >> 42) & field, y = (k >> 21) & field, z = k & field
        let local = (x & 3) | ((y & 3) << 2) | ((z & 3) << 4)
        var g = UInt64(bitPattern: ((x >> 2) << 42) | ((y >> 2) << 21) | (z >> 2))
        g ^= g >> 31
        g &*= 0x7fb5_d329_728e_a185
        g ^= g >> 27
        return Int(truncatingIfNeeded: (g << 6) | UInt64(local))
    }

    /// The value stored for `key`, if any.
    @inline(__always)
    func value(for key: Int64) -> Int32? {
        var i = Self.hash(key) & mask
        while true {
            let k = keys[i]
            if k == key { return values[i] }
            if k == Self.empty { return nil }
            i = (i &+ 1) & mask
        }
    }

    /// The slot of `key`, inserting it with `initial` when absent; `inserted` tells which.
    @inline(__always)
    mutating func slot(for key: Int64, initial: Int32) -> (slot: Int, inserted: Bool) {
        if (count + 1) * 2 > keys.count { grow() }
        var i = Self.hash(key) & mask
        while true {
            let k = keys[i]
            if k == key { return (i, false) }
            if k == Self.empty {
                keys[i] = key
                values[i] = initial
                count += 1
                return (i, true)
            }
            i = (i &+ 1) & mask
        }
    }

    /// Adds `delta` to the value at `slot`.
    @inline(__always)
    mutating func add(_ delta: Int32, at slot: Int) { values[slot] &+= delta }

    /// Every stored key and its value, in slot order.
    func forEach(_ body: (Int64, Int32) -> Void) {
        for i in keys.indices where keys[i] != Self.empty { body(keys[i], values[i]) }
    }

    /// Bytes held by the table's storage.
    var bytes: Int { keys.count * (MemoryLayout<Int64>.size + MemoryLayout<Int32>.size) }

    private mutating func grow() {
        let oldKeys = keys, oldValues = values
        keys = Array(repeating: Self.empty, count: oldKeys.count * 2)
        values = Array(repeating: 0, count: oldKeys.count * 2)
        mask = keys.count - 1
        count = 0
        for i in oldKeys.indices where oldKeys[i] != Self.empty {
            let (s, _) = slot(for: oldKeys[i], initial: oldValues[i])
            values[s] = oldValues[i]
        }
    }
}
