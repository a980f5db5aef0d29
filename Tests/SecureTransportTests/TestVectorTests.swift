import Determinism
import MeshTypes
import Testing

@testable import SecureTransport

/// A fixed handshake and two transport messages, checked byte for byte. The same bytes were verified by an independent
/// implementation written from DOC.md (Python `cryptography`: X25519, HKDF-SHA256, HMAC-SHA256, ChaCha20-Poly1305),
/// so any change to the wire format or key schedule fails here first.
@Suite("Wire test vector")
struct TestVectorTests {
    static let initiation =
        "010389025cc1010101010101010102020202020202020000000000000007001f1d22b374ccfad540bb48736b4d7e390fe0672815ec1c0597323b0cd222d11100066517289880007041047adb2385f0311d4b2e6fd61fc0d81d50d35a54e86505dde0885c9c135d"
    static let response =
        "02031c9756ce89025cc1030303030303030304040404040404040000000000000009015281cdd1cb80da7ae333d22294314e62a911bbeb61f3c08c6152f760b78c6b6b0f0aaa1d293e9415bbfa6ee3db96b2ee1664b6ab415219ecb9527569249f862f"
    static let keepalive = "031c9756ce0000000000000000d10e56882269de795f9836c9f7e157d3"
    static let data = "031c9756ce0000000000000001a5415290e0ddc0cc94a65c2d98e2a7b961b967dfa29adf6d0db750"
    static let initiatorEphemeralPrivateKey = "67ec8e65a18debbe5e5532fbeea293f80bc942ee9086c171b9b501d1d854bb71"

    @Test func handshakeAndTransportBytesMatchTheVector() throws {
        let key = try MeshKey(bytes: Array(0..<32))
        var a = SecureEndpoint<Int>(
            key: key, localID: NodeID(high: 0x0101_0101_0101_0101, low: 0x0202_0202_0202_0202), incarnation: 7,
            role: .station, random: SeededRandom(seed: 1))
        var b = SecureEndpoint<Int>(
            key: key, localID: NodeID(high: 0x0303_0303_0303_0303, low: 0x0404_0404_0404_0404), incarnation: 9,
            role: .drone, random: SeededRandom(seed: 2))
        let t = MeshInstant.after(.seconds(1))
        let initiation = try #require(Self.sent(a.connect(to: 2, now: t, wallClockMicros: 1_800_000_000_000_000)).first)
        #expect(initiation.hexString == Self.initiation)
        #expect(a.pending.first?.privateKey.hexString == Self.initiatorEphemeralPrivateKey)
        let response = try #require(Self.sent(b.receive(initiation, from: 1, now: t)).first)
        #expect(response.hexString == Self.response)
        let keepalive = try #require(Self.sent(a.receive(response, from: 2, now: t)).first)
        #expect(keepalive.hexString == Self.keepalive)
        let data = try #require(Self.sent(try a.send(Array("hello, mesh".utf8), to: b.localID, now: t)).first)
        #expect(data.hexString == Self.data)
        _ = b.receive(keepalive, from: 1, now: t)
        let delivered = b.receive(data, from: 1, now: t)
        #expect(delivered == [.deliver(Array("hello, mesh".utf8), from: a.localID)])
    }

    static func sent(_ ds: [SecureEndpoint<Int>.Directive]) -> [[UInt8]] {
        ds.compactMap { if case .send(let x, _) = $0 { x } else { nil } }
    }
}
