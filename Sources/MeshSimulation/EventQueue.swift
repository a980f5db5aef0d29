/// A min-heap of timed items; equal times come out in insertion order, so runs are reproducible.
/// The heap orders small (time, order, slot) entries; the items themselves stay put in a slab.
struct EventQueue<Item> {
    private struct Entry {
        var time: UInt64
        var order: UInt64
        var slot: Int
        func before(_ o: Entry) -> Bool { time < o.time || (time == o.time && order < o.order) }
    }

    private var heap: [Entry] = []
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
        heap.append(Entry(time: time, order: counter, slot: slot))
        var i = heap.count - 1
        while i > 0 {
            let p = (i - 1) / 2
            guard heap[i].before(heap[p]) else { break }
            heap.swapAt(i, p)
            i = p
        }
    }

    mutating func pop() -> (time: UInt64, item: Item)? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let top = heap.removeLast()
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < heap.count && heap[l].before(heap[m]) { m = l }
            if r < heap.count && heap[r].before(heap[m]) { m = r }
            guard m != i else { break }
            heap.swapAt(i, m)
            i = m
        }
        let item = slab[top.slot].take()!
        free.append(top.slot)
        return (top.time, item)
    }
}
