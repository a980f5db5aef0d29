"""Independent check of the FleetMesh secure-transport wire format (DOC.md) against the pinned test vector.
Needs Python 3 and the `cryptography` package. Prints OK when every MAC, key and ciphertext matches."""
import hmac, hashlib, sys
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives import hashes

# The vector pinned in Tests/SecureTransportTests/TestVectorTests.swift.
v = {'key': '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', 'apriv': '67ec8e65a18debbe5e5532fbeea293f80bc942ee9086c171b9b501d1d854bb71', 'init': '010589025cc1010101010101010102020202020202020000000000000007001f1d22b374ccfad540bb48736b4d7e390fe0672815ec1c0597323b0cd222d1110006651728988000bd96be403043f87e37a9f3f471982fed70d4f74eff81305588a5ef5f2cbcd02a', 'resp': '02051c9756ce89025cc1030303030303030304040404040404040000000000000009015281cdd1cb80da7ae333d22294314e62a911bbeb61f3c08c6152f760b78c6b6bdac5c6b2e2438161a18aa23fa41c5536b93f02519087c964697b4aceabc62feb', 'keepalive': '031c9756ce00000000000000006167e413d9d8b4c24cd897818379531c', 'data': '031c9756ce000000000000000124b521c8bb2a184118198607cb5dd3e3c010694f72fc315d5199c8'}
key = bytes.fromhex(v['key']); apriv = bytes.fromhex(v['apriv'])
init = bytes.fromhex(v['init']); resp = bytes.fromhex(v['resp'])
def hkdf(ikm, salt, info, n):
    return HKDF(algorithm=hashes.SHA256(), length=n, salt=salt if salt else None, info=info).derive(ikm)
mackey = hkdf(key, b'', b'fleetmesh v1 handshake mac', 32)
assert len(init) == 103 and init[0] == 1 and init[1] == 5
assert hmac.compare_digest(hmac.new(mackey, init[:71], hashlib.sha256).digest(), init[71:])
assert len(resp) == 99 and resp[0] == 2 and resp[1] == 5
assert resp[6:10] == init[2:6]  # receiver index = initiator's sender index
assert hmac.compare_digest(hmac.new(mackey, init + resp[:67], hashlib.sha256).digest(), resp[67:])
apub = X25519PrivateKey.from_private_bytes(apriv).public_key().public_bytes_raw()
assert apub == init[31:63]
shared = X25519PrivateKey.from_private_bytes(apriv).exchange(X25519PublicKey.from_public_bytes(resp[35:67]))
th = hashlib.sha256(init + resp).digest()
okm = hkdf(shared, key, b'fleetmesh v1 session keys' + th, 64)
k_i2r = okm[:32]
for name in ('keepalive', 'data'):
    d = bytes.fromhex(v[name])
    assert d[0] == 3 and d[1:5] == resp[2:6]  # receiver index = responder's sender index
    counter = int.from_bytes(d[5:13], 'big')
    nonce = b'\0\0\0\0' + counter.to_bytes(8, 'little')
    pt = ChaCha20Poly1305(k_i2r).decrypt(nonce, d[13:], d[:13])
    print(name, counter, pt)
print('fingerprint', hkdf(key, b'', b'fleetmesh v1 fingerprint', 8).hex())
print("init fields: idx", init[2:6].hex(), "node", init[6:22].hex(), "inc", int.from_bytes(init[22:30],'big'), "role", init[30], "ts", int.from_bytes(init[63:71],'big'))
print("OK")
