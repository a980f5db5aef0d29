#!/usr/bin/env python3
"""A small multirotor autopilot that speaks MAVLink 2 through pymavlink, for FleetMesh's bridge tests.

It behaves like PX4 or ArduPilot Copter as far as a companion computer sees them: HEARTBEAT with the firmware's
custom modes, telemetry streams (GLOBAL_POSITION_INT, ATTITUDE, SYS_STATUS, EXTENDED_SYS_STATE, HOME_POSITION),
COMMAND_LONG / COMMAND_INT with COMMAND_ACK, arming, mode changes, takeoff, land, return, reposition, position
targets (ArduPilot GUIDED, PX4 OFFBOARD with its setpoint-stream rule), MANUAL_CONTROL and mission upload, on a
simple kinematic model at 50 Hz. Everything it receives is written as JSON lines to --events, so tests can check
the conventions the bridge used.

Links:
  --link udpout:HOST:PORT   send to HOST:PORT (the bridge listens: vehicle = "mavlink:udpin:PORT")
  --link udpin:HOST:PORT    listen and answer the sender (vehicle = "mavlink:udp:HOST:PORT")
  --link pty:FILE           create a pseudo-terminal and write its device path to FILE (vehicle = "mavlink:serial:…")

Fault injection:
  --refuse-once CMD:RESULT  answer the first COMMAND_* with id CMD with MAV_RESULT RESULT (repeatable)
  --ignore-first CMD        do not answer the first transmission of command CMD (the bridge must retry)
Freeze it with SIGSTOP to make it silent; SIGCONT resumes.
"""
import argparse
import json
import math
import os
import select
import socket
import sys
import time

os.environ["MAVLINK20"] = "1"
from pymavlink.dialects.v20 import common as mavlink  # noqa: E402

R = 6371008.8
AP_MODES = {0: "STABILIZE", 2: "ALT_HOLD", 3: "AUTO", 4: "GUIDED", 5: "LOITER", 6: "RTL", 9: "LAND", 16: "POSHOLD", 17: "BRAKE"}


def px4_mode(main, sub=0):
    return (main << 16) | (sub << 24)


PX4_LOITER = px4_mode(4, 3)
PX4_TAKEOFF = px4_mode(4, 2)
PX4_LAND = px4_mode(4, 6)
PX4_RTL = px4_mode(4, 5)
PX4_MISSION = px4_mode(4, 4)
PX4_OFFBOARD = px4_mode(6)
PX4_POSCTL = px4_mode(3)


class Link:
    """Raw bytes in and out: UDP (either direction) or a pty master."""

    def __init__(self, spec):
        kind, _, rest = spec.partition(":")
        self.remote = None
        self.sock = None
        self.fd = None
        if kind in ("udpout", "udpin"):
            host, _, port = rest.rpartition(":")
            family = socket.AF_INET6 if ":" in host else socket.AF_INET
            self.sock = socket.socket(family, socket.SOCK_DGRAM)
            if kind == "udpin":
                self.sock.bind((host, int(port)))
            else:
                self.remote = (host, int(port))
            self.sock.setblocking(False)
        elif kind == "pty":
            master, slave = os.openpty()
            import tty
            tty.setraw(slave)
            self.fd = master
            self.slave = slave  # kept open so the pty stays valid while the bridge reopens it
            os.set_blocking(master, False)
            path = os.ttyname(slave)
            with open(rest + ".tmp", "w") as f:
                f.write(path)
            os.rename(rest + ".tmp", rest)
        else:
            sys.exit("unknown link " + spec)

    def fileno(self):
        return self.sock.fileno() if self.sock else self.fd

    def read(self):
        try:
            if self.sock:
                data, addr = self.sock.recvfrom(65535)
                self.remote = addr
                return data
            return os.read(self.fd, 4096)
        except (BlockingIOError, InterruptedError):
            return b""
        except OSError:
            return b""

    def write(self, data):
        try:
            if self.sock:
                if self.remote:
                    self.sock.sendto(data, self.remote)
            else:
                os.write(self.fd, data)
        except OSError:
            pass


