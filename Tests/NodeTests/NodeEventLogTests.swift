import ControlProtocol
import Testing

@testable import Node

/// The node's event log keeps the newest events, numbered without gaps, and pages through them oldest first.
@Suite struct NodeEventLogTests {
    func log(_ count: Int, capacity: Int) -> NodeEventLog {
        var log = NodeEventLog(capacity: capacity)
        for i in 1...count { log.record(kind: "peer", level: "info", text: "e\(i)", timeMs: Int64(i)) }
        return log
    }

    @Test func pagesOldestFirstFromWhereTheCallerLeftOff() {
        let l = log(5, capacity: 10)
        #expect(l.page(after: 0, limit: 200).events.map(\.text) == ["e1", "e2", "e3", "e4", "e5"])
        #expect(l.page(after: 2, limit: 2).events.map(\.seq) == [3, 4])
        #expect(l.page(after: 5, limit: 10).events.isEmpty)
        #expect(l.page(after: 99, limit: 10).events.isEmpty)
        #expect(l.page(after: 0, limit: 1).latest == 5 && l.page(after: 0, limit: 1).droppedThrough == 0)
    }

    @Test func keepsOnlyTheNewestAndSaysWhatWasDropped() {
        let l = log(23, capacity: 10)
        let all = l.page(after: 0, limit: 1000)
        #expect(all.events.map(\.seq) == Array(14...23))
        #expect(all.droppedThrough == 13 && all.latest == 23)
        #expect(l.page(after: 20, limit: 1000).events.map(\.text) == ["e21", "e22", "e23"])
        #expect(l.page(after: 15, limit: 3).events.map(\.seq) == [16, 17, 18])
    }
}
