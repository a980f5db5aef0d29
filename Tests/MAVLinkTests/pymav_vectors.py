#!/usr/bin/env python3
"""Cross-check helper for MAVLinkTests: pymavlink (an independent implementation) builds and parses frames.

  generate --seed N --key HEX --link L --timestamp T --messages A,B,...
      For every message: one random unsigned MAVLink 2 frame ("v2"), one all-zero frame ("v2zero",
      exercising payload truncation), one random signed frame ("v2signed"), and — when the message exists
      in pymavlink's MAVLink 1 dialect and its id fits 8 bits — one random MAVLink 1 frame ("v1").
      Prints one JSON object per line: {"name", "kind", "hex", "fields"}.

  parse --key HEX
      Reads hex frames (one per line) from stdin or --input FILE, parses each with pymavlink (signature checked with the key),
      re-packs the decoded message with the same header (and link id / timestamp when signed) and prints
      {"ok", "name", "signed", "fields", "repack"} or {"ok": false, "error"} per line.

Field values are printed as strings (integers in decimal, floats as repr of the float32 value widened to
double) so that 64-bit integers and floats cross JSON without loss.
"""

import json
import random
import struct
import sys

try:
    from pymavlink.dialects.v20 import common as v2
    from pymavlink.dialects.v10 import common as v1
except ImportError:
    sys.stderr.write("pymavlink is not installed: run `python3 -m pip install pymavlink`\n")
    sys.exit(3)

INT_RANGES = {
    "int8_t": (-128, 127), "uint8_t": (0, 255), "uint8_t_mavlink_version": (0, 255),
    "int16_t": (-32768, 32767), "uint16_t": (0, 65535),
    "int32_t": (-2**31, 2**31 - 1), "uint32_t": (0, 2**32 - 1),
    "int64_t": (-2**63, 2**63 - 1), "uint64_t": (0, 2**64 - 1),
}
LETTERS = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _-"


def class_named(module, name):
    for cls in module.mavlink_map.values():
        if cls.msgname == name:
            return cls
    return None


def field_specs(cls):
    """(name, type, array_length) in constructor (XML) order."""
    out = []
    for name, ftype in zip(cls.fieldnames, cls.fieldtypes):
        length = cls.array_lengths[cls.ordered_fieldnames.index(name)]
        out.append((name, ftype, length))
    return out


def random_scalar(rng, ftype, zero):
    if zero:
        return 0.0 if ftype in ("float", "double") else 0
    if ftype == "float":
        return struct.unpack("<f", struct.pack("<f", rng.uniform(-1e6, 1e6)))[0]
    if ftype == "double":
        return rng.uniform(-1e12, 1e12)
    lo, hi = INT_RANGES[ftype]
    return rng.randint(lo, hi)


def random_values(rng, cls, zero=False):
    values = []
    for name, ftype, length in field_specs(cls):
        if ftype == "char":
            n = 0 if zero else rng.randint(0, length)
            values.append(bytes(rng.choice(LETTERS) for _ in range(n)))
        elif length:
            values.append([random_scalar(rng, ftype, zero) for _ in range(length)])
        else:
            values.append(random_scalar(rng, ftype, zero))
    return values


def as_text(v):
    if isinstance(v, (bytes, bytearray)):
        return [str(x) for x in v]
    if isinstance(v, (list, tuple)):
        return [as_text(x) for x in v]
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, int):
        return str(v)
    return v


def fields_of(msg):
    return {k: as_text(v) for k, v in msg.to_dict().items() if k != "mavpackettype"}


def generate(args):
    rng = random.Random(args.seed)
    key = bytes.fromhex(args.key)
    seq = 0
    for name in args.messages.split(","):
        cls2 = class_named(v2, name)
        if cls2 is None:
            print(json.dumps({"name": name, "kind": "missing"}))
            continue
        kinds = ["v2", "v2zero", "v2signed"]
        cls1 = class_named(v1, name)
        if cls1 is not None and cls1.id <= 255:
            kinds.append("v1")
        for kind in kinds:
            seq = (seq + 1) % 256
            sysid, compid = rng.randint(1, 255), rng.randint(0, 255)
            if kind == "v1":
                mav = v1.MAVLink(None, srcSystem=sysid, srcComponent=compid)
                msg = cls1(*random_values(rng, cls1))
            else:
                mav = v2.MAVLink(None, srcSystem=sysid, srcComponent=compid)
                msg = cls2(*random_values(rng, cls2, zero=(kind == "v2zero")))
                if kind == "v2signed":
                    mav.signing.secret_key = key
                    mav.signing.link_id = args.link
                    mav.signing.timestamp = args.timestamp + seq
                    mav.signing.sign_outgoing = True
            mav.seq = seq
            frame = msg.pack(mav)
            # Fields as pymavlink itself reads them back (strings cut at NUL, floats as float32).
            reader = (v1 if kind == "v1" else v2).MAVLink(None)
            decoded = reader.decode(bytearray(frame))
            print(json.dumps({"name": name, "kind": kind, "hex": bytes(frame).hex(), "fields": fields_of(decoded)}))


def parse(args):
    key = bytes.fromhex(args.key)
    source = open(args.input) if args.input else sys.stdin
    for line in source:
        line = line.strip()
        if not line:
            continue
        buf = bytearray.fromhex(line)
        mav = v2.MAVLink(None)
        mav.signing.secret_key = key
        mav.signing.timestamp = 0
        mav.signing.allow_unsigned_callback = lambda _mav, _msg_id: True
        try:
            msgs = mav.parse_buffer(buf) or []
        except Exception as e:  # pymavlink raises on bad CRC / unknown ids
            print(json.dumps({"ok": False, "error": str(e)}))
            continue
        if len(msgs) != 1 or msgs[0].get_type() == "BAD_DATA":
            reason = msgs[0].reason if msgs and hasattr(msgs[0], "reason") else f"{len(msgs)} messages"
            print(json.dumps({"ok": False, "error": reason}))
            continue
        msg = msgs[0]
        signed = bool(msg._signed)
        out = v2.MAVLink(None, srcSystem=msg.get_srcSystem(), srcComponent=msg.get_srcComponent())
        out.seq = msg.get_seq()
        is_v1 = buf[0] == 0xFE
        if signed:
            out.signing.secret_key = key
            out.signing.link_id = buf[-13]
            out.signing.timestamp = int.from_bytes(buf[-12:-6], "little")
            out.signing.sign_outgoing = True
        repack = msg.pack(out, force_mavlink1=is_v1)
        if is_v1:
            # pymavlink's MAVLink 2 classes keep extension fields even in MAVLink 1 frames; cut them
            # to the received length so the comparison is about the base fields.
            body = bytearray(repack[:6 + buf[1]])
            body[1] = buf[1]
            crc = v2.x25crc(body[1:])
            crc.accumulate([msg.crc_extra])
            repack = bytes(body) + struct.pack("<H", crc.crc)
        print(json.dumps({"ok": True, "name": msg.get_type(), "signed": signed,
                          "fields": fields_of(msg), "repack": bytes(repack).hex()}))


def main():
    import argparse
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="mode", required=True)
    g = sub.add_parser("generate")
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--key", required=True)
    g.add_argument("--link", type=int, default=1)
    g.add_argument("--timestamp", type=int, default=1)
    g.add_argument("--messages", required=True)
    p = sub.add_parser("parse")
    p.add_argument("--key", required=True)
    p.add_argument("--input", help="file of hex frames (default: stdin)")
    args = ap.parse_args()
    generate(args) if args.mode == "generate" else parse(args)


if __name__ == "__main__":
    main()
