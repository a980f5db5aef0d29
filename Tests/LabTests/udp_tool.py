#!/usr/bin/env python3
"""Raw UDP helper for the lab tests (run inside a lab host's namespace).

  udp_tool.py capture PORT            print, as hex, the first transport datagram (type 3) arriving for PORT on eth0
  udp_tool.py send HOST PORT HEX      send one datagram
  udp_tool.py fuzz HOST PORT N SEED   send N random datagrams (random lengths, some with valid type bytes)
  udp_tool.py flood HOST PORT N       send N datagrams of 64 bytes of no FleetMesh type, as fast as it can
"""
import random
import socket
import struct
import sys
import time


def capture(port: int, timeout: float = 5.0) -> None:
    s = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.ntohs(0x0003))
    s.bind(("eth0", 0))
    s.settimeout(timeout)
    deadline = time.time() + timeout
    while time.time() < deadline:
        frame, addr = s.recvfrom(65535)
        proto, pkttype = addr[1], addr[2]
        if pkttype != socket.PACKET_HOST:  # only datagrams arriving at this host, not its own outgoing ones
            continue
        if proto == 0x0800:  # IPv4
            ihl = (frame[0] & 0x0F) * 4
            if frame[9] != 17:
                continue
            udp = frame[ihl:]
        elif proto == 0x86DD:  # IPv6 without extension headers
            if frame[6] != 17:
                continue
            udp = frame[40:]
        else:
            continue
        dport = struct.unpack("!H", udp[2:4])[0]
        payload = udp[8:]
        if dport == port and len(payload) > 29 and payload[0] == 3:
            print(payload.hex())
            return
    sys.exit("no transport datagram captured")


def send(host: str, port: int, data: bytes) -> None:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_DGRAM) as s:
        s.sendto(data, (host, port))


def fuzz(host: str, port: int, n: int, seed: int) -> None:
    rng = random.Random(seed)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_DGRAM) as s:
        for i in range(n):
            length = rng.choice([0, 1, 2, 5, 13, 28, 29, 30, 99, 103, rng.randrange(0, 1400)])
            data = bytearray(rng.getrandbits(8) for _ in range(length))
            if length and rng.random() < 0.75:
                data[0] = rng.choice([1, 2, 3])
            s.sendto(bytes(data), (host, port))
            if i % 200 == 199:
                time.sleep(0.01)  # stay under the socket's receive buffer


def flood(host: str, port: int, n: int) -> None:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    data = bytes([0xEE]) + bytes(63)
    with socket.socket(family, socket.SOCK_DGRAM) as s:
        for _ in range(n):
            s.sendto(data, (host, port))


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "capture":
        capture(int(sys.argv[2]))
    elif cmd == "send":
        send(sys.argv[2], int(sys.argv[3]), bytes.fromhex(sys.argv[4]))
    elif cmd == "fuzz":
        fuzz(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
    elif cmd == "flood":
        flood(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        sys.exit(__doc__)
