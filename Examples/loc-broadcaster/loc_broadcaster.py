#!/usr/bin/env python3
"""A FleetMesh target source (loc-broadcaster), independent of the Swift code.

Advertises `_loc-broadcaster._udp` over mDNS (python-zeroconf), accepts subscriptions from FleetMesh nodes that hold
the mesh key, and streams a target (a fixed point, or one moving on a circle for follow-me) to them at --rate Hz.
The wire format is docs/PROTOCOL.md §9.

    loc_broadcaster.py --key mesh.key --lat 50.0757 --lon 14.4380 --alt 15 --all
    loc_broadcaster.py --key mesh.key --lat 50.0757 --lon 14.4380 --alt 15 --uav 7 --circle 20 --period 60

Needs: python3-cryptography, python3-zeroconf (pip install cryptography zeroconf).
"""
import argparse
import math
import os
import select
import socket
import struct
import sys
import time

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

MAGIC = b"FMLB"
VERSION = 1
KIND_SUBSCRIBE, KIND_TARGET = 1, 2
HEADER = struct.Struct(">4sBBQQ")  # magic, version, kind, sender id, counter: 22 bytes
SERVICE_TYPE = "_loc-broadcaster._udp.local."
SUBSCRIPTION_LIFETIME = 3.0


def hkdf(key, salt, info, length):
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=salt, info=info).derive(key)


def read_mesh_key(path):
    text = open(path, encoding="ascii").read().strip()
    if len(text) != 64:
        sys.exit(f"key file {path}: expected 64 hexadecimal digits, found {len(text)} characters")
    return bytes.fromhex(text)


def fingerprint(mesh_key):
    # An empty salt is HKDF's default (a block of zeros), as in the Swift implementation.
    return hkdf(mesh_key, None, b"fleetmesh v1 fingerprint", 8).hex()


class Keys:
    """Per-sender keys: HKDF-SHA256(mesh key, salt = sender id, info = "fleetmesh v1 loc-broadcaster")."""

    def __init__(self, mesh_key):
        self.mesh_key = mesh_key
        self.cache = {}

    def aead(self, sender):
        if sender not in self.cache:
            key = hkdf(self.mesh_key, struct.pack(">Q", sender), b"fleetmesh v1 loc-broadcaster", 32)
            self.cache[sender] = ChaCha20Poly1305(key)
        return self.cache[sender]


def seal(keys, kind, sender, counter, body):
    header = HEADER.pack(MAGIC, VERSION, kind, sender, counter)
    nonce = b"\0\0\0\0" + struct.pack(">Q", counter)
    return header + keys.aead(sender).encrypt(nonce, body, header)


def open_datagram(keys, data):
    """Returns (kind, sender, counter, body) or raises ValueError with the reason."""
    if len(data) < HEADER.size + 16 or len(data) > 512:
        raise ValueError(f"bad size {len(data)}")
    magic, version, kind, sender, counter = HEADER.unpack_from(data)
    if magic != MAGIC or version != VERSION:
        raise ValueError("not a loc-broadcaster v1 datagram")
    nonce = b"\0\0\0\0" + struct.pack(">Q", counter)
    try:
        body = keys.aead(sender).decrypt(nonce, data[HEADER.size:], data[:HEADER.size])
    except Exception:
        raise ValueError("authentication failed (wrong mesh key or altered datagram)")
    return kind, sender, counter, body


def target_body(address, lat, lon, alt, heading=None, sent_us=None):
    """address: "all", an int (one UAV number) or a list of UAV numbers."""
    if address == "all":
        out = bytes([0, 0])
    elif isinstance(address, int):
        out = bytes([1, 1, address])
    else:
        out = bytes([2, len(address)]) + bytes(address)
    out += struct.pack(">iii", round(lat * 1e7), round(lon * 1e7), round(alt * 1000))
    out += struct.pack(">H", 0xFFFF if heading is None else round(heading * 100) % 36000)
    out += struct.pack(">Q", int(time.time() * 1e6) if sent_us is None else sent_us)
    return out


def parse_subscribe(body):
    if len(body) < 17 or len(body) != 17 + body[16]:
        raise ValueError("malformed subscribe body")
    return body[:16].hex(), body[17:].decode("utf-8", "replace")


def local_addresses():
    """This host's non-loopback IPv4 addresses (what the advertisement carries)."""
    import ifaddr  # installed with python-zeroconf
    found = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if isinstance(ip.ip, str) and not ip.ip.startswith("127."):
                found.append(ip.ip)
    return found


