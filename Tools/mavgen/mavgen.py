#!/usr/bin/env python3
"""mavgen.py — generate FleetMesh's Swift MAVLink message types from MAVLink XML definitions.

Reads a dialect XML file (for FleetMesh: pymavlink's `common.xml`), follows its <include>s
(`standard.xml`, `minimal.xml`), computes each message's wire layout and CRC_EXTRA by the
MAVLink rules, and writes Swift sources:

  <out>/Messages/<MessageName>.swift   one struct per message
  <out>/Enums/<EnumName>.swift         one open struct (or OptionSet for bitmasks) per enum
  <out>/MAVLinkMessage.swift           the `MAVLinkMessage` enum and the dialect table

Wire rules (MAVLink 2, https://mavlink.io/en/guide/serialization.html):
  * base (non-extension) fields are stably sorted by the size of their element type, largest
    first; arrays sort by their element type;
  * extension fields (those after <extensions/>) follow in XML order, unsorted;
  * CRC_EXTRA = X.25 CRC over "NAME " then, per base field in wire order, "type " "name " and,
    for arrays, one byte holding the array length; folded to 8 bits as (crc & 0xFF) ^ (crc >> 8).

Usage:
  python3 Tools/mavgen/mavgen.py --xml PATH/common.xml --out Sources/MAVLink/Generated \
      [--messages NAME,NAME,... | --all-messages] [--enums NAME,...] [--all-enums]

Without --xml the script looks for pymavlink's copy (pymavlink/dialects/v20/common.xml).
Without --messages it uses DEFAULT_MESSAGES below. Enums referenced by the chosen messages'
fields are always generated; --enums adds more.
"""

import argparse
import os
import re
import shutil
import sys
import xml.etree.ElementTree as ET

DEFAULT_MESSAGES = [
    "HEARTBEAT", "SYS_STATUS", "BATTERY_STATUS", "GLOBAL_POSITION_INT", "LOCAL_POSITION_NED",
    "ATTITUDE", "HOME_POSITION", "GPS_RAW_INT", "VFR_HUD", "STATUSTEXT", "COMMAND_LONG",
    "COMMAND_INT", "COMMAND_ACK", "SET_POSITION_TARGET_GLOBAL_INT", "POSITION_TARGET_GLOBAL_INT",
    "SET_POSITION_TARGET_LOCAL_NED", "POSITION_TARGET_LOCAL_NED", "SET_MODE", "MANUAL_CONTROL",
    "MISSION_COUNT", "MISSION_ITEM_INT", "MISSION_REQUEST_INT", "MISSION_REQUEST",
    "MISSION_REQUEST_LIST", "MISSION_ACK", "MISSION_CURRENT", "MISSION_ITEM_REACHED",
    "MISSION_CLEAR_ALL", "MISSION_SET_CURRENT", "PARAM_REQUEST_READ", "PARAM_REQUEST_LIST",
    "PARAM_VALUE", "PARAM_SET", "EXTENDED_SYS_STATE", "AUTOPILOT_VERSION", "TIMESYNC",
    "SYSTEM_TIME", "CONTROL_STATUS", "RADIO_STATUS", "SETUP_SIGNING", "ODOMETRY",
]
DEFAULT_EXTRA_ENUMS = ["MAV_COMPONENT"]

