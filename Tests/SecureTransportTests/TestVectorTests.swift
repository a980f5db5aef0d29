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
        "010589025cc1010101010101010102020202020202020000000000000007001f1d22b374ccfad540bb48736b4d7e390fe0672815ec1c0597323b0cd222d1110006651728988000bd96be403043f87e37a9f3f471982fed70d4f74eff81305588a5ef5f2cbcd02a"
    static let response =
        "02051c9756ce89025cc1030303030303030304040404040404040000000000000009015281cdd1cb80da7ae333d22294314e62a911bbeb61f3c08c6152f760b78c6b6bdac5c6b2e2438161a18aa23fa41c5536b93f02519087c964697b4aceabc62feb"
    static let keepalive = "031c9756ce00000000000000006167e413d9d8b4c24cd897818379531c"
    static let data = "031c9756ce000000000000000124b521c8bb2a184118198607cb5dd3e3c010694f72fc315d5199c8"
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
