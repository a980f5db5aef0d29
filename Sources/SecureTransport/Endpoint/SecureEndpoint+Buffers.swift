import MeshTypes
import NIOCore

/// Sealing and opening transport messages between caller-provided buffers: the hot path, with no heap allocation per
/// datagram. `send` and `receive` do the same work but hand out new arrays (the datagram, the plaintext, the
/// directives).
extension SecureEndpoint {
    /// A transport message sealed into the caller's buffer: its first `count` bytes, to send to `address`.
    public struct Sealed: Equatable, Sendable {
        /// The datagram's length.
        public var count: Int
        /// Where the peer's authenticated datagrams come from: where to send it.
        public var address: Address
    }

    /// What `open(_:from:into:now:)` made of a datagram.
    public enum Opened: Equatable, Sendable {
        /// A plaintext authenticated as coming from this peer is in the first `count` bytes of the buffer.
        case delivered(count: Int, from: NodeID)
        /// An authenticated keepalive (empty transport message) came from this peer.
        case keepalive(from: NodeID)
        /// Anything else, as `receive` would have returned it: handshake messages, refusals, and a transport message
        /// that confirmed a session or hurried a handshake (its plaintext then travels in a `.deliver` directive, and
        /// the buffer's content is unspecified).
        case directives([Directive])
    }

    /// The buffer size that always suffices to seal `plaintextCount` bytes.
    public static func sealedSize(plaintextCount: Int) -> Int { plaintextCount + TransportMessage.minimumSize }

    /// Encrypts `plaintext` for `peer` on its current session into `buffer`, like `send` but without allocating.
    /// `buffer` needs `sealedSize(plaintextCount:)` bytes (else `.bufferTooSmall`, and nothing is used up) and must not
    /// overlap `plaintext`. An empty plaintext is a keepalive.
    @_specialize(exported:true,where Address == SocketAddress)
    @_specialize(exported:true,where Address == Int)
    public mutating func seal(
        _ plaintext: UnsafeRawBufferPointer, to peer: NodeID, into buffer: UnsafeMutableRawBufferPointer,
        now: MeshInstant
    ) throws(SecureTransportError) -> Sealed {
        let needed = Self.sealedSize(plaintextCount: plaintext.count)
        guard buffer.count >= needed else { throw .bufferTooSmall(needed: needed, available: buffer.count) }
        let s = try nextSend(to: peer, now: now)
        let count = TransportMessage.seal(
            plaintext, receiverIndex: s.remoteIndex, counter: s.counter, key: s.key, into: buffer)
        return Sealed(count: count, address: s.address)
    }

    /// Processes one received datagram like `receive`, decrypting a transport message's plaintext into `buffer`
    /// without allocating (`.delivered`). `buffer` needs `datagram.count - 29` bytes for a transport message (else
    /// `.bufferTooSmall`, and the datagram is not looked at) and must not overlap `datagram`. Never traps, whatever
    /// the bytes.
    @_specialize(exported:true,where Address == SocketAddress)
    @_specialize(exported:true,where Address == Int)
    public mutating func open(
        _ datagram: UnsafeRawBufferPointer, from address: Address, into buffer: UnsafeMutableRawBufferPointer,
        now: MeshInstant
    ) throws(SecureTransportError) -> Opened {
        // Not `datagram.first`: unspecialized (debug builds), `Collection.first` allocates.
        guard !datagram.isEmpty, datagram[0] == MessageType.transport.rawValue else {
            return .directives(receive(Array(datagram), from: address, now: now))
        }
        guard datagram.count >= TransportMessage.minimumSize else {
            return .directives([.rejected(address, Self.tooShort(datagram.count))])
        }
        let needed = datagram.count - TransportMessage.minimumSize
        guard buffer.count >= needed else { throw .bufferTooSmall(needed: needed, available: buffer.count) }
        switch openTransport(datagram, from: address, into: buffer, now: now) {
        case .refused(let directive):
            return .directives([directive])
        case .opened(let count, let id, let before, let after):
            if before.isEmpty && after.isEmpty {
                return count == 0 ? .keepalive(from: id) : .delivered(count: count, from: id)
            }
            let plaintext = Array(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            return .directives(
                before + [plaintext.isEmpty ? .keepalive(from: id) : .deliver(plaintext, from: id)] + after)
        }
    }
}