TYPE_SIZES = {
    "char": 1, "int8_t": 1, "uint8_t": 1, "uint8_t_mavlink_version": 1,
    "int16_t": 2, "uint16_t": 2,
    "int32_t": 4, "uint32_t": 4, "float": 4,
    "int64_t": 8, "uint64_t": 8, "double": 8,
}
SWIFT_TYPES = {
    "char": "UInt8", "int8_t": "Int8", "uint8_t": "UInt8", "uint8_t_mavlink_version": "UInt8",
    "int16_t": "Int16", "uint16_t": "UInt16", "int32_t": "Int32", "uint32_t": "UInt32",
    "int64_t": "Int64", "uint64_t": "UInt64", "float": "Float", "double": "Double",
}
FIELD_TYPE_CASES = {
    "char": "char", "int8_t": "int8", "uint8_t": "uint8", "uint8_t_mavlink_version": "uint8",
    "int16_t": "int16", "uint16_t": "uint16", "int32_t": "int32", "uint32_t": "uint32",
    "int64_t": "int64", "uint64_t": "uint64", "float": "float", "double": "double",
}
UNSIGNED_BY_SIZE = {1: "UInt8", 2: "UInt16", 4: "UInt32", 8: "UInt64"}
SWIFT_KEYWORDS = {
    "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import",
    "init", "inout", "internal", "let", "open", "operator", "private", "protocol", "public",
    "rethrows", "static", "struct", "subscript", "typealias", "var", "break", "case", "continue",
    "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat",
    "return", "switch", "where", "while", "as", "catch", "false", "is", "nil", "super", "self",
    "Self", "throw", "throws", "true", "try", "Type", "Any", "Protocol",
}


# ---------------------------------------------------------------------------------------------
# X.25 / CRC-16/MCRF4XX, as MAVLink uses it.

def x25_accumulate(crc, data):
    for b in data:
        tmp = (b ^ (crc & 0xFF)) & 0xFF
        tmp = (tmp ^ (tmp << 4)) & 0xFF
        crc = ((crc >> 8) ^ (tmp << 8) ^ (tmp << 3) ^ (tmp >> 4)) & 0xFFFF
    return crc


# ---------------------------------------------------------------------------------------------
# XML model

class Field:
    def __init__(self, el, is_extension):
        self.name = el.get("name")
        raw_type = el.get("type")
        m = re.fullmatch(r"([a-z0-9_]+)\[(\d+)\]", raw_type)
        if m:
            self.type, self.array_length = m.group(1), int(m.group(2))
        else:
            self.type, self.array_length = raw_type, 0
        if self.type not in TYPE_SIZES:
            raise SystemExit(f"mavgen: unsupported field type {raw_type!r} in field {self.name}")
        self.enum = el.get("enum")
        self.units = el.get("units")
        self.description = " ".join((el.text or "").split())
        self.is_extension = is_extension
        self.element_size = TYPE_SIZES[self.type]
        self.wire_size = self.element_size * max(1, self.array_length)
        self.offset = None

    @property
    def crc_type(self):
        # mavparse reports uint8_t_mavlink_version as uint8_t for CRC purposes.
        return "uint8_t" if self.type == "uint8_t_mavlink_version" else self.type

    @property
    def is_string(self):
        return self.type == "char" and self.array_length > 0


class Message:
    def __init__(self, el, source):
        self.id = int(el.get("id"))
        self.name = el.get("name")
        self.source = source
        desc = el.find("description")
        self.description = " ".join((desc.text or "").split()) if desc is not None else ""
        self.deprecated = el.find("deprecated") is not None
        self.fields = []
        in_ext = False
        for child in el:
            if child.tag == "extensions":
                in_ext = True
            elif child.tag == "field":
                self.fields.append(Field(child, in_ext))
        base = [f for f in self.fields if not f.is_extension]
        ext = [f for f in self.fields if f.is_extension]
        # Stable sort by element size, largest first (Python's sort is stable).
        self.wire_fields = sorted(base, key=lambda f: f.element_size, reverse=True) + ext
        offset = 0
        for f in self.wire_fields:
            f.offset = offset
            offset += f.wire_size
        self.max_length = offset
        self.min_length = sum(f.wire_size for f in base)
        crc = x25_accumulate(0xFFFF, (self.name + " ").encode())
        for f in self.wire_fields:
            if f.is_extension:
                continue
            crc = x25_accumulate(crc, (f.crc_type + " ").encode())
            crc = x25_accumulate(crc, (f.name + " ").encode())
            if f.array_length:
                crc = x25_accumulate(crc, [f.array_length])
        self.crc_extra = (crc & 0xFF) ^ (crc >> 8)


