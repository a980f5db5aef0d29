"""Independent decoder of a prediction's coded path (docs/PROTOCOL.md §7.3, type 0x5202, flags bit 2), written from
the document alone. Reads a JSON list of cases {"payload": hex of the message body after a 34-byte broadcast
envelope, "points": [[latE7, lonE7, altMm], ...] the sender's path}; decodes each and checks that it has as many
points as sent, every one within 4 units in latitude and longitude and 40 mm in altitude. Prints OK, or what failed."""
import json, sys

def varint(b, i):
    value, shift = 0, 0
    for _ in range(10):
        byte = b[i]; i += 1
        value |= (byte & 0x7F) << shift
        if byte & 0x80 == 0:
            return value, i
        shift += 7
    raise ValueError("varint longer than 10 bytes")

def unzigzag(u):
    return (u >> 1) ^ -(u & 1)

def decode(body):
    i = 0
    number, flags = body[i], body[i + 1]; i += 2
    if flags & 2:
        i += 2  # uncertainty radius, growth
    i += 2  # step u16
    count = body[i]; i += 1
    def whole(i):
        lat = int.from_bytes(body[i:i + 4], 'big', signed=True)
        lon = int.from_bytes(body[i + 4:i + 8], 'big', signed=True)
        alt = int.from_bytes(body[i + 8:i + 12], 'big', signed=True)
        return [lat, lon, alt], i + 12
    points = []
    if not flags & 4:
        for _ in range(count):
            p, i = whole(i); points.append(p)
        return points, i
    if count == 0:
        return points, i
    p, i = whole(i); points.append(p)
    step = [0, 0, 0]
    while len(points) < count:
        z, i = varint(body, i)
        if z > count - len(points):
            raise ValueError("run of %d with %d points left" % (z, count - len(points)))
        for _ in range(z):
            points.append([points[-1][k] + step[k] for k in range(3)])
        if len(points) == count:
            break
        for k in range(3):
            u, i = varint(body, i)
            step[k] += unzigzag(u)
        points.append([points[-1][k] + step[k] for k in range(3)])
    return points, i

cases = json.load(open(sys.argv[1]))
failures = []
for n, case in enumerate(cases):
    body = bytes.fromhex(case["payload"])
    got, end = decode(body)
    want = case["points"]
    if end != len(body):
        failures.append("case %d: %d bytes left over" % (n, len(body) - end))
    if len(got) != len(want):
        failures.append("case %d: %d points, sent %d" % (n, len(got), len(want)))
        continue
    for j, (g, w) in enumerate(zip(got, want)):
        if abs(g[0] - w[0]) > 4 or abs(g[1] - w[1]) > 4 or abs(g[2] - w[2]) > 40:
            failures.append("case %d point %d: decoded %s, sent %s" % (n, j, g, w))
            break
print("OK" if not failures else "\n".join(failures))
sys.exit(1 if failures else 0)
