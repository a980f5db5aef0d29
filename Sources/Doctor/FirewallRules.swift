/// The filter table of `iptables-save` / `ip6tables-save`, asked one question: does a UDP datagram to a port get
/// through a chain (INPUT for what peers send, OUTPUT for what the node sends)?
///
/// Only what decides plain UDP is read: `-p`, `--dport`/`--dports` (ports, ranges, lists), `-i`/`-o` (loopback rules
/// never apply to the mesh), connection state (rules for ESTABLISHED/RELATED only do not pass new flows), jumps to
/// ACCEPT, DROP, REJECT, RETURN and user chains, and each chain's policy. A rule with any other condition (a source
/// address, a mark, a module not listed) may or may not apply: a DROP among them is reported as "may drop", an ACCEPT
/// is not counted on.
public struct FirewallRules: Sendable {
    public struct Rule: Sendable, Equatable {
        public var text: String
        public var protocolName: String?
        public var ports: [ClosedRange<Int>]?
        public var loopbackOnly = false
        public var newFlows = true
        public var uncertain = false
        public var target: String?
    }

    public private(set) var policies: [String: String] = [:]
    public private(set) var chains: [String: [Rule]] = [:]

    /// Reads the `*filter` table of `text`; other tables are skipped.
    public init(save text: String) {
        var inFilter = false
        for raw in text.split(separator: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("*") {
                inFilter = line == "*filter"
                continue
            }
            guard inFilter else { continue }
            if line.hasPrefix(":") {
                let parts = line.dropFirst().split(separator: " ")
                if parts.count >= 2 { policies[String(parts[0])] = String(parts[1]) }
                chains[String(parts.first ?? ""), default: []] += []
            } else if line.hasPrefix("-A ") {
                let words = line.split(separator: " ").map(String.init)
                guard words.count >= 2 else { continue }
                chains[words[1], default: []].append(Self.rule(words: Array(words.dropFirst(2)), text: line))
            }
        }
    }

    static func rule(words: [String], text: String) -> Rule {
        var rule = Rule(text: text)
        var i = 0
        var negate = false
        func value() -> String? {
            i += 1
            return i < words.count ? words[i] : nil
        }
        while i < words.count {
            let w = words[i]
            switch w {
            case "!":
                negate = true
                i += 1
                continue
            case "-p", "--protocol":
                let p = value()?.lowercased()
                if negate { rule.uncertain = true } else { rule.protocolName = p == "17" ? "udp" : p }
            case "--dport", "--destination-port", "--dports", "--destination-ports":
                let ranges = (value() ?? "").split(separator: ",").compactMap(Self.portRange)
                if negate { rule.uncertain = true } else { rule.ports = ranges }
            case "-i", "--in-interface", "-o", "--out-interface":
                let name = value() ?? ""
                if name == "lo" && !negate { rule.loopbackOnly = true } else { rule.uncertain = true }
            case "--state", "--ctstate":
                let states = Set((value() ?? "").split(separator: ",").map(String.init))
                if negate {
                    rule.newFlows = states.contains("NEW") ? false : true
                } else if !states.contains("NEW") && !states.contains("UNTRACKED") {
                    rule.newFlows = false
                }
            case "-m", "--match":
                let module = value() ?? ""
                if !["udp", "tcp", "state", "conntrack", "multiport", "comment"].contains(module) {
                    rule.uncertain = true
                }
            case "--comment":
                // A comment's text may hold spaces, quoted: skip to its closing quote.
                if let v = value(), v.hasPrefix("\"") && !(v.count > 1 && v.hasSuffix("\"")) {
                    while i + 1 < words.count && !words[i].hasSuffix("\"") { i += 1 }
                }
            case "-j", "--jump", "-g", "--goto":
                rule.target = value()
            case "--reject-with", "--log-prefix", "--log-level":
                _ = value()
            case "-c":
                _ = value()
                _ = value()
            default:
                // Sources, destinations, marks, limits and anything else: the rule may or may not apply.
                rule.uncertain = true
                if w.hasPrefix("-") && i + 1 < words.count && !words[i + 1].hasPrefix("-") { i += 1 }
            }
            negate = false
            i += 1
        }
        return rule
    }

    static func portRange(_ text: Substring) -> ClosedRange<Int>? {
        let ends = text.split(separator: ":", omittingEmptySubsequences: false)
        if ends.count == 1, let p = Int(ends[0]) { return p...p }
        guard ends.count == 2 else { return nil }
        let low = ends[0].isEmpty ? 0 : Int(ends[0])
        let high = ends[1].isEmpty ? 65535 : Int(ends[1])
        guard let low, let high, low <= high else { return nil }
        return low...high
    }

    /// What happens to a new UDP flow to `port` in `chain`.
    public enum Outcome: Sendable, Equatable {
        case accepted(by: String?)
        case dropped(by: String)
        /// Passed, but a rule with conditions this check cannot judge may drop it.
        case mayBeDropped(by: String)
    }

    public func udp(toPort port: Int, chain: String) -> Outcome {
        var doubtful: String?
        switch walk(chain: chain, port: port, depth: 0, doubtful: &doubtful) {
        case .some(let verdict): return verdict
        case .none:
            let policy = policies[chain] ?? "ACCEPT"
            if policy == "DROP" || policy == "REJECT" { return .dropped(by: "the \(chain) chain's policy \(policy)") }
            return doubtful.map { .mayBeDropped(by: $0) } ?? .accepted(by: nil)
        }
    }

    /// The chain's decision, or nil when it falls through (to its caller or its policy).
    private func walk(chain: String, port: Int, depth: Int, doubtful: inout String?) -> Outcome? {
        guard depth < 16, let rules = chains[chain] else { return nil }
        for rule in rules {
            if rule.loopbackOnly || !rule.newFlows { continue }
            if let p = rule.protocolName, p != "udp" && p != "all" { continue }
            if let ports = rule.ports, !ports.contains(where: { $0.contains(port) }) { continue }
            guard let target = rule.target else { continue }
            switch target {
            case "ACCEPT":
                if rule.uncertain { continue }
                return doubtful.map { .mayBeDropped(by: $0) } ?? .accepted(by: rule.text)
            case "DROP", "REJECT":
                if rule.uncertain {
                    if doubtful == nil { doubtful = rule.text }
                    continue
                }
                return .dropped(by: rule.text)
            case "RETURN":
                if rule.uncertain { continue }
                return nil
            case "LOG", "NFLOG", "ULOG", "MARK", "CONNMARK", "NOTRACK", "CT", "TRACE":
                continue
            default:
                if chains[target] != nil,
                    let verdict = walk(chain: target, port: port, depth: depth + 1, doubtful: &doubtful)
                {
                    if rule.uncertain, case .dropped(let by) = verdict {
                        if doubtful == nil { doubtful = by }
                        continue
                    }
                    return verdict
                }
            }
        }
        return nil
    }
}