class EnumEntry:
    def __init__(self, name, value, description, deprecated):
        self.name, self.value, self.description, self.deprecated = name, value, description, deprecated


class Enum:
    def __init__(self, name):
        self.name = name
        self.bitmask = False
        self.description = ""
        self.entries = []

    def merge(self, el):
        if el.get("bitmask") == "true":
            self.bitmask = True
        desc = el.find("description")
        if desc is not None and not self.description:
            self.description = " ".join((desc.text or "").split())
        next_value = (self.entries[-1].value + 1) if self.entries else 0
        for e in el.findall("entry"):
            value = int(e.get("value"), 0) if e.get("value") is not None else next_value
            next_value = value + 1
            d = e.find("description")
            text = " ".join((d.text or "").split()) if d is not None else ""
            self.entries.append(EnumEntry(e.get("name"), value, text, e.find("deprecated") is not None))


def load_dialect(path, messages, enums, seen):
    path = os.path.abspath(path)
    if path in seen:
        return
    seen[path] = open(path, "rb").read()
    root = ET.parse(path).getroot()
    for inc in root.findall("include"):
        load_dialect(os.path.join(os.path.dirname(path), inc.text.strip()), messages, enums, seen)
    for el in root.iter("enum"):
        enums.setdefault(el.get("name"), Enum(el.get("name"))).merge(el)
    for el in root.iter("message"):
        messages[el.get("name")] = Message(el, os.path.basename(path))


# ---------------------------------------------------------------------------------------------
# Naming

def words(name):
    return [w for w in name.split("_") if w]


def type_name(name):
    out = []
    for w in words(name):
        out.append("MAV" if w == "MAV" else w[:1].upper() + w[1:].lower())
    return "".join(out)


def lower_camel(name):
    ws = [w.lower() for w in words(name)]
    s = ws[0] + "".join(w[:1].upper() + w[1:] for w in ws[1:])
    return s


def ident(s):
    return f"`{s}`" if s in SWIFT_KEYWORDS else s


def entry_name(enum_name, entry):
    prefix = enum_name + "_"
    rest = entry.name[len(prefix):] if entry.name.startswith(prefix) else entry.name
    if not rest:
        rest = entry.name
    if rest[0].isdigit():
        rest = words(enum_name)[-1] + "_" + rest
    return lower_camel(rest)


def first_sentence(text, limit=240):
    text = text.strip()
    if not text:
        return ""
    m = re.search(r"(?<=[.!?])\s", text)
    s = text[: m.start()] if m else text
    if len(s) > limit:
        s = s[: limit - 1].rstrip() + "…"
    return s


def doc(text, indent=""):
    text = text.replace("\n", " ").strip() or "No description in the MAVLink definition."
    return f"{indent}/// {text}\n"


# ---------------------------------------------------------------------------------------------
# Swift emission

HEADER = (
    "// swift-format-ignore-file\n"
    "// Generated by Tools/mavgen/mavgen.py from {src}. Do not edit; re-run the generator.\n\n"
)


def enum_raw_type(enum, referencing_fields):
    size = 1
    for f in referencing_fields:
        size = max(size, f.element_size)
    max_value = max([e.value for e in enum.entries] or [0])
    while size < 8 and max_value >= (1 << (8 * size)):
        size *= 2
    return UNSIGNED_BY_SIZE[size]


