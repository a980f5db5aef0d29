import MeshTypes
import Testing

@testable import Coordinator

@Suite("Link-state database summaries")
struct DatabaseSummaryTests {
    /// Stations 0—1—2 in a line and 3—4 beside them, each settled.
    static func twoGroups() -> Pump {
        var p = Pump((0..<5).map { (.station, "N\($0)", pinned: nil, persisted: nil) })
        p.link(0, 1)
        p.link(1, 2)
        p.link(3, 4)
        p.advance(.milliseconds(600))
        return p
    }

    static func advertisements(_ ds: [Directive]) -> [LinkStateAdvertisement] {
        ds.compactMap { if case .send(.linkState(let lsa), _, _) = $0 { lsa } else { nil } }
    }

    @Test("a new session sends a summary of the database, not the advertisements in it")
    func sessionUpSendsASummary() {
        var p = Self.twoGroups()
        let out = p.cores[2].onNeighbourUp(p.id(3), now: p.now)
        let summaries = out.compactMap { d -> LinkStateSummary? in
            if case .send(.linkStateSummary(let s), let to, .reliable) = d, to == p.id(3) { s } else { nil }
        }
        #expect(summaries.count == 1)
        // Its own entry first, then what it holds: nodes 0 and 1, at the versions it holds.
        #expect(summaries.first?.entries.map(\.origin) == [p.id(2), p.id(0), p.id(1)])
        #expect(summaries.first?.entries[1].sequence == p.cores[2].advertisement(of: p.id(0))?.sequence)
        // Of advertisements, only its own goes (to node 3, and to node 1 with the new neighbour in it).
        #expect(Set(Self.advertisements(out).map(\.origin)) == [p.id(2)])
    }

