import Coordinator
import MeshCore
import MeshTypes
import SecureTransport

extension LinkOutageSimulation {
    /// What one run is made of.
    public struct Spec: Sendable {
        public var seed: UInt64
        public var nodes: Int = 3
        /// Outage episodes, one after the other (each 1–3 outages, overlapping).
        public var episodes: Int = 8
        /// Forget interval of the membership (short, so outages longer than it are affordable).
        public var forgetAfter: Duration = .seconds(20)
        /// The sessions' timings (rekey at 120 s, dead at 180 s by default).
        public var transport: SecureTransportConfiguration = .default
        /// How long the mesh has to form before the first episode.
        public var settle: Duration = .seconds(5)
        /// One-way delivery time, drawn uniformly.
        public var latency: ClosedRange<Int> = 1...25  // ms
        /// Share of datagrams duplicated (the copy arrives later).
        public var duplication: Double = 0.01
        /// Share of datagrams lost on every link, outside the outages too.
        public var loss: Double = 0
        /// Back in session with a message each way within this of the heal.
        public var bound: Duration = .seconds(1)
        /// The segment's group channel (every node hears every group datagram whose link is not out), or none.
        public var group: GroupSettings?
        /// Print every peer-state change (replaying a failing seed).
        public var trace = false

        public init(seed: UInt64) { self.seed = seed }

        /// The field's timings scaled down so that one seed costs a few simulated seconds: forget after 3 s,
        /// rekey at 3 s, sessions dead at 5 s, so that every episode's outages still range from shorter than loss
        /// detection to longer than the forget interval and the session lifetime, and sessions rekey during the
        /// run. One episode; a third of the seeds lose 2 % or 5 % of all datagrams, where a lost handshake costs one
        /// probe interval (500 ms) each time, so the bound is 3 s there and 1 s without loss. A thousand of these
        /// run in every `make test`.
        public static func compressed(seed: UInt64) -> Spec {
            var spec = Spec(seed: seed)
            spec.nodes = seed % 5 == 0 ? 4 : 3
            spec.episodes = 1
            spec.forgetAfter = .seconds(3)
            spec.transport = SecureTransportConfiguration(
                rekeyAfter: .seconds(3), responderRekeyAfter: .milliseconds(3500), rejectAfter: .seconds(5))
            spec.settle = .seconds(2)
            switch seed % 9 {
            case 1: spec.loss = 0.02
            case 4: spec.loss = 0.05
            case 7: spec.loss = 0.05
            default: spec.loss = 0
            }
            spec.bound = spec.loss > 0 ? .seconds(3) : .seconds(1)
            // Half the seeds run with the group channel: presence and floods by group, unicast only where it fails.
            if seed % 2 == 1 { spec.group = GroupSettings() }
            return spec
        }
    }

    /// One heal and how long the pair took to recover.
    public struct Recovery: Sendable, CustomStringConvertible {
        public var pair: (Int, Int)
        public var outage: Duration
        public var oneWay: Bool
        /// Heal → both sides `established`.
        public var inSession: Duration?
        /// Heal → a reliable message sent at the heal delivered each way.
        public var messagesFlowing: Duration?
        /// Heal → a station command to every drone answered `completed`.
        public var commandsFlowing: Duration?
        public var description: String {
            let dir = oneWay ? "one way" : "both ways"
            return "pair \(pair) outage \(outage) \(dir): in session \(inSession.map { "\($0)" } ?? "never"), "
                + "messages \(messagesFlowing.map { "\($0)" } ?? "never"), "
                + "commands \(commandsFlowing.map { "\($0)" } ?? "never")"
        }
    }

    public struct Result: Sendable {
        public var recoveries: [Recovery] = []
        public var failures: [String] = []
        /// Virtual time simulated.
        public var simulated: Duration = .zero
        /// Sessions rekeyed (either side) during the run.
        public var rekeys = 0
    }
}