def emit_enum(enum, raw):
    name = type_name(enum.name)
    out = [HEADER.format(src="the MAVLink XML enum " + enum.name)]
    out.append(doc(first_sentence(enum.description) or f"MAVLink enum {enum.name}."))
    if enum.bitmask:
        out.append(f"///\n/// Bitmask `{enum.name}`; unknown bits are preserved.\n")
        out.append(f"public struct {name}: OptionSet, MAVLinkEnum {{\n")
    else:
        out.append(f"///\n/// Open enum `{enum.name}`: values not listed here are preserved as-is.\n")
        out.append(f"public struct {name}: MAVLinkEnum {{\n")
    out.append(f"    /// The value on the wire.\n    public var rawValue: {raw}\n\n")
    out.append(f"    /// Wraps a wire value (any value is accepted).\n")
    out.append(f"    public init(rawValue: {raw}) {{ self.rawValue = rawValue }}\n\n")
    used = set()
    for e in enum.entries:
        n = entry_name(enum.name, e)
        if n in used:
            n = lower_camel(e.name)
        used.add(n)
        e.swift = ident(n)
        text = first_sentence(e.description) or e.name
        if e.deprecated:
            text += " (Deprecated.)"
        out.append(doc(f"`{e.name}` = {e.value}. {text}", "    "))
        out.append(f"    public static let {e.swift} = {name}(rawValue: {e.value})\n")
    out.append("\n    /// The MAVLink name of this value, if it is a listed entry.\n")
    out.append("    public var entryName: String? {\n        switch rawValue {\n")
    seen_values = set()
    for e in enum.entries:
        if e.value in seen_values:
            continue
        seen_values.add(e.value)
        out.append(f"        case {e.value}: return \"{e.name}\"\n")
    out.append("        default: return nil\n        }\n    }\n}\n")
    return name, "".join(out)


def swift_field_type(f, enum_types):
    if f.is_string:
        return "String"
    base = SWIFT_TYPES[f.type]
    if f.enum and f.enum in enum_types and not f.array_length:
        return enum_types[f.enum][0]
    return f"[{base}]" if f.array_length else base


def default_value(f, enum_types):
    if f.is_string:
        return '""'
    if f.type == "uint8_t_mavlink_version":
        return "3"
    if f.array_length:
        return f"[{SWIFT_TYPES[f.type]}](repeating: 0, count: {f.array_length})"
    if f.enum and f.enum in enum_types:
        return f"{enum_types[f.enum][0]}(rawValue: 0)"
    return "0"


