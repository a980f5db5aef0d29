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

Like the firmware (every option off by default, which is the plain kinematic model: the commanded velocity at once,
no wind, exact positions):
  --lag SECONDS             first-order response: the velocity follows the position controller's demand with this
                            time constant (a real copter: 0.3-0.5 s)
  --delay SECONDS           transport delay: every message received is handled this much later (setpoints, commands)
  --wind E,N[,GUST]         steady wind east and north, m/s, and the gusts' standard deviation per axis, m/s; a drone
                            without a position target (ArduPilot STABILIZE / ALT_HOLD) drifts with it, the position
                            controller fights it (the steady part is rejected in about 0.5 s, gusts push it off)
  --gps-noise SIGMA         error of the reported position, metres per horizontal axis (1.5 x vertically): a
                            Gauss-Markov process with a 20 s correlation time, on GLOBAL_POSITION_INT only
  --seed N                  seed of the wind and noise generator
  --offboard-prestream S    PX4 enters OFFBOARD only after position setpoints streamed at 2 Hz or more for S seconds
                            (real PX4's rule); without it, one setpoint within the last second is enough
  --track FILE              the true state at 10 Hz as JSON lines (wall-clock time, lat, lon, alt above home, mode):
                            what a test measures separation on, free of GPS noise and telemetry latency
The cruise speed is 5 m/s (MAV_CMD_DO_CHANGE_SPEED changes it, -2 restores it; PX4 ignores it in OFFBOARD).

Fault injection:
  --refuse-once CMD:RESULT  answer the first COMMAND_* with id CMD with MAV_RESULT RESULT (repeatable)
  --ignore-first CMD        do not answer the first transmission of command CMD (the bridge must retry)
  SIGUSR1                   the pilot takes over with the RC mode switch: ArduPilot LOITER, PX4 POSCTL; the drone
                            brakes and holds where it is, ignores position targets, says so in a STATUSTEXT
  SIGUSR2                   setpoints are ignored from now on: the mode stays GUIDED / OFFBOARD (the stream still
                            counts for PX4's OFFBOARD rule) but the drone keeps flying to its last target
  --fault-at T:KIND[:SECS]  the same at T seconds after start, scripted (repeatable); KIND: takeover, ignore (SECS:
                            for that long), rtl (the firmware's own return, e.g. a battery failsafe), silent (nothing
                            sent, nothing heard, for SECS or for good; it keeps flying what it flew)
Every fault is logged to --events as {"type": "fault", "kind": ...}. Freeze it with SIGSTOP to make it silent
without flying on; SIGCONT resumes.
"""
import argparse
import collections
import json
import math
import os
import random
import select
import signal
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
CRUISE = 5.0  # m/s: WPNAV_SPEED / MPC_XY_CRUISE
FAULT_KINDS = ("takeover", "ignore", "rtl", "silent")


def fault_spec(text):
    """`T:KIND[:SECONDS]` → (T, KIND, SECONDS or None), with an error naming the part that is wrong."""
    parts = text.split(":")
    if len(parts) not in (2, 3):
        raise argparse.ArgumentTypeError(f"--fault-at {text!r}: expected T:KIND[:SECONDS]")
    try:
        at = float(parts[0])
    except ValueError:
        raise argparse.ArgumentTypeError(f"--fault-at {text!r}: T must be seconds after start, found {parts[0]!r}")
    if parts[1] not in FAULT_KINDS:
        raise argparse.ArgumentTypeError(f"--fault-at {text!r}: KIND must be one of {', '.join(FAULT_KINDS)}")
    seconds = None
    if len(parts) == 3:
        try:
            seconds = float(parts[2])
        except ValueError:
            raise argparse.ArgumentTypeError(f"--fault-at {text!r}: SECONDS must be a number, found {parts[2]!r}")
    return at, parts[1], seconds


def wind_spec(text):
    """`E,N[,GUST]` in m/s."""
    try:
        values = [float(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--wind {text!r}: expected E,N[,GUST] in m/s")
    if len(values) not in (2, 3) or (len(values) == 3 and values[2] < 0):
        raise argparse.ArgumentTypeError(f"--wind {text!r}: expected E,N[,GUST] in m/s, GUST not negative")
    return (values[0], values[1], values[2] if len(values) == 3 else 0.0)


def non_negative(name):
    def parse(text):
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} {text!r}: expected seconds or metres, a number")
        if v < 0 or not math.isfinite(v):
            raise argparse.ArgumentTypeError(f"{name} {text!r}: must be 0 or more")
        return v
    return parse


class Link:
    """Raw bytes in and out: UDP (either direction) or a pty master."""

    def __init__(self, spec):
        kind, _, rest = spec.partition(":")
        self.remote = None
        self.sock = None
        self.fd = None
        self.muted = False  # the silent fault: nothing goes out
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
        if self.muted:
            return
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
        self.track = open(args.track, "a", buffering=1) if args.track else None
        self.t0 = time.monotonic()
        # Like the firmware: response lag, transport delay, wind, GPS noise (all off by default).
        self.random = random.Random(args.seed)
        self.wind = args.wind or (0.0, 0.0, 0.0)
        self.dynamic = args.lag > 0 or any(self.wind)
        self.inbox = collections.deque()  # (due, message) while --delay holds them
        self.gust = [0.0, 0.0]  # wind variation, m/s east, north
        self.wind_estimate = [0.0, 0.0]  # what the velocity loop has learnt to lean into
        self.gps_error = [0.0, 0.0, 0.0]  # metres east, north, up
        if args.gps_noise > 0:
            self.gps_error = [self.random.gauss(0, args.gps_noise) for _ in range(2)] + [self.random.gauss(0, 1.5 * args.gps_noise)]
        self.hold = None  # (lat, lon) a landing holds
        self.stream_since = None  # the first setpoint of the unbroken stream (PX4's OFFBOARD entry rule)
        # Faults.
        self.pilot = False  # the pilot's RC switch took the drone
        self.ignoring_until = None  # setpoints ignored until this time (inf: for good)
        self.silent_until = None  # nothing sent or heard until this time
        self.pending_faults = []  # (signal or script, kind, seconds) to apply in the loop
        self.scripted = sorted(args.fault_at)

    def log(self, **kw):
        if self.events:
            kw["t"] = round(time.monotonic() - self.t0, 3)
            kw["wall"] = round(time.time(), 3)
            self.events.write(json.dumps(kw) + "\n")

    def mode_name(self, mode=None):
        mode = self.mode if mode is None else mode
        if not self.px4:
            return AP_MODES.get(mode, str(mode))
        names = {PX4_LOITER: "AUTO.LOITER", PX4_TAKEOFF: "AUTO.TAKEOFF", PX4_LAND: "AUTO.LAND", PX4_RTL: "AUTO.RTL",
                 PX4_MISSION: "AUTO.MISSION", PX4_OFFBOARD: "OFFBOARD", PX4_POSCTL: "POSCTL"}
        return names.get(mode, str(mode))

    # --- faults --------------------------------------------------------------------------------------------------

    def fault(self, kind, trigger, seconds=None):
        """Applies one fault now and logs it with where the drone is."""
        now = time.monotonic()
        until = now + seconds if seconds is not None else math.inf
        if kind == "takeover":
            # The RC mode switch: position hold with the sticks centred. It brakes where it is and ignores targets.
            self.pilot = True
            self.target = (self.lat, self.lon, self.alt)
            self.set_mode(PX4_POSCTL if self.px4 else 5, "pilot: RC mode switch")
            self.statustext(mavlink.MAV_SEVERITY_WARNING, f"RC mode switch: {self.mode_name()}, pilot in control")
        elif kind == "ignore":
            self.ignoring_until = until
        elif kind == "rtl":
            self.set_mode(PX4_RTL if self.px4 else 6, "failsafe")
            self.statustext(mavlink.MAV_SEVERITY_CRITICAL, "Failsafe: returning to launch")
        elif kind == "silent":
            self.silent_until = until
        self.log(type="fault", kind=kind, trigger=trigger, seconds=seconds, mode=self.mode_name(),
                 lat=self.lat, lon=self.lon, alt=round(self.alt, 3))

    def faults_due(self):
        now = time.monotonic()
        while self.pending_faults:
            trigger, kind = self.pending_faults.pop(0)
            self.fault(kind, trigger)
        while self.scripted and now - self.t0 >= self.scripted[0][0]:
            _, kind, seconds = self.scripted.pop(0)
            self.fault(kind, "script", seconds)
        if self.ignoring_until is not None and now >= self.ignoring_until:
            self.ignoring_until = None
            self.log(type="fault_over", kind="ignore")
        if self.silent_until is not None and now >= self.silent_until:
            self.silent_until = None
            self.log(type="fault_over", kind="silent")

    @property
    def silent(self):
        return self.silent_until is not None

    def statustext(self, severity, text):
        self.mav.statustext_send(severity, text.encode()[:50])

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
            if self.px4 and mode != PX4_TAKEOFF and self.takeoff_alt is not None and self.alt > 0.05:
                self.takeoff_alt = None  # another mode ends AUTO.TAKEOFF where it is (it must not switch back later)
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
                if mode == PX4_OFFBOARD and mode != self.mode and not self.offboard_ready():
                    return M.MAV_RESULT_DENIED  # PX4 refuses OFFBOARD without a setpoint stream
                if mode not in (PX4_LOITER, PX4_LAND, PX4_RTL, PX4_MISSION, PX4_OFFBOARD, PX4_POSCTL, PX4_TAKEOFF):
                    return M.MAV_RESULT_DENIED
            else:
                mode = int(p[1])
                if mode not in AP_MODES:
                    return M.MAV_RESULT_DENIED
            self.pilot = False  # a ground station's mode request is obeyed, as the firmware does
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
            elif p[1] == -2:
                self.speed = CRUISE  # back to the vehicle's default
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

    def offboard_ready(self):
        """PX4's OFFBOARD entry rule: today's (a setpoint within a second), or with --offboard-prestream the real one
        (setpoints at 2 Hz or more, unbroken, for that long)."""
        now = time.monotonic()
        if self.args.offboard_prestream is None:
            return now - self.last_setpoint <= 1.0
        streamed = now - self.stream_since if self.stream_since is not None and now - self.last_setpoint <= 0.5 else 0.0
        if streamed >= self.args.offboard_prestream:
            return True
        self.log(type="offboard_denied", streamed=round(streamed, 3), needed=self.args.offboard_prestream)
        return False

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
            now = time.monotonic()
            if self.stream_since is None or now - self.last_setpoint > 0.5:
                self.stream_since = now  # a new stream: PX4 counts its 2 Hz from here
            self.last_setpoint = now
            n = getattr(self, "setpoints", 0) + 1
            self.setpoints = n
            alt = msg.alt - self.home_amsl if msg.coordinate_frame == M.MAV_FRAME_GLOBAL_INT else msg.alt
            ignored = "pilot" if self.pilot else "fault" if self.ignoring_until is not None else None
            if n <= 3 or n % 50 == 0 or ignored:
                self.log(type=t, n=n, frame=msg.coordinate_frame, type_mask=msg.type_mask, lat=msg.lat_int, lon=msg.lon_int, alt=msg.alt,
                         **({"ignored": ignored} if ignored else {}))
            if ignored is None and self.armed and not self.on_ground and self.mode == (PX4_OFFBOARD if self.px4 else 4):
                self.target = (msg.lat_int / 1e7, msg.lon_int / 1e7, alt)
                if self.takeoff_alt is not None and self.alt > 0.05:
                    self.takeoff_alt = None  # ArduPilot: a position target in GUIDED ends the takeoff
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
        stick = None
        if manual_mode and self.last_manual and now - self.last_manual[0] < 0.5:
            _, mx, my, mz, _ = self.last_manual
            stick = (mx / 1000 * 3, my / 1000 * 3, -(mz - 500) / 500 * 1.5)
            if not self.dynamic:
                self.vn, self.ve, self.vd = stick
            goal = None
        elif self.mode == (PX4_MISSION if self.px4 else 3) and self.mission:
            if self.mission_seq < len(self.mission):
                la, lo, al, _ = self.mission[self.mission_seq]
                goal = (la, lo, al)
        reached = 1.0 if self.dynamic else 0.5  # a copter in gusts settles within a metre, not on the point
        if self.landing or (self.mode == (PX4_RTL if self.px4 else 6) and goal and self.dist(goal) < reached):
            self.landing = True
        if self.dynamic:
            self.fly(goal, stick, dt)
        elif self.landing:
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
            if self.dist((la, lo, al)) < reached and abs(self.alt - al) < 0.5:
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

    def offset(self, p):
        """Metres north and east from here to p (lat, lon, …)."""
        return ((p[0] - self.lat) * math.pi / 180 * R,
                (p[1] - self.lon) * math.pi / 180 * R * math.cos(self.lat * math.pi / 180))

    def fly(self, goal, stick, dt):
        """The firmware-like model (--lag, --wind): the position controller asks for a ground velocity (proportional
        to the distance, capped at the cruise speed; climb 2 m/s, descent 1.5 m/s); the velocity loop leans into the
        wind it has learnt (0.5 s) and the drone's velocity follows its demand with the --lag time constant. Gusts the
        velocity loop has not learnt yet push the drone off; without a position controller it drifts with the wind."""
        lag = self.args.lag
        follow = 1 - math.exp(-dt / lag) if lag > 0 else 1.0
        cruise = CRUISE if self.px4 and self.mode == PX4_OFFBOARD else self.speed  # PX4 ignores DO_CHANGE_SPEED there
        east, north, gust = self.wind
        if gust > 0:
            k = min(1.0, dt / 2.0)  # gusts with a correlation time of about 2 s
            self.gust = [g * (1 - k) + self.random.gauss(0, 1) * gust * math.sqrt(2 * k) for g in self.gust]
        wind = (north + self.gust[1], east + self.gust[0])  # north, east
        learn = min(1.0, dt / 0.5)
        self.wind_estimate = [w + (x - w) * learn for w, x in zip(self.wind_estimate, wind)]
        gain = 1.0  # position controller, 1/s
        controlled = True
        if self.landing:
            self.hold = self.hold or (self.lat, self.lon)
            dn, de = self.offset(self.hold)
            want, up = (dn * gain, de * gain), -1.5
        elif stick is not None:
            want, up = (stick[0], stick[1]), -stick[2]
        elif goal is not None and (self.px4 or self.mode not in (0, 2)):
            dn, de = self.offset(goal)
            d = math.hypot(dn, de)
            v = min(cruise, gain * d)
            want = (dn / d * v, de / d * v) if d > 0.01 else (0.0, 0.0)
            up = max(-1.5, min(2.0, 1.5 * gain * (goal[2] - self.alt)))
        else:
            controlled = False  # ArduPilot STABILIZE / ALT_HOLD, or nothing to hold: level, drifting with the wind
            want, up = (0.0, 0.0), 0.0
        if not self.landing:
            self.hold = None
        if self.alt <= 0.0 and up <= 0 and self.takeoff_alt is None:
            self.vn = self.ve = self.vd = 0.0  # on the ground: the wind does not move it
            return
        # The air-relative velocity follows the demand less the wind the loop leans into; the ground velocity is that
        # plus the real wind.
        air = (self.vn - wind[0], self.ve - wind[1])
        if controlled:
            demand = (want[0] - self.wind_estimate[0], want[1] - self.wind_estimate[1])
        else:
            demand = (0.0, 0.0)
        air = (air[0] + (demand[0] - air[0]) * follow, air[1] + (demand[1] - air[1]) * follow)
        self.vn, self.ve = air[0] + wind[0], air[1] + wind[1]
        self.vd = -(-self.vd + (up - -self.vd) * follow)
        if math.hypot(self.vn, self.ve) > 0.5:
            self.yaw = math.atan2(self.ve, self.vn)

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

    def measure(self, dt):
        """The GPS error moves on (a Gauss-Markov process, 20 s correlation time); the true state goes to --track."""
        sigma = self.args.gps_noise
        if sigma > 0:
            k = min(1.0, dt / 20.0)
            scale = [sigma, sigma, 1.5 * sigma]
            self.gps_error = [e * (1 - k) + self.random.gauss(0, 1) * s * math.sqrt(2 * k) for e, s in zip(self.gps_error, scale)]
        now = time.monotonic()
        if self.track and now - self.last_sent.get("track", 0) >= 0.1:
            self.last_sent["track"] = now
            self.track.write(json.dumps({"t": round(time.time(), 3), "lat": self.lat, "lon": self.lon, "alt": round(self.alt, 3),
                                         "mode": self.mode_name(), "armed": self.armed}) + "\n")

    def reported(self):
        """What the autopilot believes: the true position plus the GPS error (lat, lon, alt above home)."""
        e, n, u = self.gps_error
        return (self.lat + n / R * 180 / math.pi,
                self.lon + e / (R * math.cos(self.lat * math.pi / 180)) * 180 / math.pi,
                self.alt + u)

    def telemetry(self):
        M = mavlink
        now = time.monotonic()
        boot = int((now - self.t0) * 1000)
        if self.silent:
            return
        if now - self.last_sent.get("hb", 0) >= 1.0:
            self.last_sent["hb"] = now
            base = M.MAV_MODE_FLAG_CUSTOM_MODE_ENABLED | (M.MAV_MODE_FLAG_SAFETY_ARMED if self.armed else 0)
            self.mav.heartbeat_send(M.MAV_TYPE_QUADROTOR, M.MAV_AUTOPILOT_PX4 if self.px4 else M.MAV_AUTOPILOT_ARDUPILOTMEGA,
                                    base, self.mode, M.MAV_STATE_ACTIVE if self.armed else M.MAV_STATE_STANDBY)
        if self.due(M.MAVLINK_MSG_ID_GLOBAL_POSITION_INT, 0.1):
            hdg = int((math.degrees(self.yaw) % 360) * 100)
            lat, lon, alt = self.reported()
            self.mav.global_position_int_send(boot, int(round(lat * 1e7)), int(round(lon * 1e7)),
                                              int((self.home_amsl + alt) * 1000), int(alt * 1000),
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
        signal.signal(signal.SIGUSR1, lambda *_: self.pending_faults.append(("SIGUSR1", "takeover")))
        signal.signal(signal.SIGUSR2, lambda *_: self.pending_faults.append(("SIGUSR2", "ignore")))
        a = self.args
        self.log(type="started", flavour=a.flavour, sysid=a.sysid, lag=a.lag, delay=a.delay, wind=list(self.wind),
                 gps_noise=a.gps_noise, seed=a.seed, offboard_prestream=a.offboard_prestream)
        while True:
            r, _, _ = select.select([self.link], [], [], 0.02)
            if r:
                while True:
                    data = self.link.read()
                    if not data:
                        break
                    if self.silent:
                        continue  # a dead link: nothing heard either
                    for m in self.mav.parse_buffer(data) or []:
                        self.inbox.append((time.monotonic() + a.delay, m))
            now = time.monotonic()
            while self.inbox and self.inbox[0][0] <= now:
                self.handle(self.inbox.popleft()[1])
            self.faults_due()
            self.link.muted = self.silent
            dt = min(now - last, 0.2)  # after SIGSTOP/SIGCONT: no teleporting
            if dt >= 0.02:
                self.step(dt)
                self.measure(dt)
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
    ap.add_argument("--lag", type=non_negative("--lag"), default=0.0)
    ap.add_argument("--delay", type=non_negative("--delay"), default=0.0)
    ap.add_argument("--wind", type=wind_spec)
    ap.add_argument("--gps-noise", type=non_negative("--gps-noise"), default=0.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--offboard-prestream", type=non_negative("--offboard-prestream"))
    ap.add_argument("--fault-at", type=fault_spec, action="append", default=[])
    ap.add_argument("--track")
    Autopilot(ap.parse_args()).run()


if __name__ == "__main__":
    main()
