#!/usr/bin/env python3
"""A scripted ground-control station on pymavlink, for FleetMesh's ground-control endpoint tests and benchmark.

  gcs_client.py --connect HOST:PORT --steps JSON

It sends HEARTBEAT (system 255, component 190, MAV_TYPE_GCS) once a second from its own UDP port to the station, as
QGroundControl and MAVProxy do, and runs the steps in order, printing one JSON line per step:

  {"do": "heartbeats", "seconds": 3}                       which systems sent HEARTBEAT (type, autopilot, count, mode)
  {"do": "long", "sysid": 7, "command": 22, "params": [0,0,0,0,0,0,10], "confirmation": 0}
  {"do": "int", "sysid": 7, "command": 192, "frame": 6, "params": [-1,1,0,NaN], "x": 500901000, "y": 144101000, "z": 12}
                                                           send, wait for the final COMMAND_ACK (IN_PROGRESS is recorded
                                                           and waited past); STATUSTEXTs from that system are collected
  {"do": "wait_alt", "sysid": 7, "alt": 10, "tolerance": 0.7, "timeout": 20}
  {"do": "wait_pos", "sysid": 7, "lat": 50.09, "lon": 14.41, "radius": 1.5, "timeout": 20}
  {"do": "texts", "sysid": 7, "seconds": 2}               STATUSTEXTs within that time
  {"do": "manual", "sysid": 7, "x": 0, "y": 0, "z": 500, "r": 0, "seconds": 1, "rate": 20}
  {"do": "params", "sysid": 7}                             PARAM_REQUEST_LIST → PARAM_VALUEs
  {"do": "rates", "sysid": 7, "seconds": 20}              each message type's rate from that system: (count − 1) /
                                                           (last − first arrival), exact for a periodic stream
  {"do": "bench", "sysid": 7, "count": 200, "socket": "/path/node.sock", "uav": 7}
                                                           interleaved latencies: DO_SET_MODE hover → COMMAND_ACK, and a
                                                           control-socket `send hover` round trip (the baseline)
"""
import argparse
import json
import math
import os
import socket
import sys
import threading
import time

os.environ["MAVLINK20"] = "1"
from pymavlink.dialects.v20 import common as mavlink  # noqa: E402


class Station:
    def __init__(self, host, port):
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.sock = socket.socket(family, socket.SOCK_DGRAM)
        self.sock.bind(("::" if family == socket.AF_INET6 else "0.0.0.0", 0))
        self.addr = (host, port)
        self.lock = threading.Lock()
        self.mav = mavlink.MAVLink(self, srcSystem=255, srcComponent=190)
        self.inbox = []  # (time, msg)
        self.cond = threading.Condition()
        self.latest = {}  # (sysid, type) -> msg
        threading.Thread(target=self.reader, daemon=True).start()
        threading.Thread(target=self.beat, daemon=True).start()

    def write(self, data):
        self.sock.sendto(data, self.addr)

    def send(self, fn, *args):
        with self.lock:
            fn(*args)

    def beat(self):
        while True:
            self.send(self.mav.heartbeat_send, mavlink.MAV_TYPE_GCS, mavlink.MAV_AUTOPILOT_INVALID, 0, 0, mavlink.MAV_STATE_ACTIVE)
            time.sleep(1.0)

    def reader(self):
        parser = mavlink.MAVLink(None)
        parser.robust_parsing = True
        while True:
            data, _ = self.sock.recvfrom(65535)
            now = time.monotonic()
            for m in parser.parse_buffer(data) or []:
                if m.get_type() == "BAD_DATA":
                    continue
                with self.cond:
                    self.inbox.append((now, m))
                    self.latest[(m.get_srcSystem(), m.get_type())] = m
                    self.cond.notify_all()

    def wait(self, predicate, timeout, since):
        """The first message after `since` (an inbox index) matching predicate, with its arrival time."""
        deadline = time.monotonic() + timeout
        i = since
        with self.cond:
            while True:
                while i < len(self.inbox):
                    t, m = self.inbox[i]
                    i += 1
                    if predicate(m):
                        return t, m, i
                left = deadline - time.monotonic()
                if left <= 0:
                    return None, None, i
                self.cond.wait(left)

    def mark(self):
        with self.cond:
            return len(self.inbox)

    def since(self, index, sysid, type_):
        with self.cond:
            return [m for _, m in self.inbox[index:] if m.get_srcSystem() == sysid and m.get_type() == type_]


def command(st, step, is_int):
    sysid, cmd = step["sysid"], step["command"]
    params = [float(p) for p in step.get("params", [])]
    mark = st.mark()
    t0 = time.monotonic()
    if is_int:
        p = params + [0.0] * (4 - len(params))
        st.send(st.mav.command_int_send, sysid, 1, step.get("frame", 6), cmd, 0, 0, p[0], p[1], p[2], p[3],
                int(step.get("x", 0)), int(step.get("y", 0)), float(step.get("z", 0)))
    else:
        p = params + [0.0] * (7 - len(params))
        st.send(st.mav.command_long_send, sysid, 1, cmd, step.get("confirmation", 0), *p)
    results = []
    at = None
    i = mark
    while True:
        t, m, i = st.wait(lambda m: m.get_type() == "COMMAND_ACK" and m.get_srcSystem() == sysid and m.command == cmd,
                          step.get("timeout", 10), i)
        if m is None:
            break
        results.append(m.result)
        if m.result != mavlink.MAV_RESULT_IN_PROGRESS:
            at = t
            break
    time.sleep(step.get("texts_wait", 0.3))
    texts = [m.text for m in st.since(mark, sysid, "STATUSTEXT")]
    return {"results": results, "result": results[-1] if results else None,
            "latency_ms": round((at - t0) * 1000, 3) if at else None, "texts": texts}