def emit_message(msg, enum_types, dialect_name):
    name = type_name(msg.name)
    out = [HEADER.format(src=f"{msg.source} ({dialect_name} dialect)")]
    out.append(doc(first_sentence(msg.description) or f"MAVLink message {msg.name}."))
    out.append(f"///\n/// `{msg.name}` (id {msg.id}, CRC_EXTRA {msg.crc_extra}); payload {msg.min_length} bytes")
    out.append(f", {msg.max_length} with extensions.\n" if msg.max_length != msg.min_length else ".\n")
    if msg.deprecated:
        out.append("/// Deprecated in the MAVLink definitions.\n")
    out.append(f"public struct {name}: MAVLinkMessageType {{\n")
    out.append(f"    /// The MAVLink message id.\n    public static let id: UInt32 = {msg.id}\n")
    out.append(f"    /// The MAVLink message name.\n    public static let messageName = \"{msg.name}\"\n")
    out.append(f"    /// CRC_EXTRA seed byte for this message's checksum.\n    public static let crcExtra: UInt8 = {msg.crc_extra}\n")
    out.append(f"    /// Payload length without extension fields (the MAVLink 1 length).\n    public static let minPayloadLength = {msg.min_length}\n")
    out.append(f"    /// Payload length with all extension fields.\n    public static let maxPayloadLength = {msg.max_length}\n")
    out.append("    /// Field layout in XML order, with wire offsets.\n    public static let fields: [MAVLinkFieldInfo] = [\n")
    for f in msg.fields:
        extra = ""
        if f.array_length:
            extra += f", arrayLength: {f.array_length}"
        if f.is_extension:
            extra += ", isExtension: true"
        out.append(f"        MAVLinkFieldInfo(name: \"{f.name}\", type: .{FIELD_TYPE_CASES[f.type]}, offset: {f.offset}{extra}),\n")
    out.append("    ]\n\n")
    for f in msg.fields:
        text = first_sentence(f.description) or f.name
        if f.units:
            text += f" [{f.units}]"
        if f.enum:
            text += f" (`{f.enum}`)"
        if f.is_extension:
            text += " Extension field."
        if f.is_string:
            text += f" At most {f.array_length} bytes on the wire."
        elif f.array_length:
            text += f" {f.array_length} elements on the wire."
        out.append(doc(text, "    "))
        out.append(f"    public var {ident(lower_camel(f.name))}: {swift_field_type(f, enum_types)}\n")
    out.append("\n    /// Creates the message; omitted fields are zero (empty for strings, zeros for arrays).\n")
    params = ",\n        ".join(
        f"{ident(lower_camel(f.name))}: {swift_field_type(f, enum_types)} = {default_value(f, enum_types)}"
        for f in msg.fields)
    out.append(f"    public init(\n        {params}\n    ) {{\n" if params else "    public init() {\n")
    for f in msg.fields:
        n = ident(lower_camel(f.name))
        out.append(f"        self.{n} = {n}\n")
    out.append("    }\n\n")
    out.append("    /// Decodes a payload; missing trailing bytes read as zero (MAVLink 2 truncation),\n")
    out.append("    /// bytes beyond `maxPayloadLength` are ignored.\n")
    out.append("    public init(from reader: MAVLinkPayloadReader) {\n")
    for f in msg.fields:
        n = lower_camel(f.name)
        base = SWIFT_TYPES[f.type]
        if f.is_string:
            expr = f"reader.readString(at: {f.offset}, length: {f.array_length})"
        elif f.array_length:
            expr = f"reader.readArray({base}.self, at: {f.offset}, count: {f.array_length})"
        elif f.enum and f.enum in enum_types:
            et, raw = enum_types[f.enum]
            inner = f"reader.read({base}.self, at: {f.offset})"
            expr = f"{et}(rawValue: {inner})" if raw == base else f"{et}(rawValue: {raw}(truncatingIfNeeded: {inner}))"
        else:
            expr = f"reader.read({base}.self, at: {f.offset})"
        out.append(f"        self.{ident(n)} = {expr}\n")
    out.append("    }\n\n")
    out.append("    /// Writes every field (untruncated) at its wire offset.\n")
    out.append("    public func encode(into writer: inout MAVLinkPayloadWriter) {\n")
    for f in msg.wire_fields:
        n = f"self.{ident(lower_camel(f.name))}"
        base = SWIFT_TYPES[f.type]
        if f.is_string:
            stmt = f"writer.writeString({n}, at: {f.offset}, length: {f.array_length})"
        elif f.array_length:
            stmt = f"writer.writeArray({n}, at: {f.offset}, count: {f.array_length})"
        elif f.enum and f.enum in enum_types:
            et, raw = enum_types[f.enum]
            val = f"{n}.rawValue" if raw == base else f"{base}(truncatingIfNeeded: {n}.rawValue)"
            stmt = f"writer.write({val}, at: {f.offset})"
        else:
            stmt = f"writer.write({n}, at: {f.offset})"
        out.append(f"        {stmt}\n")
    if not msg.wire_fields:
        out.append("        _ = writer\n")
    out.append("    }\n\n")
    out.append(f"    /// This message wrapped in ``MAVLinkMessage``.\n")
    out.append(f"    public var wrapped: MAVLinkMessage {{ .{lower_camel(msg.name)}(self) }}\n")
    out.append("}\n")
    return name, "".join(out)


def provenance(sources):
    import hashlib
    h = hashlib.sha256()
    for path in sorted(sources, key=os.path.basename):
        h.update(sources[path])
    names = ", ".join(sorted(os.path.basename(p) for p in sources))
    try:
        from importlib.metadata import version
        origin = f" (pymavlink {version('pymavlink')})"
    except Exception:
        origin = ""
    return f"// Definitions: {names}{origin}; SHA-256 of their bytes: {h.hexdigest()[:32]}\n\n"


