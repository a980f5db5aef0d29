import Coordinator
import MeshTypes

/// The source side of the loc-broadcaster protocol, without I/O: keeps the nodes that subscribed in the last 3 s and
/// seals each target update once for all of them. The Python example in Examples/loc-broadcaster is an independent
/// implementation of the same rules; this one serves the Swift tests and benchmarks.
public struct TargetSource<Address: Hashable & Sendable>: Sendable {
    /// How long a subscription lasts without renewal.
    public var subscriptionLifetime: Duration = .seconds(3)
    private let senderID: UInt64
    private var counter: UInt64 = 0
    private var keys: LocBroadcasterKeys
    private var highest: [UInt64: UInt64] = [:]
    /// Live subscriptions: the subscriber's NodeID → where to send, and until when.
    public private(set) var subscribers: [NodeID: (address: Address, name: String, until: MeshInstant)] = [:]

    public init(meshKey: [UInt8], senderID: UInt64) {
        self.senderID = senderID
        self.keys = LocBroadcasterKeys(meshKey: meshKey)
    }

    /// A datagram on the source's socket: a valid subscription is recorded (or renewed) for its sender's address.
    public mutating func onDatagram(_ bytes: [UInt8], from: Address, now: MeshInstant) throws(LocBroadcasterError)
        -> SubscribeRequest
    {
        let d = try LocBroadcasterDatagram.open(bytes, keys: &keys)
        guard d.kind == .subscribe else { throw .unexpectedKind(d.kind) }
        if let h = highest[d.sender], d.counter <= h {
            throw .replayed(sender: d.sender, counter: d.counter, highest: h)
        }
        let request = try SubscribeRequest(decoding: d.body)
        highest[d.sender] = d.counter
        subscribers[request.node] = (from, request.name, now + subscriptionLifetime)
        return request
    }

    /// Seals `update` once and returns it with every live subscriber's address.
    public mutating func publish(_ update: TargetUpdate, now: MeshInstant) -> (datagram: [UInt8], to: [Address]) {
        subscribers = subscribers.filter { $0.value.until > now }
        counter += 1
        let bytes = LocBroadcasterDatagram(kind: .target, sender: senderID, counter: counter, body: update.encode())
            .seal(with: &keys)
        return (bytes, subscribers.values.map(\.address))
    }
}
