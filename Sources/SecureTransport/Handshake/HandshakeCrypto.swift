import Crypto
import Foundation

/// The handshake's cryptography, all bound to one mesh key.
struct HandshakeCrypto: Sendable {
    /// HKDF-SHA256(ikm: mesh key, salt: empty, info: "fleetmesh v1 handshake mac", 32 bytes).
    let macKey: SessionKey
    /// The raw mesh key, mixed into session keys as the HKDF salt.
    let meshKeyBytes: [UInt8]

    init(key: MeshKey) {
        macKey = SessionKey(
            HKDF<SHA256>.deriveKey(
                inputKeyMaterial: SymmetricKey(data: key.bytes), salt: [UInt8](),
                info: Array(KeyLabels.handshakeMAC.utf8), outputByteCount: 32))
        meshKeyBytes = key.bytes
    }

    /// HMAC-SHA256 of `parts` concatenated.
    func mac(_ parts: [UInt8]...) -> [UInt8] {
        var h = HMAC<SHA256>(key: macKey.key)
        for p in parts { h.update(data: p) }
        return Array(h.finalize())
    }

    /// Checks a MAC in constant time.
    func verify(mac: ArraySlice<UInt8>, over parts: [UInt8]...) -> Bool {
        var h = HMAC<SHA256>(key: macKey.key)
        for p in parts { h.update(data: p) }
        let expected = Array(h.finalize())
        guard mac.count == expected.count else { return false }
        var diff: UInt8 = 0
        for (a, b) in zip(mac, expected) { diff |= a ^ b }
        return diff == 0
    }

    /// The two directional session keys:
    /// HKDF-SHA256(ikm: X25519 shared secret, salt: mesh key, info: "fleetmesh v1 session keys" ‖ SHA-256(initiation ‖ response), 64 bytes);
    /// bytes 0..<32 encrypt initiator→responder, bytes 32..<64 responder→initiator.
    /// Returns nil when the shared secret is all zeros (a low-order public key).
    func sessionKeys(
        privateKey rawPrivateKey: [UInt8], peerPublicKey: [UInt8],
        initiation: [UInt8], response: [UInt8]
    ) -> (initiatorToResponder: SessionKey, responderToInitiator: SessionKey)? {
        guard let privateKey = try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: rawPrivateKey),
            let peer = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: peerPublicKey),
            let shared = try? privateKey.sharedSecretFromKeyAgreement(with: peer)
        else { return nil }
        let sharedBytes = shared.withUnsafeBytes { Array($0) }
        guard sharedBytes.contains(where: { $0 != 0 }) else { return nil }
        var transcript = SHA256()
        transcript.update(data: initiation)
        transcript.update(data: response)
        let info = Array(KeyLabels.sessionKeys.utf8) + Array(transcript.finalize())
        let okm = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: sharedBytes), salt: meshKeyBytes, info: info, outputByteCount: 64)
        let bytes = okm.withUnsafeBytes { Array($0) }
        return (SessionKey(bytes: bytes[0..<32]), SessionKey(bytes: bytes[32..<64]))
    }
}

extension RandomNumberGenerator {
    /// 32 random bytes.
    mutating func bytes32() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for _ in 0..<4 {
            let v = next()
            for s in stride(from: 0, to: 64, by: 8) { out.append(UInt8(truncatingIfNeeded: v >> UInt64(s))) }
        }
        return out
    }
}