def main():
    p = argparse.ArgumentParser(description="Stream a target to FleetMesh drones (loc-broadcaster).")
    p.add_argument("--key", required=True, help="the mesh key file (64 hex digits)")
    p.add_argument("--name", default=f"loc-broadcaster on {socket.gethostname()}", help="the DNS-SD instance name")
    p.add_argument("--lat", type=float, required=True)
    p.add_argument("--lon", type=float, required=True)
    p.add_argument("--alt", type=float, required=True, help="metres above home")
    p.add_argument("--heading", type=float, help="desired heading, degrees")
    who = p.add_mutually_exclusive_group(required=True)
    who.add_argument("--uav", type=int, help="one drone's UAV number")
    who.add_argument("--group", help="comma-separated UAV numbers")
    who.add_argument("--all", action="store_true", help="every drone")
    p.add_argument("--rate", type=float, default=5.0, help="updates per second (default 5)")
    p.add_argument("--circle", type=float, default=0.0, help="move the target on a circle of this radius, metres")
    p.add_argument("--period", type=float, default=60.0, help="seconds per circle")
    p.add_argument("--seconds", type=float, default=0.0, help="stop after this many seconds (default: run until ^C)")
    p.add_argument("--port", type=int, default=0, help="UDP port (default: any free port)")
    args = p.parse_args()

    if args.uav is not None and not 1 <= args.uav <= 250:
        p.error("--uav must be 1-250")
    address = "all" if args.all else args.uav if args.uav is not None else [int(n) for n in args.group.split(",")]
    if isinstance(address, list) and not (1 <= len(address) <= 32 and all(1 <= n <= 250 for n in address)):
        p.error("--group takes 1-32 UAV numbers, each 1-250")
    if not (-90 <= args.lat <= 90 and -180 <= args.lon <= 180):
        p.error("--lat must be within -90..90 and --lon within -180..180")
    if not args.rate > 0:
        p.error("--rate must be more than 0")

    mesh_key = read_mesh_key(args.key)
    keys = Keys(mesh_key)
    sender = int.from_bytes(os.urandom(8), "big")
    counter = 0

    sock = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    sock.bind(("::", args.port))
    port = sock.getsockname()[1]

    from zeroconf import ServiceInfo, Zeroconf
    zc = Zeroconf()
    info = ServiceInfo(SERVICE_TYPE, f"{args.name}.{SERVICE_TYPE}", port=port,
                       parsed_addresses=local_addresses(),
                       properties={"v": "1", "fp": fingerprint(mesh_key), "name": args.name})
    zc.register_service(info)
    print(f"advertising '{args.name}' {SERVICE_TYPE} on UDP {port}, mesh {fingerprint(mesh_key)}", flush=True)

    subscribers = {}  # node id hex -> (address, name, until)
    highest = {}      # sender id -> highest counter accepted
    started = time.monotonic()
    next_send = started
    sent = 0
    try:
        while not args.seconds or time.monotonic() - started < args.seconds:
            ready, _, _ = select.select([sock], [], [], max(0.0, next_send - time.monotonic()))
            if ready:
                data, source = sock.recvfrom(2048)
                try:
                    kind, peer, count, body = open_datagram(keys, data)
                    if kind != KIND_SUBSCRIBE:
                        raise ValueError(f"unexpected kind {kind}")
                    if count <= highest.get(peer, 0):
                        raise ValueError("replayed subscription")
                    highest[peer] = count
                    node, name = parse_subscribe(body)
                    if node not in subscribers:
                        print(f"subscribed: {name} ({node[:8]}) from {source[0]} port {source[1]}", flush=True)
                    subscribers[node] = (source, name, time.monotonic() + SUBSCRIPTION_LIFETIME)
                except ValueError as e:
                    print(f"refused a datagram from {source[0]}: {e}", flush=True)
                continue
            now = time.monotonic()
            next_send += 1.0 / args.rate
            if next_send < now:
                next_send = now + 1.0 / args.rate
            lat, lon = args.lat, args.lon
            if args.circle > 0:
                angle = 2 * math.pi * (now - started) / args.period
                lat += args.circle * math.cos(angle) / 111_320.0
                lon += args.circle * math.sin(angle) / (111_320.0 * math.cos(math.radians(args.lat)))
            subscribers = {k: v for k, v in subscribers.items() if v[2] > now}
            if not subscribers:
                continue
            counter += 1
            datagram = seal(keys, KIND_TARGET, sender, counter, target_body(address, lat, lon, args.alt, args.heading))
            for source, _, _ in subscribers.values():
                sock.sendto(datagram, source)
            sent += 1
            if sent == 1 or sent % 50 == 0:
                print(f"sent {sent} targets to {len(subscribers)} subscriber(s); last {lat:.7f} {lon:.7f} {args.alt:.1f} m", flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        zc.unregister_service(info)
        zc.close()
        print(f"stopped after {sent} targets", flush=True)


if __name__ == "__main__":
    main()
