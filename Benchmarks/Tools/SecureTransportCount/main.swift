import MeshTypes
import SecureTransport

// secure-transport-count [COUNT] [FORM]: COUNT seal+open round trips of a 200-byte payload (default 100,000) in one
// FORM, synchronously on one thread, then exits: what valgrind's callgrind counts instructions of (`make bench-count`).
// FORM is `buffers` (SecureEndpoint.seal/open into buffers), `arrays` (SecureEndpoint.send/receive) or `group`
// (GroupChannel.seal/open into buffers); default `buffers`. Instructions per datagram = (Ir with COUNT − Ir with 0) /
// COUNT. valgrind 3.19 needs a copy without the DWARF 5 debug information (`objcopy --strip-debug`).
#if canImport(Glibc)
    import Glibc
#endif

let arguments = CommandLine.arguments.dropFirst()
let count = arguments.first.flatMap { Int($0) } ?? 100_000
let form = arguments.dropFirst().first ?? "buffers"
guard ["buffers", "arrays", "group"].contains(form) else {
    print("secure-transport-count: FORM must be buffers, arrays or group, not \(form)")
    exit(2)
}

let key = MeshKey.generate()
let idA = NodeID(high: 1, low: 1)
let idB = NodeID(high: 2, low: 2)
var a = SecureEndpoint<Int>(key: key, localID: idA, incarnation: 1, role: .station)
var b = SecureEndpoint<Int>(key: key, localID: idB, incarnation: 2, role: .drone)
let now = MeshInstant.after(.seconds(1))

func sends(_ directives: [SecureEndpoint<Int>.Directive]) -> [[UInt8]] {
    directives.compactMap { if case .send(let bytes, _) = $0 { bytes } else { nil } }
}

// One handshake A→B, with both sides established.
var toB = sends(a.connect(to: 2, expecting: idB, now: now, wallClockMicros: 1_800_000_000_000_000))
while !toB.isEmpty {
    var toA: [[UInt8]] = []
    for d in toB { toA += sends(b.receive(d, from: 1, now: now)) }
    toB = []
    for d in toA { toB += sends(a.receive(d, from: 2, now: now)) }
}
guard a.hasSession(with: idB, now: now), b.hasSession(with: idA, now: now) else {
    print("secure-transport-count: the handshake did not complete")
    exit(1)
}

let payload = (0..<200).map { UInt8(truncatingIfNeeded: $0) }
let datagram = UnsafeMutableRawBufferPointer.allocate(byteCount: 2048, alignment: 16)
let plain = UnsafeMutableRawBufferPointer.allocate(byteCount: 2048, alignment: 16)
var group = GroupChannel(meshKey: key, localID: idA, incarnation: 1)
var groupReceiver = GroupChannel(meshKey: key, localID: idB, incarnation: 2)
var delivered = 0
payload.withUnsafeBytes { p in
    for _ in 0..<count {
        switch form {
        case "arrays":
            let d = sends(try! a.send(payload, to: idB, now: now))[0]
            for x in b.receive(d, from: 1, now: now) {
                if case .deliver(let bytes, _) = x { delivered += bytes.count }
            }
        case "group":
            let n = try! group.seal(p, into: datagram)
            if case .success(let m) = try! groupReceiver.open(.init(rebasing: datagram[0..<n]), into: plain) {
                delivered += m.count
            }
        default:
            let s = try! a.seal(p, to: idB, into: datagram, now: now)
            if case .delivered(let n, _) = try! b.open(
                .init(rebasing: datagram[0..<s.count]), from: 1, into: plain, now: now)
            {
                delivered += n
            }
        }
    }
}
guard delivered == count * payload.count else {
    print("secure-transport-count: delivered \(delivered) bytes, expected \(count * payload.count)")
    exit(1)
}
print("\(count) seal+open (\(form)) of \(payload.count) B")
