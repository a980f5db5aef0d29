import Discovery
import MeshTypes

/// Peers' DNS-SD records browsed and not resolved yet, for a node with the group channel, and which are due to be
/// resolved (PROTOCOL §1.3). Pure: time is passed in, and the shell resolves what `due` returns.
///
/// Every node announces itself on the group from its start and is dialled from there, and each resolution costs every
/// avahi-daemon on the link queries and answers (for a fleet forming at once, work in proportion to N² for every
/// daemon; BENCHMARKS §10.22). So a record is resolved only if no peer of its instance name is known
/// `whileGroupSilent` after it appeared while the group brings this node nobody (its group is blocked: it dials the
/// others, and one side dialling is enough for a session), or `whileGroupHeard` after while it does (then a node still
/// unknown is on its way, or another mesh's, or a forged advert); a known peer's record once that peer has been lost
/// `lostFor`; this node's own record never.
struct FoundRecords {
    static let whileGroupSilent: Duration = .seconds(5)
    static let whileGroupHeard: Duration = .seconds(30)
    /// The same as for records already resolved (`NodeShell.followLostPeers`).
    static let lostFor: Duration = NodeShell.followLostAfter
    /// How often `due` looks.
    static let checkInterval: Duration = .seconds(1)

    /// A peer of the mesh known by name: since when it has been lost (nil: it is not lost).
    struct KnownPeer: Equatable {
        var lostSince: MeshInstant?
    }

    /// Why a record is due.
    enum Reason: Equatable {
        /// No peer of its name is known this long after it appeared.
        case unknown(after: Duration)
        /// Its peer has been lost `lostFor`.
        case lost
    }

    /// Each record not resolved yet, and when it appeared.
    private(set) var since: [ServiceKey: MeshInstant] = [:]
    private var checkedAt: MeshInstant?

    var isEmpty: Bool { since.isEmpty }

    /// A browse result appeared (a second report of it keeps the first moment).
    mutating func found(_ key: ServiceKey, now: MeshInstant) {
        if since[key] == nil { since[key] = now }
    }

    /// Resolved, or removed from the link: no longer waiting.
    mutating func forget(_ key: ServiceKey) {
        since[key] = nil
    }

    /// The daemon went away: browsing starts over when it is back.
    mutating func removeAll() {
        since.removeAll()
    }

    /// Whether `due` should look now: something waits and it last looked `checkInterval` ago or more (it then counts
    /// as having looked).
    mutating func isCheckDue(now: MeshInstant) -> Bool {
        guard !since.isEmpty, checkedAt.map({ now - $0 >= Self.checkInterval }) ?? true else { return false }
        checkedAt = now
        return true
    }

    /// The records to resolve now, oldest first, each taken out. `known`: the peers known by name; `hearsGroup`:
    /// whether the group brings this node any peer; `ownName`: the name this node's own record was published under.
    mutating func due(
        now: MeshInstant, known: [String: KnownPeer], hearsGroup: Bool, ownName: String?
    ) -> [(key: ServiceKey, reason: Reason)] {
        let after = hearsGroup ? Self.whileGroupHeard : Self.whileGroupSilent
        var out: [(key: ServiceKey, reason: Reason)] = []
        for (key, appeared) in since.sorted(by: { ($0.value, $0.key.description) < ($1.value, $1.key.description) }) {
            if key.name == ownName {
                since[key] = nil
                continue
            }
            if let peer = known[key.name] {
                guard let lost = peer.lostSince, now - lost >= Self.lostFor else { continue }
                out.append((key, .lost))
            } else {
                guard now - appeared >= after else { continue }
                out.append((key, .unknown(after: after)))
            }
            since[key] = nil
        }
        return out
    }
}
