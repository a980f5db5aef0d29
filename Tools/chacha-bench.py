#!/usr/bin/env python3
"""Python's `cryptography` (PyPI) sealing and opening the datagrams fleetmesh-bench's `secure` group seals and opens:
the anchor of the secure-transport table.

Usage: chacha-bench.py [SECONDS] [PAYLOAD] [AD]  (defaults: 1.0 s, 200-byte payload, 33 bytes of associated data).
Writes JSON on stdout: {"cryptography": version, "openssl": version, "payload": n, "ad": n,
"per_datagram": rate, "bare": rate}.

One datagram is one ChaCha20-Poly1305 seal followed by one open (with the tag check) of the same bytes, on one core,
with a 32-byte key set up once (a `ChaCha20Poly1305` object, as a long-lived session holds it):
- per_datagram: what FleetMesh does per datagram too: the 12-byte nonce (four zero bytes, then the counter
  little-endian) and the header used as associated data (a fixed prefix, then the counter big-endian) are built from
  the counter for every datagram;
- bare: the same seal and open with one nonce and one header built beforehand: the library's own cost alone (the
  faster of the two, and the one the issue quotes).
Rates are datagrams (seal + open) per second, over about SECONDS of wall time each.
"""
import json
import os
import sys
import time
from importlib import metadata

from cryptography.hazmat.backends.openssl import backend
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305


def rate(seconds, batch, body):
    start = time.perf_counter()
    done = 0
    while True:
        body(batch)
        done += batch
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return done / elapsed


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
    payload_size = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    ad_size = int(sys.argv[3]) if len(sys.argv) > 3 else 33
    aead = ChaCha20Poly1305(os.urandom(32))
    payload = bytes(i & 0xFF for i in range(payload_size))
    prefix = bytes([4]) + bytes(range(1, ad_size - 8))  # type byte and sender fields; the counter follows
    zeros = bytes(4)
    counter = [0]

    def per_datagram(n):
        encrypt, decrypt = aead.encrypt, aead.decrypt
        c = counter[0]
        for _ in range(n):
            nonce = zeros + c.to_bytes(8, "little")
            ad = prefix + c.to_bytes(8, "big")
            sealed = encrypt(nonce, payload, ad)
            if len(decrypt(nonce, sealed, ad)) != payload_size:
                raise SystemExit("chacha-bench: round trip lost bytes")
            c += 1
        counter[0] = c

    nonce = zeros + (7).to_bytes(8, "little")
    ad = prefix + (7).to_bytes(8, "big")

    def bare(n):
        encrypt, decrypt = aead.encrypt, aead.decrypt
        for _ in range(n):
            decrypt(nonce, encrypt(nonce, payload, ad), ad)

    per_datagram(1000)  # warm up
    bare(1000)
    result = {
        "cryptography": metadata.version("cryptography"),
        "openssl": backend.openssl_version_text(),
        "payload": payload_size,
        "ad": ad_size,
        "per_datagram": rate(seconds, 2000, per_datagram),
        "bare": rate(seconds, 2000, bare),
    }
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
