import MeshTypes
import Testing

@testable import SecureTransport

/// The group channel: one sealed datagram every node of the mesh opens, refused for outsiders, replays and echoes.
@Suite struct GroupChannelTests {
    let key = MeshKey.generate()
    let a = NodeID(high: 1, low: 1)
    let b = NodeID(high: 2, low: 2)

    @Test("a datagram sealed by one node opens at another: sender, incarnation and plaintext; 49 bytes of overhead")
    func roundTrip() throws {
        var sender = GroupChannel(meshKey: key, localID: a, incarnation: 7)
        var receiver = GroupChannel(meshKey: key, localID: b, incarnation: 9)
        let d = sender.seal(Array("presence".utf8))
        #expect(d.count == 8 + GroupChannel.overhead && d[0] == 4)
        let opened = try receiver.open(d).get()
        #expect(opened.sender == a && opened.incarnation == 7 && opened.plaintext == Array("presence".utf8))
        // The empty plaintext is a valid datagram too.
        #expect(try receiver.open(sender.seal([])).get().plaintext == [])
    }

    @Test("refused: own echo, a replay, another mesh key, any altered byte, too short, not type 4")
    func refusals() {
        var sender = GroupChannel(meshKey: key, localID: a, incarnation: 7)
        var receiver = GroupChannel(meshKey: key, localID: b, incarnation: 9)
        let d = sender.seal([1, 2, 3])
        #expect(sender.open(d) == .failure(.own))
        _ = receiver.open(d)
        #expect(receiver.open(d) == .failure(.replayed(sender: a, counter: 0)))
        var outsider = GroupChannel(meshKey: MeshKey.generate(), localID: b, incarnation: 9)
        #expect(outsider.open(sender.seal([1])) == .failure(.badTag(claimedSender: a)))
        let fresh = sender.seal([9, 9, 9, 9])
        for i in 1..<fresh.count {
            var altered = fresh
            altered[i] ^= 0x01
            switch receiver.open(altered) {
            case .failure(.badTag), .failure(.replayed): break  // a changed counter may land on one already seen
            default: Issue.record("byte \(i) altered was accepted")
            }
        }
        #expect((try? receiver.open(fresh).get().plaintext) == [9, 9, 9, 9])  // the forgeries moved nothing
        #expect(receiver.open(Array(fresh.prefix(48))) == .failure(.malformed(length: 48)))
        var wrongType = fresh
        wrongType[0] = 3
        #expect(receiver.open(wrongType) == .failure(.malformed(length: fresh.count)))
    }

    @Test("counters are per sender and incarnation: a restart (new incarnation) starts over and is accepted")
    func incarnations() throws {
        var receiver = GroupChannel(meshKey: key, localID: b, incarnation: 9)
        var first = GroupChannel(meshKey: key, localID: a, incarnation: 1)
        var restarted = GroupChannel(meshKey: key, localID: a, incarnation: 2)
        let old = first.seal([1])
        #expect(try receiver.open(old).get().incarnation == 1)
        #expect(try receiver.open(restarted.seal([2])).get().incarnation == 2)  // counter 0 again, another key
        // A datagram of the old incarnation replayed is still a replay (the mesh layer refuses old incarnations).
        #expect(receiver.open(old) == .failure(.replayed(sender: a, counter: 0)))
        // Out of order within the window is fine.
        let (x, y) = (first.seal([3]), first.seal([4]))
        #expect((try? receiver.open(y).get()) != nil && (try? receiver.open(x).get()) != nil)
    }

    @Test("at most senderLimit replay windows are kept; the longest unheard goes first")
    func senderLimit() throws {
        var receiver = GroupChannel(meshKey: key, localID: b, incarnation: 9)
        var keep = GroupChannel(meshKey: key, localID: a, incarnation: 1)
        _ = try receiver.open(keep.seal([0])).get()
        for i in 0..<GroupChannel.senderLimit {
            var other = GroupChannel(meshKey: key, localID: NodeID(high: 3, low: UInt64(i)), incarnation: 1)
            _ = try receiver.open(other.seal([0])).get()
            if i % 100 == 0 { _ = try receiver.open(keep.seal([1])).get() }  // heard now and then: kept
        }
        #expect(receiver.knownSenders == GroupChannel.senderLimit)
        _ = try receiver.open(keep.seal([2])).get()
    }
}