class Autopilot:
    def __init__(self, args):
        self.args = args
        self.px4 = args.flavour == "px4"
        self.link = Link(args.link)
        self.mav = mavlink.MAVLink(self.link, srcSystem=args.sysid, srcComponent=1)
        self.mav.robust_parsing = True
        lat, lon, amsl = (float(x) for x in args.home.split(","))
        self.home = [lat, lon]
        self.home_amsl = amsl
        self.lat, self.lon, self.alt = lat, lon, 0.0  # alt above home
        self.vn = self.ve = self.vd = 0.0
        self.yaw = 0.0
        self.armed = False
        self.mode = PX4_LOITER if self.px4 else 5
        self.target = None  # (lat, lon, alt)
        self.takeoff_alt = None
        self.landing = False
        self.speed = 5.0
        self.battery = args.battery
        self.streams = not (args.flavour == "ardupilot")  # ArduPilot on a new link streams only what is asked for
        self.intervals = {}
        self.last_sent = {}
        self.last_setpoint = -1e9
        self.last_manual = None
        self.landed_since = None
        self.mission = []
        self.mission_expected = 0
        self.mission_seq = 0
        self.refuse = {}
        for r in args.refuse_once:
            c, res = r.split(":")
            self.refuse[int(c)] = int(res)
        self.ignore = set(int(c) for c in args.ignore_first)
        self.events = open(args.events, "a", buffering=1) if args.events else None
        self.t0 = time.monotonic()

    def log(self, **kw):
        if self.events:
            kw["t"] = round(time.monotonic() - self.t0, 3)
            self.events.write(json.dumps(kw) + "\n")

    # --- state -------------------------------------------------------------------------------------------------

    @property
    def on_ground(self):
        return self.alt <= 0.05 and self.takeoff_alt is None

    def landed_state(self):
        if self.on_ground:
            return mavlink.MAV_LANDED_STATE_ON_GROUND
        if self.takeoff_alt is not None:
            return mavlink.MAV_LANDED_STATE_TAKEOFF
        if self.landing:
            return mavlink.MAV_LANDED_STATE_LANDING
        return mavlink.MAV_LANDED_STATE_IN_AIR

    def set_mode(self, mode, reason):
        if mode != self.mode:
            self.mode = mode
            self.log(type="mode", mode=mode, reason=reason)
        if self.px4:
            self.landing = mode in (PX4_LAND,)
            if mode == PX4_RTL:
                self.target = (self.home[0], self.home[1], max(self.alt, 10.0))
            if mode in (PX4_LOITER, PX4_POSCTL) and self.target is None:
                self.target = (self.lat, self.lon, self.alt)
        else:
            self.landing = mode == 9
            if mode == 6:
                self.target = (self.home[0], self.home[1], max(self.alt, 10.0))
            if mode in (4, 5, 17) and self.target is None:
                self.target = (self.lat, self.lon, self.alt)
        if mode == (PX4_MISSION if self.px4 else 3):
            self.mission_seq = 0 if self.px4 else 1
        if mode == (PX4_LAND if self.px4 else 9):
            self.target = None

    # --- commands ------------------------------------------------------------------------------------------------

    def ack(self, msg, command, result):
        self.mav.command_ack_send(command, result, 0, 0, msg.get_srcSystem(), msg.get_srcComponent())

    def command(self, msg, cmd, p, x=None, y=None, z=None, frame=None, confirmation=0):
        self.log(type=msg.get_type(), command=cmd, params=[None if isinstance(v, float) and math.isnan(v) else v for v in p],
                 x=x, y=y, z=z, frame=frame, confirmation=confirmation, src=[msg.get_srcSystem(), msg.get_srcComponent()])
        if cmd in self.ignore:
            self.ignore.discard(cmd)
            self.log(type="ignored", command=cmd)
            return
        if cmd in self.refuse:
            self.ack(msg, cmd, self.refuse.pop(cmd))
            return
        self.ack(msg, cmd, self.execute(cmd, p, x, y, z, frame))

    def execute(self, cmd, p, x, y, z, frame):
        M = mavlink
        if cmd == M.MAV_CMD_SET_MESSAGE_INTERVAL:
            self.intervals[int(p[0])] = p[1] / 1e6
            self.streams = True
            return M.MAV_RESULT_ACCEPTED
        if cmd == M.MAV_CMD_REQUEST_MESSAGE:
            if int(p[0]) == M.MAVLINK_MSG_ID_HOME_POSITION:
                self.send_home()
                return M.MAV_RESULT_ACCEPTED
            return M.MAV_RESULT_UNSUPPORTED
        if cmd == M.MAV_CMD_DO_SET_MODE:
            if self.px4:
                mode = px4_mode(int(p[1]), int(p[2]))
                if mode == PX4_OFFBOARD and time.monotonic() - self.last_setpoint > 1.0:
                    return M.MAV_RESULT_DENIED  # PX4 refuses OFFBOARD without a setpoint stream
                if mode not in (PX4_LOITER, PX4_LAND, PX4_RTL, PX4_MISSION, PX4_OFFBOARD, PX4_POSCTL, PX4_TAKEOFF):
                    return M.MAV_RESULT_DENIED
            else:
                mode = int(p[1])
                if mode not in AP_MODES:
                    return M.MAV_RESULT_DENIED
            self.set_mode(mode, "DO_SET_MODE")
            return M.MAV_RESULT_ACCEPTED
        if cmd == M.MAV_CMD_COMPONENT_ARM_DISARM:
            if p[0] >= 0.5:
                if not self.on_ground:
                    return M.MAV_RESULT_ACCEPTED if self.armed else M.MAV_RESULT_DENIED
                if not self.px4 and self.mode not in (4, 5, 0, 2, 16):
                    return M.MAV_RESULT_DENIED
                self.armed = True
                self.landed_since = time.monotonic()
                self.mav.statustext_send(M.MAV_SEVERITY_INFO, b"Arming motors")
                self.log(type="armed")
                return M.MAV_RESULT_ACCEPTED
            if not self.on_ground:
                return M.MAV_RESULT_DENIED
            self.armed = False
            return M.MAV_RESULT_ACCEPTED
        if cmd == M.MAV_CMD_NAV_TAKEOFF:
            if not self.armed or not self.on_ground:
                return M.MAV_RESULT_DENIED
            if self.px4:
                alt = p[6] - self.home_amsl if not math.isnan(p[6]) else 2.5
                self.set_mode(PX4_TAKEOFF, "takeoff")
            else:
                if self.mode != 4:
                    return M.MAV_RESULT_DENIED  # ArduPilot takes off only in GUIDED
                alt = p[6]
            if alt <= 0:
                return M.MAV_RESULT_DENIED
            self.takeoff_alt = alt
            self.target = (self.lat, self.lon, alt)
            return M.MAV_RESULT_ACCEPTED
        if cmd == M.MAV_CMD_NAV_LAND:
            if self.on_ground:
                return M.MAV_RESULT_DENIED
            self.set_mode(PX4_LAND if self.px4 else 9, "NAV_LAND")
            return M.MAV_RESULT_ACCEPTED
        if cmd == M.MAV_CMD_NAV_RETURN_TO_LAUNCH:
            if self.on_ground:
                return M.MAV_RESULT_DENIED
            self.set_mode(PX4_RTL if self.px4 else 6, "NAV_RETURN_TO_LAUNCH")
            return M.MAV_RESULT_ACCEPTED
        if cmd == M.MAV_CMD_DO_CHANGE_SPEED:
            if p[1] > 0:
                self.speed = p[1]
            return M.MAV_RESULT_ACCEPTED
        if cmd == M.MAV_CMD_DO_REPOSITION:
            if self.on_ground or x is None:
                return M.MAV_RESULT_DENIED
            alt = z - self.home_amsl if frame in (M.MAV_FRAME_GLOBAL, M.MAV_FRAME_GLOBAL_INT) else z
            if p[0] > 0:
                self.speed = p[0]
            self.target = (x / 1e7, y / 1e7, alt)
            self.set_mode(PX4_LOITER if self.px4 else 4, "DO_REPOSITION")
            return M.MAV_RESULT_ACCEPTED
        return M.MAV_RESULT_UNSUPPORTED

    def handle(self, msg):
        M = mavlink
        t = msg.get_type()
        if t == "BAD_DATA":
            return
        if t == "HEARTBEAT":
            if not getattr(self, "gcs_seen", False):
                self.gcs_seen = True
                self.log(type="HEARTBEAT", src=[msg.get_srcSystem(), msg.get_srcComponent()], mavtype=msg.type, autopilot=msg.autopilot)
            return
        if t == "COMMAND_LONG":
            if msg.target_system != self.args.sysid:
                return
            p = [msg.param1, msg.param2, msg.param3, msg.param4, msg.param5, msg.param6, msg.param7]
            self.command(msg, msg.command, p, confirmation=msg.confirmation)
        elif t == "COMMAND_INT":
            if msg.target_system != self.args.sysid:
                return
            p = [msg.param1, msg.param2, msg.param3, msg.param4, float("nan"), float("nan"), msg.z]
            self.command(msg, msg.command, p, msg.x, msg.y, msg.z, msg.frame)
        elif t == "SET_POSITION_TARGET_GLOBAL_INT":
            if msg.target_system != self.args.sysid:
                return
            self.last_setpoint = time.monotonic()
            n = getattr(self, "setpoints", 0) + 1
            self.setpoints = n
            if n <= 3 or n % 50 == 0:
                self.log(type=t, n=n, frame=msg.coordinate_frame, type_mask=msg.type_mask, lat=msg.lat_int, lon=msg.lon_int, alt=msg.alt)
            alt = msg.alt - self.home_amsl if msg.coordinate_frame == M.MAV_FRAME_GLOBAL_INT else msg.alt
            if self.armed and not self.on_ground and self.mode == (PX4_OFFBOARD if self.px4 else 4):
                self.target = (msg.lat_int / 1e7, msg.lon_int / 1e7, alt)
        elif t == "MANUAL_CONTROL":
            if msg.target != self.args.sysid:
                return
            self.last_manual = (time.monotonic(), msg.x, msg.y, msg.z, msg.r)
            n = getattr(self, "manuals", 0) + 1
            self.manuals = n
            if n <= 3:
                self.log(type=t, x=msg.x, y=msg.y, z=msg.z, r=msg.r)
        elif t == "MISSION_COUNT":
            self.log(type=t, count=msg.count)
            self.mission = []
            self.mission_expected = msg.count
            self.mav.mission_request_int_send(msg.get_srcSystem(), msg.get_srcComponent(), 0, 0)
        elif t == "MISSION_ITEM_INT":
            if msg.seq != len(self.mission):
                return
            self.mission.append((msg.x / 1e7, msg.y / 1e7, msg.z, msg.frame))
            self.log(type=t, seq=msg.seq, frame=msg.frame, x=msg.x, y=msg.y, z=msg.z)
            if len(self.mission) < self.mission_expected:
                self.mav.mission_request_int_send(msg.get_srcSystem(), msg.get_srcComponent(), len(self.mission), 0)
            else:
                self.mav.mission_ack_send(msg.get_srcSystem(), msg.get_srcComponent(), M.MAV_MISSION_ACCEPTED, 0)
        elif t == "MISSION_SET_CURRENT":
            self.mission_seq = msg.seq

    # --- physics -------------------------------------------------------------------------------------------------

    def step(self, dt):
        now = time.monotonic()
        if not self.armed:
            self.vn = self.ve = self.vd = 0.0
            return
        # PX4 leaves OFFBOARD when setpoints stop for 0.5 s (COM_OF_LOSS_T): it holds position instead.
        if self.px4 and self.mode == PX4_OFFBOARD and now - self.last_setpoint > 0.5:
            self.set_mode(PX4_LOITER, "offboard setpoints lost")
            self.target = (self.lat, self.lon, self.alt)
        goal = self.target
        manual_mode = self.mode == (PX4_POSCTL if self.px4 else 5)
        if manual_mode and self.last_manual and now - self.last_manual[0] < 0.5:
            _, mx, my, mz, _ = self.last_manual
            self.vn, self.ve, self.vd = mx / 1000 * 3, my / 1000 * 3, -(mz - 500) / 500 * 1.5
            goal = None
        elif self.mode == (PX4_MISSION if self.px4 else 3) and self.mission:
            if self.mission_seq < len(self.mission):
                la, lo, al, _ = self.mission[self.mission_seq]
                goal = (la, lo, al)
        if self.landing or (self.mode == (PX4_RTL if self.px4 else 6) and goal and self.dist(goal) < 0.5):
            self.landing = True
            self.vn = self.ve = 0.0
            self.vd = 1.5
        elif goal is not None:
            dn = (goal[0] - self.lat) * math.pi / 180 * R
            de = (goal[1] - self.lon) * math.pi / 180 * R * math.cos(self.lat * math.pi / 180)
            d = math.hypot(dn, de)
            v = min(self.speed, d / max(dt, 1e-3)) if d > 0.01 else 0.0
            self.vn, self.ve = (dn / d * v, de / d * v) if d > 0.01 else (0.0, 0.0)
            dz = goal[2] - self.alt
            self.vd = -max(-1.5, min(2.0, dz / max(dt, 1e-3))) if abs(dz) > 0.01 else 0.0
            if d > 0.3:
                self.yaw = math.atan2(self.ve, self.vn)
        elif not manual_mode:
            self.vn = self.ve = self.vd = 0.0
        self.lat += self.vn * dt / R * 180 / math.pi
        self.lon += self.ve * dt / (R * math.cos(self.lat * math.pi / 180)) * 180 / math.pi
        self.alt = max(0.0, self.alt - self.vd * dt)
        if self.takeoff_alt is not None and self.alt >= self.takeoff_alt - 0.1:
            self.takeoff_alt = None
            if self.px4:
                self.set_mode(PX4_LOITER, "takeoff done")
        if self.mode == (PX4_MISSION if self.px4 else 3) and self.mission and self.mission_seq < len(self.mission):
            la, lo, al, _ = self.mission[self.mission_seq]
            if self.dist((la, lo, al)) < 0.5 and abs(self.alt - al) < 0.5:
                self.mav.mission_item_reached_send(self.mission_seq)
                self.log(type="MISSION_ITEM_REACHED", seq=self.mission_seq)
                self.mission_seq += 1
        if self.alt <= 0.0 and self.takeoff_alt is None and (self.landing or self.vd > 0):
            self.vd = 0.0
            if self.landed_since is None:
                self.landed_since = now
            if now - self.landed_since > 0.5 and self.landing:
                self.armed = False
                self.landing = False
                self.target = None
                self.log(type="disarmed", reason="landed")
                self.mav.statustext_send(mavlink.MAV_SEVERITY_INFO, b"Disarming motors")
        else:
            self.landed_since = None if self.alt > 0.05 else self.landed_since

    def dist(self, p):
        dn = (p[0] - self.lat) * math.pi / 180 * R
        de = (p[1] - self.lon) * math.pi / 180 * R * math.cos(self.lat * math.pi / 180)
        return math.hypot(dn, de)

    # --- telemetry -----------------------------------------------------------------------------------------------

    def due(self, msg_id, default):
        interval = self.intervals.get(msg_id, default if self.streams else None)
        if interval is None or interval <= 0:
            return False
        now = time.monotonic()
        if now - self.last_sent.get(msg_id, 0) >= interval:
            self.last_sent[msg_id] = now
            return True
        return False

    def send_home(self):
        self.mav.home_position_send(int(self.home[0] * 1e7), int(self.home[1] * 1e7), int(self.home_amsl * 1000),
                                    0, 0, 0, [1, 0, 0, 0], 0, 0, 0)

    def telemetry(self):
        M = mavlink
        now = time.monotonic()
        boot = int((now - self.t0) * 1000)
        if now - self.last_sent.get("hb", 0) >= 1.0:
            self.last_sent["hb"] = now
            base = M.MAV_MODE_FLAG_CUSTOM_MODE_ENABLED | (M.MAV_MODE_FLAG_SAFETY_ARMED if self.armed else 0)
            self.mav.heartbeat_send(M.MAV_TYPE_QUADROTOR, M.MAV_AUTOPILOT_PX4 if self.px4 else M.MAV_AUTOPILOT_ARDUPILOTMEGA,
                                    base, self.mode, M.MAV_STATE_ACTIVE if self.armed else M.MAV_STATE_STANDBY)
        if self.due(M.MAVLINK_MSG_ID_GLOBAL_POSITION_INT, 0.1):
            hdg = int((math.degrees(self.yaw) % 360) * 100)
            self.mav.global_position_int_send(boot, int(self.lat * 1e7), int(self.lon * 1e7),
                                              int((self.home_amsl + self.alt) * 1000), int(self.alt * 1000),
                                              int(self.vn * 100), int(self.ve * 100), int(self.vd * 100), hdg)
        if self.due(M.MAVLINK_MSG_ID_ATTITUDE, 0.1):
            self.mav.attitude_send(boot, 0.0, 0.0, self.yaw, 0.0, 0.0, 0.0)
        if self.due(M.MAVLINK_MSG_ID_SYS_STATUS, 1.0):
            self.mav.sys_status_send(0, 0, 0, 300, 15800, 1200, self.battery, 0, 0, 0, 0, 0, 0)
        if self.due(M.MAVLINK_MSG_ID_EXTENDED_SYS_STATE, 1.0) or getattr(self, "last_landed", None) != self.landed_state():
            self.last_landed = self.landed_state()
            self.mav.extended_sys_state_send(0, self.landed_state())
        if self.due(M.MAVLINK_MSG_ID_HOME_POSITION, 5.0):
            self.send_home()

    def run(self):
        last = time.monotonic()
        self.log(type="started", flavour=self.args.flavour, sysid=self.args.sysid)
        while True:
            r, _, _ = select.select([self.link], [], [], 0.02)
            if r:
                while True:
                    data = self.link.read()
                    if not data:
                        break
                    for m in self.mav.parse_buffer(data) or []:
                        self.handle(m)
            now = time.monotonic()
            dt = min(now - last, 0.2)  # after SIGSTOP/SIGCONT: no teleporting
            if dt >= 0.02:
                self.step(dt)
                last = now
            self.telemetry()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--flavour", choices=["px4", "ardupilot"], default="ardupilot")
    ap.add_argument("--sysid", type=int, default=1)
    ap.add_argument("--link", required=True)
    ap.add_argument("--home", default="50.0901,14.4101,300")
    ap.add_argument("--battery", type=int, default=87)
    ap.add_argument("--events")
    ap.add_argument("--refuse-once", action="append", default=[])
    ap.add_argument("--ignore-first", action="append", default=[])
    Autopilot(ap.parse_args()).run()


if __name__ == "__main__":
    main()