def emit_message_enum(msgs, dialect_name, sources):
    out = [HEADER.format(src=f"the {dialect_name} dialect").rstrip("\n") + "\n", provenance(sources)]
    out.append("/// Any MAVLink message of the generated dialect, or an undecoded one.\n")
    out.append("public enum MAVLinkMessage: Sendable, Hashable {\n")
    for m in msgs:
        out.append(f"    /// `{m.name}` (id {m.id}).\n")
        out.append(f"    case {lower_camel(m.name)}({type_name(m.name)})\n")
    out.append("    /// A message whose id has no generated type; the payload is kept as received.\n")
    out.append("    case unknown(id: UInt32, payload: [UInt8])\n\n")
    out.append("    /// The message id.\n    public var id: UInt32 {\n        switch self {\n")
    for m in msgs:
        out.append(f"        case .{lower_camel(m.name)}: return {m.id}\n")
    out.append("        case .unknown(let id, _): return id\n        }\n    }\n\n")
    out.append("    /// The full (untruncated) payload bytes; for `.unknown` the bytes as received.\n")
    out.append("    public func encodedPayload() -> [UInt8] {\n        switch self {\n")
    for m in msgs:
        out.append(f"        case .{lower_camel(m.name)}(let m): return m.encodedPayload()\n")
    out.append("        case .unknown(_, let payload): return payload\n        }\n    }\n\n")
    out.append("    /// Decodes `payload` as message `id` (zero-extending truncated payloads); ids without a\n")
    out.append("    /// generated type become `.unknown`.\n")
    out.append("    public init(id: UInt32, payload: [UInt8]) {\n")
    out.append("        self = payload.withUnsafeBytes { raw in\n")
    out.append("            let reader = MAVLinkPayloadReader(raw)\n")
    out.append("            switch id {\n")
    for m in msgs:
        out.append(f"            case {m.id}: return .{lower_camel(m.name)}({type_name(m.name)}(from: reader))\n")
    out.append("            default: return .unknown(id: id, payload: payload)\n            }\n        }\n    }\n\n")
    out.append("    /// The generated message types, in id order.\n")
    out.append("    public static let generatedTypes: [any MAVLinkMessageType.Type] = [\n")
    for m in msgs:
        out.append(f"        {type_name(m.name)}.self,\n")
    out.append("    ]\n}\n\n")
    out.append("extension MAVLinkDialect {\n")
    out.append(f"    /// The messages generated from `{dialect_name}.xml` (ids, CRC_EXTRA, lengths).\n")
    out.append(f"    public static let {lower_camel(dialect_name)} = MAVLinkDialect(messages: MAVLinkMessage.generatedTypes.map {{ $0.info }})\n")
    out.append("}\n")
    return "".join(out)


def find_default_xml():
    try:
        import pymavlink  # noqa: F401
    except ImportError:
        raise SystemExit("mavgen: pymavlink not found; pass --xml or `python3 -m pip install pymavlink`")
    base = os.path.dirname(sys.modules["pymavlink"].__file__)
    for rel in ("dialects/v20/common.xml", "message_definitions/v1.0/common.xml"):
        p = os.path.join(base, rel)
        if os.path.exists(p):
            return p
    raise SystemExit("mavgen: common.xml not found inside pymavlink; pass --xml")


