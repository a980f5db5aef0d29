#!/usr/bin/env python3
"""Plays journald's part for a lab test: binds the journal's native socket and prints each entry it receives as one
JSON object per line, parsed by the protocol of systemd's documentation (a KEY=value line, or KEY, a newline, a
64-bit little-endian length, the value and a newline). Usage: journal_receiver.py SOCKET_PATH"""
import json
import os
import socket
import struct
import sys


def parse(datagram):
    fields, i = {}, 0
    while i < len(datagram):
        newline = datagram.index(b"\n", i)
        equals = datagram.find(b"=", i, newline)
        if equals >= 0:
            key, value, i = datagram[i:equals], datagram[equals + 1:newline], newline + 1
        else:
            key = datagram[i:newline]
            (length,) = struct.unpack_from("<Q", datagram, newline + 1)
            start = newline + 9
            value = datagram[start:start + length]
            if datagram[start + length:start + length + 1] != b"\n":
                raise ValueError(f"binary field {key!r} does not end with a newline")
            i = start + length + 1
        fields[key.decode()] = value.decode()
    return fields


path = sys.argv[1]
os.makedirs(os.path.dirname(path), exist_ok=True)
receiver = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
receiver.bind(path)
print(json.dumps({"listening": path}), flush=True)
while True:
    data = receiver.recv(1 << 20)
    try:
        print(json.dumps(parse(data)), flush=True)
    except Exception as error:  # a malformed entry is a finding of its own
        print(json.dumps({"unparsed": repr(data[:200]), "error": str(error)}), flush=True)
