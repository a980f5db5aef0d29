import Coordinator
import MeshTypes

/// The subscribing side of the loc-broadcaster protocol, without I/O: a FleetMesh node that found target sources
/// (over DNS-SD, or configured statically) asks each of them every second to stream to it, and turns the
/// authenticated target updates it receives into `Target`s for its coordinator. Time is injected; the shell owns the
/// socket, the browser and the timer, and carries out the directives in order.
public struct TargetSubscriber<Address: Hashable & Sendable>: Sendable {
    /// Timings.
    public struct Configuration: Sendable {
        /// How often a subscription is renewed (the source keeps one for 3 s).
        public var subscribeInterval: Duration = .seconds(1)
        /// A source that sent nothing for this long is reported silent (it may simply have no target to stream).
        public var silentAfter: Duration = .seconds(3)
        public init() {}
    }

    /// What the shell must do.
    public enum Directive: Sendable, Equatable {
        /// Send a datagram.
        case send([UInt8], to: Address)
        /// An authenticated target update arrived from `source` (its DNS-SD name, or its address when unknown).
        case target(TargetUpdate, source: String)
        /// A datagram was refused (log it, rate-limited).
        case rejected(from: Address, LocBroadcasterError)
    }

    /// One source as reported by `sources`.
    public struct SourceReport: Sendable, Equatable {
        public var name: String
        public var addresses: [Address]
        public var targets: Int
        public var lastTargetAt: MeshInstant?
        public var lastTarget: Target?
    }

    private struct Source {
        var addresses: [Address]
        var nextSubscribe: MeshInstant
        var targets = 0
        var lastTargetAt: MeshInstant?
        var lastTarget: Target?
    }

    public let configuration: Configuration
    private let request: SubscribeRequest
    private let senderID: UInt64
    private var counter: UInt64 = 0
    private var keys: LocBroadcasterKeys
    private var sources: [String: Source] = [:]
    /// The highest counter accepted from each sender id.
    private var highest: [UInt64: UInt64] = [:]
    /// Refused datagrams by reason (`LocBroadcasterError.category`).
    public private(set) var rejectedCounts: [String: Int] = [:]
    /// Exact duplicates dropped (the same update through two of a source's addresses).
    public private(set) var duplicates = 0

    /// A subscriber for this node, with the mesh key and a random sender id chosen by the shell at each start.
    public init(
        node: NodeID, name: String, meshKey: [UInt8], senderID: UInt64, configuration: Configuration = Configuration()
    ) {
        self.configuration = configuration
        self.request = SubscribeRequest(node: node, name: name)
        self.senderID = senderID
        self.keys = LocBroadcasterKeys(meshKey: meshKey)
    }

    /// A source's address became known (resolved by DNS-SD, or configured). It is subscribed to at once.
    public mutating func onSourceFound(name: String, address: Address, now: MeshInstant) -> [Directive] {
        var s = sources[name] ?? Source(addresses: [], nextSubscribe: now + configuration.subscribeInterval)
        guard !s.addresses.contains(address) else {
            sources[name] = s
            return []
        }
        s.addresses.append(address)
        sources[name] = s
        return [.send(subscribeDatagram(), to: address)]
    }

    /// A source (or one of its addresses) went away: no more subscriptions are sent to it.
    public mutating func onSourceRemoved(name: String, address: Address? = nil) {
        guard var s = sources[name] else { return }
        if let address { s.addresses.removeAll { $0 == address } } else { s.addresses.removeAll() }
        if s.addresses.isEmpty { sources[name] = nil } else { sources[name] = s }
    }

    /// Renews due subscriptions, to every address of every source (the source keeps one stream per subscriber
    /// NodeID, to the address it heard from last).
    public mutating func onTick(now: MeshInstant) -> [Directive] {
        var out: [Directive] = []
        for name in sources.keys.sorted() where sources[name]!.nextSubscribe <= now {
            sources[name]!.nextSubscribe = now + configuration.subscribeInterval
            for a in sources[name]!.addresses { out.append(.send(subscribeDatagram(), to: a)) }
        }
        return out
    }

    /// A datagram on the subscriber's socket.
    public mutating func onDatagram(_ bytes: [UInt8], from: Address, now: MeshInstant) -> [Directive] {
        let d: LocBroadcasterDatagram
        let update: TargetUpdate
        do throws(LocBroadcasterError) {
            d = try LocBroadcasterDatagram.open(bytes, keys: &keys)
            guard d.kind == .target else { throw LocBroadcasterError.unexpectedKind(d.kind) }
            if let h = highest[d.sender], d.counter <= h {
                if d.counter == h {
                    duplicates += 1
                    return []
                }
                throw LocBroadcasterError.replayed(sender: d.sender, counter: d.counter, highest: h)
            }
            update = try TargetUpdate(decoding: d.body)
        } catch {
            rejectedCounts[error.category, default: 0] += 1
            return [.rejected(from: from, error)]
        }
        if highest.count >= 1024, highest[d.sender] == nil { highest.removeAll() }
        highest[d.sender] = d.counter
        let name = sources.first { $0.value.addresses.contains(from) }?.key
        if let name {
            sources[name]!.targets += 1
            sources[name]!.lastTargetAt = now
            sources[name]!.lastTarget = update.target
        }
        return [.target(update, source: name ?? "\(from)")]
    }

    /// The known sources, by name.
    public var sourceReports: [SourceReport] {
        sources.keys.sorted().map { n in
            let s = sources[n]!
            return SourceReport(
                name: n, addresses: s.addresses, targets: s.targets, lastTargetAt: s.lastTargetAt,
                lastTarget: s.lastTarget)
        }
    }

    private mutating func subscribeDatagram() -> [UInt8] {
        counter += 1
        return LocBroadcasterDatagram(kind: .subscribe, sender: senderID, counter: counter, body: request.encode())
            .seal(with: &keys)
    }
}

extension LocBroadcasterError {
    /// A short name for counting refusals.
    public var category: String {
        switch self {
        case .tooShort, .tooLong: return "size"
        case .badMagic: return "magic"
        case .unsupportedVersion: return "version"
        case .unknownKind, .unexpectedKind: return "kind"
        case .zeroCounter, .replayed: return "replay"
        case .authenticationFailed: return "authentication"
        case .malformedBody: return "body"
        }
    }
}
