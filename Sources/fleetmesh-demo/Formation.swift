import LabKit

/// Watches the mesh form: every peer state change any node sees, with that node's own timing. Returns when every node
/// is in session with every other (the time since the demo's start), nil if that did not happen within 20 s or Ctrl-C
/// came first.
func watchTheMeshForm(_ nodes: [NodeProcess]) async throws -> Duration? {
    var formedAt: Duration?
    var seen: [String: String] = [:]
    while formedAt == nil, clock.now - start < .seconds(20), !stopRequested.isSet {
        var complete = true
        for node in nodes {
            guard let status = try? node.status() else {
                complete = false
                continue
            }
            for peer in status.peers {
                let key = "\(node.name)>\(peer.id)"
                let peerName = peer.name ?? String(peer.id.prefix(8))
                if seen[key] != peer.state {
                    seen[key] = peer.state
                    switch peer.state {
                    case "established":
                        let t = peer.establishedAtMs.map { "\($0) ms after \(node.name) started" } ?? ""
                        say(
                            "\(node.name.padding(toLength: 9, withPad: " ", startingAt: 0)) ⇄ \(peerName): encrypted session established (\(t))"
                        )
                    case "discovered", "handshaking":
                        if peer.state == "handshaking" {
                            say(
                                "\(node.name.padding(toLength: 9, withPad: " ", startingAt: 0)) → \(peerName): found over mDNS at \(peer.address ?? "?"), handshaking"
                            )
                        }
                    default:
                        say("\(node.name) sees \(peerName): \(peer.state)")
                    }
                }
            }
            if status.peers.filter({ $0.state == "established" }).count < nodes.count - 1 { complete = false }
        }
        if complete { formedAt = clock.now - start } else { try await Task.sleep(for: .milliseconds(20)) }
    }
    return formedAt
}
