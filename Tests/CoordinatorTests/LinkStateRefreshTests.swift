import MeshTypes
import Testing

@testable import Coordinator

@Suite("Link-state refreshes without contents")
struct LinkStateRefreshTests {
    /// Stations 0—1—2—3 in a line, settled.
    static func line() -> Pump {
        var p = Pump((0..<4).map { (.station, "N\($0)", pinned: nil, persisted: nil) })
        p.link(0, 1)
        p.link(1, 2)
        p.link(2, 3)
        p.advance(.milliseconds(600))
        return p
    }

    static func refreshes(_ ds: [Directive]) -> [LinkStateRefresh] {
        ds.compactMap { if case .send(.linkStateRefresh(let r), _, .unreliable) = $0 { r } else { nil } }
    }

    static func advertisements(_ ds: [Directive]) -> [LinkStateAdvertisement] {
        ds.compactMap { if case .send(.linkState(let lsa), _, _) = $0 { lsa } else { nil } }
    }

    @Test(
        "the codec: 40 bytes each way; a refresh whose contents date from after it, or one cut short, is refused by name"
    )
    func codec() throws {
        let refresh = LinkStateRefresh(
            origin: NodeID(high: 7, low: 8), incarnation: 9, sequence: 12, unchangedSince: 10)
        let (type, payload) = CoordinatorMessage.linkStateRefresh(refresh).encode()
        #expect(type == 0x4C04 && payload.count == 40)
        #expect(try CoordinatorMessage(type: type, payload: payload) == .linkStateRefresh(refresh))
        var after = refresh
        after.unchangedSince = 13
        let bad = CoordinatorMessage.linkStateRefresh(after).encode().payload
        #expect(throws: WireError("refresh.unchangedSince: 13 is after the sequence number 12")) {
            try CoordinatorMessage(type: type, payload: bad)
        }
        #expect(throws: WireError.self) { try CoordinatorMessage(type: type, payload: Array(payload.prefix(39))) }
        #expect(throws: WireError.self) { try CoordinatorMessage(type: type, payload: payload + [0]) }
    }

    @Test(
        "an unchanged advertisement is refreshed without its contents, and every node along the line takes the new sequence number"
    )
    func refreshCrossesTheLineWithoutContents() {
        var p = Self.line()
        let before = p.cores[3].advertisement(of: p.id(0))!
        // Node 0's refresh is due 10 s after its last origination.
        var sent: [Directive] = []
        for _ in 0..<110 {
            p.now = p.now + .milliseconds(100)
            let out = p.cores[0].onTick(now: p.now)
            sent += out
            p.handle(0, out)
            for i in 1..<4 { p.handle(i, p.cores[i].onTick(now: p.now)) }
            p.drain()
        }
        let notes = Self.refreshes(sent)
        #expect(!notes.isEmpty && Self.advertisements(sent).isEmpty, "node 0 sent \(sent)")
        #expect(notes.allSatisfy { $0.origin == p.id(0) && $0.unchangedSince == before.sequence })
        let after = p.cores[3].advertisement(of: p.id(0))!
        #expect(after.sequence == notes.last!.sequence && after.sequence > before.sequence)
        var same = after
        same.sequence = before.sequence
        #expect(same == before, "only the sequence number moved")
    }

    @Test(
        "a node holding contents older than a refresh stands for, or none, asks the sender for the advertisement, once a second; one holding them takes it silently"
    )
    func refreshOfContentsNotHeldIsAskedFor() {
        var p = Self.line()
        let held = p.cores[2].advertisement(of: p.id(0))!
        // Contents unchanged since the sequence held: taken, and passed on to node 3 (node 2 relays in a line).
        let covered = LinkStateRefresh(held, unchangedSince: held.sequence)
        var next = covered
        next.sequence += 1
        let out = p.cores[2].onMessage(.linkStateRefresh(next), from: p.id(1), now: p.now)
        #expect(p.cores[2].advertisement(of: p.id(0))?.sequence == next.sequence)
        #expect(!out.contains { if case .send(.linkStateRequest, _, _) = $0 { true } else { false } })
        // The same again: nothing.
        #expect(p.cores[2].onMessage(.linkStateRefresh(next), from: p.id(1), now: p.now).isEmpty)
        // Contents changed after what node 2 holds: asked for whole from the sender, the held copy unchanged.
        var changed = next
        changed.sequence += 5
        changed.unchangedSince = next.sequence + 2
        let asked = p.cores[2].onMessage(.linkStateRefresh(changed), from: p.id(1), now: p.now)
        #expect(asked == [.send(.linkStateRequest(.init(origins: [p.id(0)])), to: p.id(1), reliability: .reliable)])
        #expect(p.cores[2].advertisement(of: p.id(0))?.sequence == next.sequence)
        // Another incarnation, or an origin not held at all: asked for too.
        var reborn = next
        reborn.incarnation += 1
        reborn.sequence += 10
        // (a second later: node 0's advertisement was just asked for)
        #expect(
            p.cores[2].onMessage(.linkStateRefresh(reborn), from: p.id(3), now: p.now + .seconds(1)).count == 1)
        let stranger = LinkStateRefresh(
            origin: NodeID(high: 5, low: 5), incarnation: 1, sequence: 3, unchangedSince: 1)
        #expect(
            p.cores[2].onMessage(.linkStateRefresh(stranger), from: p.id(3), now: p.now) == [
                .send(.linkStateRequest(.init(origins: [stranger.origin])), to: p.id(3), reliability: .reliable)
            ])
        // The same refresh passed on by another relay within the second: not asked for again; after it, again.
        #expect(p.cores[2].onMessage(.linkStateRefresh(stranger), from: p.id(1), now: p.now).isEmpty)
        let later = p.now + .milliseconds(1_000)
        #expect(p.cores[2].onMessage(.linkStateRefresh(stranger), from: p.id(1), now: later).count == 1)
    }

    @Test("an advertisement whose contents went back to what a node holds is passed on as unchanged only since itself")
    func contentsChangedAndChangedBackAreNotVouchedFor() {
        var p = Self.line()
        let held = p.cores[2].advertisement(of: p.id(0))!
        // Node 2 missed a version in between; the one it now gets whole looks like its own copy.
        var back = held
        back.sequence += 2
        let out = p.cores[2].onMessage(.linkState(back), from: p.id(1), now: p.now)
        let notes = Self.refreshes(out)
        // Passed on without contents (a refresh to node 2), but vouching only from its own sequence number: node 3,
        // which may hold the version in between, asks for it instead of taking the number.
        #expect(!notes.isEmpty && notes.allSatisfy { $0.unchangedSince == back.sequence }, "\(out)")
    }

    @Test("a change of contents the core was not told of goes whole, never as a refresh")
    func unflaggedChangeGoesWhole() {
        var p = Self.line()
        // A neighbour listed without the flag that a change of neighbours sets.
        p.cores[0].neighbours.append(p.id(3))
        var sent: [Directive] = []
        for _ in 0..<110 {
            p.now = p.now + .milliseconds(100)
            sent += p.cores[0].onTick(now: p.now)
        }
        #expect(Self.refreshes(sent).isEmpty)
        #expect(Self.advertisements(sent).contains { $0.neighbours.contains(p.id(3)) })
    }
}
