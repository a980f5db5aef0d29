/// One check's verdict, in words a field team can act on. Field names are a stable API (`fleetmesh doctor --json`).
public struct DoctorFinding: Codable, Sendable, Equatable {
    public enum Verdict: String, Codable, Sendable, Comparable {
        case ok, warning, failed, skipped

        /// Worse verdicts sort later: `failed` > `warning` > `ok` > `skipped`.
        public static func < (a: Verdict, b: Verdict) -> Bool { a.rank < b.rank }
        var rank: Int {
            switch self {
            case .skipped: 0
            case .ok: 1
            case .warning: 2
            case .failed: 3
            }
        }
    }

    /// The check's stable name: config, key, node, avahi, interfaces, firewall, clock, port, peers.
    public var check: String
    public var verdict: Verdict
    /// What was found.
    public var detail: String
    /// What to do about it (nil when there is nothing to do).
    public var fix: String?

    public init(check: String, verdict: Verdict, detail: String, fix: String? = nil) {
        self.check = check
        self.verdict = verdict
        self.detail = detail
        self.fix = fix
    }
}

/// Everything `fleetmesh doctor` found about one node.
public struct DoctorReport: Codable, Sendable, Equatable {
    /// The config file the checks read.
    public var config: String
    /// The node's name, when the config loaded.
    public var node: String?
    public var findings: [DoctorFinding]

    public init(config: String, node: String?, findings: [DoctorFinding]) {
        self.config = config
        self.node = node
        self.findings = findings
    }

    /// The worst verdict of all.
    public var verdict: DoctorFinding.Verdict { findings.map(\.verdict).max() ?? .ok }

    /// One finding as text: `[ok]      key: …` and, indented, its fix.
    public static func line(_ f: DoctorFinding) -> String {
        let tag = "[\(f.verdict.rawValue)]".padding(toLength: 10, withPad: " ", startingAt: 0)
        var text = "\(tag)\(f.check): \(f.detail)"
        if let fix = f.fix { text += "\n          fix: \(fix)" }
        return text
    }

    /// The closing line: how many checks failed or warned.
    public var summary: String {
        let failed = findings.filter { $0.verdict == .failed }.map(\.check)
        let warned = findings.filter { $0.verdict == .warning }.map(\.check)
        if failed.isEmpty && warned.isEmpty { return "all \(findings.count) checks passed" }
        var parts: [String] = []
        if !failed.isEmpty { parts.append("failed: \(failed.joined(separator: ", "))") }
        if !warned.isEmpty { parts.append("warnings: \(warned.joined(separator: ", "))") }
        return parts.joined(separator: "; ")
    }
}