def verify_with_pymavlink(messages):
    import struct
    from pymavlink.dialects.v20 import common as reference
    bad = 0
    for m in messages.values():
        cls = reference.mavlink_map.get(m.id)
        if cls is None or cls.msgname != m.name:
            print(f"mavgen: {m.name} ({m.id}) not in pymavlink's common module", file=sys.stderr)
            bad += 1
            continue
        length = struct.calcsize(cls.unpacker.format)
        if cls.crc_extra != m.crc_extra or length != m.max_length:
            print(f"mavgen: {m.name}: CRC_EXTRA {m.crc_extra} vs {cls.crc_extra}, length {m.max_length} vs {length}",
                  file=sys.stderr)
            bad += 1
    print(f"mavgen: {len(messages)} messages checked against pymavlink, {bad} mismatches")
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--xml", help="dialect XML (default: pymavlink's common.xml)")
    ap.add_argument("--out", help="output folder (its Messages/ and Enums/ are replaced)")
    ap.add_argument("--messages", help="comma-separated message names (default: built-in list)")
    ap.add_argument("--all-messages", action="store_true", help="generate every message of the dialect")
    ap.add_argument("--enums", help="comma-separated extra enums to generate")
    ap.add_argument("--all-enums", action="store_true", help="generate every enum of the dialect")
    ap.add_argument("--print-crc", action="store_true", help="print name, id, CRC_EXTRA, lengths and exit")
    ap.add_argument("--verify-with-pymavlink", action="store_true",
                    help="compare CRC_EXTRA and payload lengths of every message of the dialect with pymavlink's "
                         "generated module, then exit (status 1 on any mismatch)")
    args = ap.parse_args()

    xml = args.xml or find_default_xml()
    dialect_name = os.path.splitext(os.path.basename(xml))[0]
    messages, enums = {}, {}
    sources = {}
    load_dialect(xml, messages, enums, sources)

    if args.verify_with_pymavlink:
        sys.exit(verify_with_pymavlink(messages))

    if args.all_messages:
        wanted = list(messages)
    else:
        wanted = args.messages.split(",") if args.messages else DEFAULT_MESSAGES
    chosen, missing = [], []
    for n in wanted:
        n = n.strip()
        (chosen if n in messages else missing).append(n)
    for n in missing:
        print(f"mavgen: note: message {n} is not defined in {os.path.basename(xml)} or its includes; skipped",
              file=sys.stderr)
    msgs = sorted((messages[n] for n in dict.fromkeys(chosen)), key=lambda m: m.id)

    if args.print_crc:
        for m in msgs:
            print(m.name, m.id, m.crc_extra, m.min_length, m.max_length)
        return

    if not args.out:
        ap.error("--out is required when generating")
    referencing = {}
    for m in msgs:
        for f in m.fields:
            if f.enum and not f.array_length:
                referencing.setdefault(f.enum, []).append(f)
    enum_names = set(referencing)
    if args.all_enums:
        enum_names |= set(enums)
    extra = args.enums.split(",") if args.enums else DEFAULT_EXTRA_ENUMS
    enum_names |= {e.strip() for e in extra if e.strip() in enums}
    missing_enums = sorted(n for n in enum_names if n not in enums)
    if missing_enums:
        raise SystemExit(f"mavgen: enums referenced but not defined: {missing_enums}")

    enum_types = {n: (type_name(n), enum_raw_type(enums[n], referencing.get(n, []))) for n in enum_names}

    out_dir = args.out
    for sub in ("Messages", "Enums"):
        p = os.path.join(out_dir, sub)
        if os.path.isdir(p):
            shutil.rmtree(p)
        os.makedirs(p)
    lines = 0
    for n in sorted(enum_names):
        name, text = emit_enum(enums[n], enum_types[n][1])
        with open(os.path.join(out_dir, "Enums", name + ".swift"), "w") as fh:
            fh.write(text)
        lines += text.count("\n")
    for m in msgs:
        name, text = emit_message(m, enum_types, dialect_name)
        with open(os.path.join(out_dir, "Messages", name + ".swift"), "w") as fh:
            fh.write(text)
        lines += text.count("\n")
    text = emit_message_enum(msgs, dialect_name, sources)
    with open(os.path.join(out_dir, "MAVLinkMessage.swift"), "w") as fh:
        fh.write(text)
    lines += text.count("\n")
    print(f"mavgen: {len(msgs)} messages, {len(enum_names)} enums, {lines} lines of Swift -> {out_dir}")


if __name__ == "__main__":
    main()
