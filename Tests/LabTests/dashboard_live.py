#!/usr/bin/env python3
"""Drives the station dashboard's live WebSocket (websocket-client) against a station and one drone in the lab:
- the first message is a full picture with the drone;
- the drone's telemetry (10 Hz) is pushed at the default pace for an unwatched drone, then at every sample once the
  client watches it;
- malformed and refused messages each get an error naming the field, and the stream goes on;
- a second client that never reads (a raw socket after the upgrade) leaves the first one's pace and the station's
  memory as they were.
Prints one JSON line of findings, then HOLDING and keeps the silent client connected until killed (the test stops the
station with it still there). Exits 1 with the reason on the first failure.

usage: dashboard_live.py URL UAV STATION_PID
"""
import base64
import json
import os
import socket
import subprocess
import sys
import time

import websocket  # websocket-client

url, uav, pid = sys.argv[1].rstrip("/"), int(sys.argv[2]), int(sys.argv[3])
ws_url = url.replace("http://", "ws://") + "/api/v1/live"
findings = {}


def fail(reason):
    findings["failure"] = reason
    print(json.dumps(findings), flush=True)
    sys.exit(1)


def rss_mb():
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1000
    return 0.0


ws = websocket.create_connection(ws_url, timeout=5)


def receive(seconds, on_message=None):
    """Messages for `seconds`; the drone's pushed samples (their arrival times at the station) and the errors."""
    deadline = time.monotonic() + seconds
    samples, errors = [], []
    while time.monotonic() < deadline:
        ws.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            text = ws.recv()
        except websocket.WebSocketTimeoutException:
            break
        now_ms = time.time() * 1000
        m = json.loads(text)
        if m["type"] == "vehicles":
            for u in m["updates"]:
                if u["vehicle"].get("uavNumber") == uav:
                    samples.append((u["time"] - u["vehicle"]["ageMs"], now_ms))
        elif m["type"] == "error":
            errors.append(m["error"])
        if on_message:
            on_message(m)
    return samples, errors


first = json.loads(ws.recv())
if first.get("type") != "picture" or not any(v.get("uavNumber") == uav for v in first.get("vehicles") or []):
    fail(f"the first message is not a full picture with UAV {uav}: {str(first)[:300]}")
findings["firstPicture"] = True

# Unwatched: the default pace (the station's live rate, 5 Hz) thins the 10 Hz telemetry.
receive(1.0)
samples, _ = receive(4.0)
findings["unwatchedPerSecond"] = round(len(samples) / 4.0, 2)

# Watched at 20 Hz: every sample, pushed as it arrives.
ws.send(json.dumps({"type": "subscribe", "watch": [uav], "watchHz": 20}))
receive(1.0)
samples, _ = receive(4.0)
findings["watchedPerSecond"] = round(len(samples) / 4.0, 2)
delays = sorted(r - a for a, r in samples)
findings["watchedDelayMsP50"] = round(delays[len(delays) // 2], 1) if delays else None

# Refusals: each answered with an error naming the field, the connection kept.
refusals = [
    ("{not json", "malformed JSON"),
    ('{"type":"fly"}', 'type: expected "subscribe" or "manual"'),
    ('{"type":"subscribe","watchHz":500}', "watchHz must be a number of updates per second within 1–50"),
    ('{"type":"subscribe","period":1}', 'subscribe: unknown field "period"'),
    ('{"type":"manual","uav":300,"axes":[0,0,0,0]}', "manual: uav must be a UAV number 1–250, found 300"),
    ('{"type":"manual","uav":99,"axes":[0,0,0,0]}', "UAV 99: no reachable drone holds this number"),
]
for text, _ in refusals:
    ws.send(text)
ws.send_binary(b"\x01\x02")
_, errors = receive(2.0)
for text, fragment in refusals + [("binary", "binary messages are not understood")]:
    if not any(fragment in e for e in errors):
        fail(f"no error containing {fragment!r} for {text}: {errors}")
findings["errors"] = len(errors)
samples, _ = receive(2.0)
if len(samples) < 10:
    fail(f"the stream did not go on after the refusals: {len(samples)} samples in 2 s")

# A client that upgrades and never reads again.
host, port = url.split("//")[1].split(":")
silent = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
silent.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # small, and set before connecting: it fills soon
silent.connect((host, int(port)))
key = base64.b64encode(os.urandom(16)).decode()
silent.sendall(
    (f"GET /api/v1/live HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
     f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
before = rss_mb()
samples, _ = receive(8.0)
findings["watchedPerSecondBesideASilentClient"] = round(len(samples) / 8.0, 2)
findings["stationRssGrowthMb"] = round(rss_mb() - before, 1)
# What the station could not deliver to the silent client waits in its socket's send queue (ss: Send-Q): the stream
# really backed up to the station.
silent_port = silent.getsockname()[1]
for line in subprocess.run(["ss", "-tnH"], capture_output=True, text=True).stdout.splitlines():
    fields = line.split()
    if len(fields) >= 5 and fields[4].endswith(f":{silent_port}"):
        findings["silentClientSendQueueBytes"] = int(fields[2])
print(json.dumps(findings), flush=True)
print("HOLDING", flush=True)
time.sleep(120)
