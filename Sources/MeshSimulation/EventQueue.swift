import Determinism

/// A queue of timed items; equal times come out in insertion order, so runs are reproducible.
/// The heap orders small (time, order, slot) entries; the items themselves stay put in a slab.
struct EventQueue<Item> {
    private struct Entry: Comparable {
        var time: UInt64
        var order: UInt64
        var slot: Int
        static func < (a: Entry, b: Entry) -> Bool { a.time < b.time || (a.time == b.time && a.order < b.order) }
    }

    private var heap = MinHeap<Entry>()
    private var slab: [Item?] = []
    private var free: [Int] = []
    private var counter: UInt64 = 0

    var isEmpty: Bool { heap.isEmpty }
    var count: Int { heap.count }
    var nextTime: UInt64? { heap.first?.time }

    mutating func push(_ item: Item, at time: UInt64) {
        counter += 1
        let slot: Int
        if let s = free.popLast() {
            slot = s
            slab[s] = item
        } else {
            slot = slab.count
            slab.append(item)
        }
        heap.insert(Entry(time: time, order: counter, slot: slot))
    }

    mutating func pop() -> (time: UInt64, item: Item)? {
        guard let top = heap.popFirst() else { return nil }
        let item = slab[top.slot].take()!
        free.append(top.slot)
        return (top.time, item)
    }
}