    @Test("a summary is answered by asking for what it lists newer or unknown, and nothing else")
    func summaryAnsweredByARequest() {
        var p = Self.twoGroups()
        let n0 = p.cores[2].advertisement(of: p.id(0))!
        let n1 = p.cores[2].advertisement(of: p.id(1))!
        // The sender lists itself and node 3 (unknown here), node 0 as held here, node 1 newer.
        let summary = LinkStateSummary(entries: [
            .init(origin: p.id(4), incarnation: 104, sequence: 1), .init(n0),
            .init(origin: n1.origin, incarnation: n1.incarnation, sequence: n1.sequence + 1),
            .init(origin: p.id(3), incarnation: 103, sequence: 1),
        ])
        let out = p.cores[2].onMessage(.linkStateSummary(summary), from: p.id(4), now: p.now)
        #expect(Self.advertisements(out).isEmpty)
        #expect(
            out == [
                .send(
                    .linkStateRequest(.init(origins: [p.id(4), p.id(1), p.id(3)])), to: p.id(4), reliability: .reliable)
            ])
        // A summary listing nothing newer asks for nothing.
        let behind = LinkStateSummary(entries: [n0, n1].map { .init(origin: $0.origin, incarnation: 1, sequence: 1) })
        #expect(p.cores[2].onMessage(.linkStateSummary(behind), from: p.id(4), now: p.now).isEmpty)
        // A request is answered with what is held, its own advertisement as it stands; an unknown origin is skipped.
        let request = LinkStateRequest(origins: [p.id(0), p.id(2), NodeID(high: 9, low: 9)])
        let answer = Self.advertisements(p.cores[2].onMessage(.linkStateRequest(request), from: p.id(1), now: p.now))
        #expect(answer.map(\.origin) == [p.id(0), p.id(2)])
        #expect(answer.first == n0)
    }

    @Test("a summary goes in parts of at most 32 entries and the request in parts of at most 64 origins")
    func partsFitADatagram() {
        // A station with 80 drones next to it, and a drone whose session with it comes up last.
        var p = Pump(
            [(.station, "S", pinned: nil, persisted: nil)]
                + (1...81).map { (.drone, "D\($0)", pinned: nil, persisted: nil) })
        for i in 1...80 { p.link(0, i) }
        p.advance(.milliseconds(600))
        let out = p.cores[0].onNeighbourUp(p.id(81), now: p.now)
        let parts = out.compactMap { d -> LinkStateSummary? in
            if case .send(.linkStateSummary(let s), let to, .reliable) = d, to == p.id(81) { s } else { nil }
        }
        #expect(parts.map(\.entries.count) == [32, 32, 17])
        let listed = parts.flatMap(\.entries).map(\.origin)
        #expect(listed == [p.id(0)] + p.cores[0].database.keys.sorted())
        #expect(Set(listed).count == 81)
        // Every part encodes within the mesh layer's datagram budget.
        for part in parts { #expect(CoordinatorMessage.linkStateSummary(part).encode().payload.count <= 1_100) }
        // The new drone knows none of them: its requests list all 81, at most 64 each.
        var requested: [NodeID] = []
        var requestSizes: [Int] = []
        for part in parts {
            for d in p.cores[81].onMessage(.linkStateSummary(part), from: p.id(0), now: p.now) {
                if case .send(.linkStateRequest(let r), p.id(0), .reliable) = d {
                    requested += r.origins
                    requestSizes.append(r.origins.count)
                }
            }
        }
        #expect(requestSizes.allSatisfy { $0 <= 64 })
        #expect(Set(requested) == Set(listed))
        let big = LinkStateSummary(entries: listed.map { .init(origin: $0, incarnation: 1, sequence: 1) })
        let asked = p.cores[81].onMessage(.linkStateSummary(big), from: p.id(0), now: p.now).compactMap { d -> Int? in
            if case .send(.linkStateRequest(let r), _, _) = d { r.origins.count } else { nil }
        }
        #expect(asked == [64, 17])
    }

    @Test("after two groups join, every node holds every advertisement and routes to every node")
    func groupsJoin() {
        var p = Self.twoGroups()
        p.link(2, 3)
        p.advance(.milliseconds(600))
        for i in 0..<5 {
            for j in 0..<5 where j != i {
                #expect(p.cores[i].advertisement(of: p.id(j)) != nil, "node \(i) lacks node \(j)'s advertisement")
                #expect(p.cores[i].route(to: p.id(j)).map { Int($0.hops) } == abs(i - j), "node \(i) → node \(j)")
            }
        }
    }

    @Test("an entry for the node itself from an earlier life makes it jump past that sequence")
    func ownEntryFromAnEarlierLife() {
        var p = Self.twoGroups()
        let before = p.cores[2].ownSequence
        let earlier = LinkStateSummary(entries: [.init(origin: p.id(2), incarnation: 7, sequence: before + 50)])
        _ = p.cores[2].onMessage(.linkStateSummary(earlier), from: p.id(1), now: p.now)
        p.advance(.milliseconds(100))
        #expect(p.cores[1].advertisement(of: p.id(2))!.sequence > before + 50)
        // Its current life's own entry, not newer, changes nothing.
        let now = p.cores[2].ownSequence
        let current = LinkStateSummary(entries: [.init(origin: p.id(2), incarnation: 102, sequence: now)])
        _ = p.cores[2].onMessage(.linkStateSummary(current), from: p.id(1), now: p.now)
        p.advance(.milliseconds(100))
        #expect(p.cores[2].ownSequence == now)
    }

    @Test("summaries survive the codec; malformed ones are refused with the field named")
    func codec() throws {
        let s = LinkStateSummary(entries: [
            .init(origin: NodeID(high: 1, low: 2), incarnation: 3, sequence: 4),
            .init(origin: NodeID(high: 5, low: 6), incarnation: 7, sequence: 8),
        ])
        let (type, payload) = CoordinatorMessage.linkStateSummary(s).encode()
        #expect(type == 0x4C02)
        #expect(payload.count == 2 + 2 * 32)
        #expect(try CoordinatorMessage(type: type, payload: payload) == .linkStateSummary(s))
        let request = CoordinatorMessage.linkStateRequest(.init(origins: [NodeID(high: 1, low: 2)]))
        let (rt, rp) = request.encode()
        #expect(rt == 0x4C03 && rp.count == 2 + 16)
        #expect(try CoordinatorMessage(type: rt, payload: rp) == request)
        #expect(throws: WireError.self) { try CoordinatorMessage(type: rt, payload: rp + [0]) }
        #expect(throws: WireError.self) { try CoordinatorMessage(type: type, payload: Array(payload.dropLast())) }
        do {
            _ = try CoordinatorMessage(type: type, payload: [0xFF, 0xFF])
            Issue.record("a count of 65,535 decoded")
        } catch {
            #expect("\(error)".contains("summary.count"))
        }
    }
}
