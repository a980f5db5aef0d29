import Coordinator
import MeshTypes

/// One simulated neighbour link between two nodes.
struct SimLink {
    let a: Int
    let b: Int
    /// Cut by the test or not.
    var adminUp = true
    /// Up, and both ends alive: sessions can exist.
    var usable = false
    /// Bumped on every change of `usable`; messages and session events of an older epoch are void.
    var epoch = 0
    var reportedA = false
    var reportedB = false
    /// Latest scheduled reliable delivery per direction (a→b, b→a), to keep reliable sends in order.
    var lastReliable: (UInt64, UInt64) = (0, 0)

    func connects(_ x: Int, _ y: Int) -> Bool { (a == x && b == y) || (a == y && b == x) }
    func other(_ i: Int) -> Int { i == a ? b : a }
    func reported(_ i: Int) -> Bool { i == a ? reportedA : reportedB }
    mutating func setReported(_ i: Int, _ v: Bool) { if i == a { reportedA = v } else { reportedB = v } }
}

extension MeshSimulation {
    func linkIndex(_ x: Int, _ y: Int) -> Int? {
        linksOf[x].first { links[$0].connects(x, y) }
    }

    /// Recomputes whether a link is usable and schedules the session events the neighbour layer would report.
    func updateLink(_ l: Int) {
        let usable = links[l].adminUp && cores[links[l].a] != nil && cores[links[l].b] != nil
        guard usable != links[l].usable else { return }
        links[l].usable = usable
        links[l].epoch += 1
        let epoch = links[l].epoch
        for end in [links[l].a, links[l].b] where cores[end] != nil {
            if usable {
                schedule(
                    .sessionUp(end, link: l, epoch: epoch), after: network.sessionSetupDelay + jitter(network.jitter))
            } else {
                schedule(
                    .sessionDown(end, link: l, epoch: epoch), after: network.detectionDelay + jitter(network.jitter))
            }
        }
    }

    /// Cuts the link between nodes `x` and `y`.
    public func cut(_ x: Int, _ y: Int) {
        guard let l = linkIndex(x, y) else { return }
        links[l].adminUp = false
        updateLink(l)
    }

    /// Restores the link between nodes `x` and `y`.
    public func restore(_ x: Int, _ y: Int) {
        guard let l = linkIndex(x, y) else { return }
        links[l].adminUp = true
        updateLink(l)
    }

    /// Cuts every link between different groups (nodes not listed form a group of their own).
    public func partition(_ groups: [[Int]]) {
        var group = Array(repeating: -1, count: specs.count)
        for (g, members) in groups.enumerated() { for m in members { group[m] = g } }
        for l in links.indices where group[links[l].a] != group[links[l].b] || group[links[l].a] == -1 {
            links[l].adminUp = false
            updateLink(l)
        }
    }

    /// Restores every link.
    public func healAllLinks() {
        for l in links.indices where !links[l].adminUp {
            links[l].adminUp = true
            updateLink(l)
        }
    }

    /// Index pairs of links currently cut by the test.
    public var cutLinks: [(Int, Int)] { links.filter { !$0.adminUp }.map { ($0.a, $0.b) } }

    /// Index pairs of all links.
    public var allLinks: [(Int, Int)] { links.map { ($0.a, $0.b) } }

    /// Puts a message from node `from` on the wire to neighbour `to`.
    func transmit(_ message: CoordinatorMessage, from: Int, to peer: NodeID, reliability: Reliability) {
        guard let to = indexOf[peer], let l = linkIndex(from, to) else {
            violate("node \(from) sent to \(peer), which is not a neighbour")
            return
        }
        guard links[l].usable else { return }
        if case .linkState = message { linkStateSends[[from, to], default: 0] += 1 }
        let form: WireForm
        if network.encodeOnWire {
            let (type, payload) = message.encode()
            form = .bytes(type, payload)
        } else {
            form = .value(message)
        }
        let delay = network.latency + jitter(network.jitter)
        let event = SimEvent.deliver(to: to, from: from, link: l, epoch: links[l].epoch, form)
        switch reliability {
        case .reliable:
            var t = (now + delay).nanoseconds
            if from == links[l].a {
                t = max(t, links[l].lastReliable.0)
                links[l].lastReliable.0 = t
            } else {
                t = max(t, links[l].lastReliable.1)
                links[l].lastReliable.1 = t
            }
            queue.push(event, at: t)
        case .unreliable:
            guard !rng.chance(network.unreliableLoss) else { return }
            schedule(event, after: delay)
            if rng.chance(network.duplication) { schedule(event, after: delay + jitter(network.jitter)) }
        }
    }

    /// Carries out one directive of node `i`.
    func carryOut(_ d: Directive, at i: Int) {
        switch d {
        case .send(let m, let to, let reliability):
            transmit(m, from: i, to: to, reliability: reliability)
            return
        case .persistUAVNumber(let n):
            persisted[i] = n
        case .executeCommand(let id, let command):
            executeOnVehicle(i, id, command)
        case .commandAnswer(let id, let a):
            answers[id, default: []].append(a)
            answerTimes[id, default: []].append(now)
            if a == .accepted || a == .completed {
                // Acknowledged: the vehicle must have run it exactly once by now.
                let n = executionCount(id)
                if n != 1 { violate("command \(id) acknowledged (\(a)) but executed \(n) times") }
            }
        case .failsafe(let action):
            vehicles[i].failsafeActions.append(action)
        case .applyTarget:
            vehicles[i].targetsApplied += 1
        case .applyManualControl:
            vehicles[i].manualControlsApplied += 1
        case .numberAnnounced:
            return
        default:
            break
        }
        if recordsDirectives { log.append(LoggedDirective(time: now, node: i, directive: d)) }
    }
}