def run_step(st, step):
    kind = step["do"]
    if kind == "rates":
        mark = st.mark()
        time.sleep(step["seconds"])  # the measurement window itself
        with st.cond:
            arrivals = {}
            for t, m in st.inbox[mark:]:
                if m.get_srcSystem() == step["sysid"]:
                    arrivals.setdefault(m.get_type(), []).append(t)
        rates = {k: (len(v) - 1) / (v[-1] - v[0]) for k, v in arrivals.items() if len(v) >= 2 and v[-1] > v[0]}
        counts = {k: len(v) for k, v in arrivals.items()}
        return {"rates": rates, "counts": counts, "seconds": step["seconds"]}
    if kind == "heartbeats":
        mark = st.mark()
        time.sleep(step.get("seconds", 3))
        systems = {}
        with st.cond:
            for _, m in st.inbox[mark:]:
                if m.get_type() == "HEARTBEAT":
                    s = systems.setdefault(str(m.get_srcSystem()), {"count": 0})
                    s.update(count=s["count"] + 1, type=m.type, autopilot=m.autopilot, mode=m.custom_mode,
                             component=m.get_srcComponent(), base_mode=m.base_mode)
        kinds = {}
        with st.cond:
            for _, m in st.inbox[mark:]:
                kinds.setdefault(str(m.get_srcSystem()), set()).add(m.get_type())
        for k, v in systems.items():
            v["messages"] = sorted(kinds.get(k, []))
        return {"systems": systems}
    if kind in ("long", "int"):
        return command(st, step, kind == "int")
    if kind == "wait_alt":
        sysid, alt, tol = step["sysid"], step["alt"], step.get("tolerance", 0.7)
        t0 = time.monotonic()
        t, m, _ = st.wait(lambda m: m.get_type() == "GLOBAL_POSITION_INT" and m.get_srcSystem() == sysid
                          and abs(m.relative_alt / 1000 - alt) <= tol, step.get("timeout", 20), st.mark())
        return {"ok": m is not None, "after_ms": round((t - t0) * 1000) if t else None,
                "relative_alt": m.relative_alt / 1000 if m else None, "alt": m.alt / 1000 if m else None}
    if kind == "wait_pos":
        sysid = step["sysid"]
        lat, lon, radius = step["lat"], step["lon"], step.get("radius", 1.5)

        def near(m):
            if m.get_type() != "GLOBAL_POSITION_INT" or m.get_srcSystem() != sysid:
                return False
            dn = (m.lat / 1e7 - lat) * math.pi / 180 * 6371008.8
            de = (m.lon / 1e7 - lon) * math.pi / 180 * 6371008.8 * math.cos(lat * math.pi / 180)
            return math.hypot(dn, de) <= radius
        t0 = time.monotonic()
        t, m, _ = st.wait(near, step.get("timeout", 20), st.mark())
        return {"ok": m is not None, "after_ms": round((t - t0) * 1000) if t else None}
    if kind == "texts":
        mark = st.mark()
        time.sleep(step.get("seconds", 2))
        return {"texts": [m.text for m in st.since(mark, step["sysid"], "STATUSTEXT")]}
    if kind == "manual":
        n = int(step.get("seconds", 1) * step.get("rate", 20))
        for _ in range(n):
            st.send(st.mav.manual_control_send, step["sysid"], step.get("x", 0), step.get("y", 0), step.get("z", 500), step.get("r", 0), 0)
            time.sleep(1 / step.get("rate", 20))
        return {"sent": n}
    if kind == "params":
        mark = st.mark()
        st.send(st.mav.param_request_list_send, step["sysid"], 1)
        t, m, _ = st.wait(lambda m: m.get_type() == "PARAM_VALUE" and m.get_srcSystem() == step["sysid"], 5, mark)
        return {"params": [[m.param_id, m.param_value, m.param_count]] if m else []}
    if kind == "bench":
        return bench(st, step)
    return {"error": "unknown step " + kind}


def control_round_trip(path, request):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    t0 = time.monotonic()
    s.connect(path)
    s.sendall((json.dumps(request) + "\n").encode())
    data = b""
    while not data.endswith(b"\n"):
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    t1 = time.monotonic()
    s.close()
    return t1 - t0, json.loads(data)


def bench(st, step):
    sysid, count = step["sysid"], step["count"]
    mav_ms, ctl_ms, failures = [], [], []
    for i in range(count):
        r = command(st, {"sysid": sysid, "command": mavlink.MAV_CMD_DO_SET_MODE, "params": [1, 2], "texts_wait": 0}, False)
        if r["result"] == mavlink.MAV_RESULT_ACCEPTED:
            mav_ms.append(r["latency_ms"])
        else:
            failures.append({"mavlink": r})
        dt, resp = control_round_trip(step["socket"], {"command": "send", "uav": step["uav"], "args": ["hover"], "timeoutMs": 10000})
        answers = [a["answer"] for a in resp.get("command", {}).get("answers", [])]
        if answers[:1] == ["accepted"]:
            ctl_ms.append(round(dt * 1000, 3))
        else:
            failures.append({"control": resp})
        time.sleep(step.get("pause", 0.02))
    return {"mavlink_ms": mav_ms, "control_ms": ctl_ms, "failures": failures[:5], "failed": len(failures)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--connect", required=True, help="HOST:PORT of the station's ground-control endpoint")
    ap.add_argument("--steps", required=True, help="JSON list of steps")
    a = ap.parse_args()
    host, _, port = a.connect.rpartition(":")
    st = Station(host.strip("[]"), int(port))
    for step in json.loads(a.steps):
        out = run_step(st, step)
        out["do"] = step["do"]
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
