import Discovery
import MeshTypes
import Testing

@testable import Node

/// Which browsed DNS-SD records a node with the group channel resolves, and when (PROTOCOL §1.3).
@Suite struct FoundRecordsTests {
    static func key(_ name: String, _ family: AddressFamily = .ipv4) -> ServiceKey {
        ServiceKey(name: name, type: "_fleetmesh._udp", domain: "local", interfaceIndex: 2, family: family)
    }

    static func at(_ seconds: Double) -> MeshInstant { MeshInstant(nanoseconds: UInt64(seconds * 1e9)) }

    /// What `due` returns at `seconds`, looking as the shell does (only when a check is due).
    static func due(
        _ records: inout FoundRecords, at seconds: Double, known: [String: FoundRecords.KnownPeer] = [:],
        hearsGroup: Bool = false, ownName: String? = "me"
    ) -> [String] {
        guard records.isCheckDue(now: at(seconds)) else { return [] }
        return records.due(now: at(seconds), known: known, hearsGroup: hearsGroup, ownName: ownName).map {
            "\($0.key.name)/\($0.key.family.rawValue) \($0.reason)"
        }
    }

    @Test("a record of a node the group has not brought is resolved 5 s after it appeared, once, for each family")
    func unknownWhileTheGroupIsSilent() {
        var records = FoundRecords()
        records.found(Self.key("b"), now: Self.at(0.5))
        records.found(Self.key("b", .ipv6), now: Self.at(0.5))
        records.found(Self.key("b"), now: Self.at(3))  // reported again: the first moment stands
        #expect(Self.due(&records, at: 5.0).isEmpty)
        #expect(
            Self.due(&records, at: 6.0) == ["b/ipv4 unknown(after: 5.0 seconds)", "b/ipv6 unknown(after: 5.0 seconds)"])
        #expect(records.isEmpty)
        #expect(Self.due(&records, at: 60).isEmpty)
    }

    @Test("while the group brings peers, a record of an unknown name waits 30 s")
    func unknownWhileTheGroupIsHeard() {
        var records = FoundRecords()
        records.found(Self.key("forged"), now: Self.at(1))
        for s in stride(from: 2.0, through: 30.0, by: 1) {
            #expect(Self.due(&records, at: s, hearsGroup: true).isEmpty)
        }
        #expect(Self.due(&records, at: 31.0, hearsGroup: true) == ["forged/ipv4 unknown(after: 30.0 seconds)"])
    }

    @Test("a known peer's record waits while it is not lost, and is due once it has been lost 5 s, however new")
    func knownPeers() {
        var records = FoundRecords()
        records.found(Self.key("c"), now: Self.at(0))
        let inSession = ["c": FoundRecords.KnownPeer(lostSince: nil)]
        for s in stride(from: 1.0, through: 40.0, by: 1) {
            #expect(Self.due(&records, at: s, known: inSession).isEmpty)
        }
        let lost = ["c": FoundRecords.KnownPeer(lostSince: Self.at(40.5))]
        #expect(Self.due(&records, at: 45.0, known: lost).isEmpty)
        #expect(Self.due(&records, at: 46.0, known: lost) == ["c/ipv4 lost"])
        // Found while already lost: the loss's length decides, not the record's age.
        records.found(Self.key("d"), now: Self.at(50))
        #expect(Self.due(&records, at: 51, known: ["d": .init(lostSince: Self.at(10))]) == ["d/ipv4 lost"])
    }

    @Test("this node's own record is never resolved; a record resolved or removed meanwhile is not either")
    func ownAndForgotten() {
        var records = FoundRecords()
        records.found(Self.key("me"), now: Self.at(0))
        records.found(Self.key("gone"), now: Self.at(0))
        records.found(Self.key("resolved"), now: Self.at(0))
        records.forget(Self.key("gone"))
        records.forget(Self.key("resolved"))
        #expect(Self.due(&records, at: 10).isEmpty)
        #expect(records.isEmpty)
    }

    @Test("it looks at most once a second, and not at all with nothing waiting")
    func checkInterval() {
        var records = FoundRecords()
        var looks = [records.isCheckDue(now: Self.at(0))]
        records.found(Self.key("b"), now: Self.at(0))
        for s in [0.1, 1.05, 1.1, 1.5, 2.2] { looks.append(records.isCheckDue(now: Self.at(s))) }
        #expect(looks == [false, true, false, true, false, true])
    }
}
