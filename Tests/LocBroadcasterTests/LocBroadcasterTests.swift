import Coordinator
import LocBroadcaster
import MeshTypes
import Testing

@Suite struct LocBroadcasterTests {
    let key = Array(UInt8(0)...31)
    let station = NodeID(high: 0xAA, low: 0xBB)
    func t(_ ms: UInt64) -> MeshInstant { MeshInstant(nanoseconds: ms * 1_000_000) }

    /// Sealed by Examples/loc-broadcaster/loc_broadcaster.py (an independent implementation): mesh key 00 01 … 1f,
    /// sender 0102030405060708, counter 1, UAV 7, 50.0757 14.438 15.25 m, heading 90°, sent at 1.7e15 µs.
    let pythonVector =
        "464d4c420102010203040506070800000000000000013965c541654b7c6a92950ae946c7ecae218b96ff328fb8a04c4dce755dfd60b81522d3b857ea592ac8"

    func bytes(_ hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var i = hex.startIndex
        while i < hex.endIndex {
            let j = hex.index(i, offsetBy: 2)
            out.append(UInt8(hex[i..<j], radix: 16)!)
            i = j
        }
        return out
    }

    @Test func opensTheDatagramThePythonExampleSeals() throws {
        var keys = LocBroadcasterKeys(meshKey: key)
        let d = try LocBroadcasterDatagram.open(bytes(pythonVector), keys: &keys)
        #expect(d.kind == .target)
        #expect(d.sender == 0x0102_0304_0506_0708)
        #expect(d.counter == 1)
        let u = try TargetUpdate(decoding: d.body)
        #expect(
            u.target
                == Target(
                    address: .uav(7), location: GeoPoint(latitude: 50.0757, longitude: 14.438, altitude: 15.25),
                    headingCentidegrees: 9000))
        #expect(u.sentAtMicros == 1_700_000_000_000_000)
        // And Swift seals the same bytes from the same inputs.
        let again = LocBroadcasterDatagram(kind: .target, sender: 0x0102_0304_0506_0708, counter: 1, body: u.encode())
        #expect(again.seal(with: &keys) == bytes(pythonVector))
    }

    @Test func refusesWrongKeysAlterationsAndJunkPrecisely() {
        var good = LocBroadcasterKeys(meshKey: key)
        var wrong = LocBroadcasterKeys(meshKey: Array(repeating: 7, count: 32))
        let sealed = bytes(pythonVector)
        func error(_ b: [UInt8], _ keys: inout LocBroadcasterKeys) -> LocBroadcasterError? {
            do {
                _ = try LocBroadcasterDatagram.open(b, keys: &keys)
                return nil
            } catch { return error }
        }
        #expect(error(sealed, &wrong) == .authenticationFailed)
        for i in [5, 6, 13, 21, 22, sealed.count - 1] {
            var altered = sealed
            altered[i] ^= 0x02
            let e = error(altered, &good)
            #expect(e == (i == 5 ? .unknownKind(0) : .authenticationFailed), "byte \(i)")
        }
        #expect(error(Array(sealed.prefix(30)), &good) == .tooShort(30))
        #expect(error(sealed + Array(repeating: 0, count: 600), &good) == .tooLong(sealed.count + 600))
        var magic = sealed
        magic[0] = 0x58
        #expect(error(magic, &good) == .badMagic)
        var version = sealed
        version[4] = 2
        #expect(error(version, &good) == .unsupportedVersion(2))
        #expect(
            LocBroadcasterError.authenticationFailed.description
                == "authentication failed (wrong mesh key or altered datagram)")
    }

    @Test func bodiesRoundTripAndBadBodiesAreNamed() throws {
        for address in [TargetAddress.all, .uav(250), .group([1, 2, 3])] {
            let u = TargetUpdate(
                target: Target(address: address, location: GeoPoint(latitude: -33.5, longitude: 151.25, altitude: -2)),
                sentAtMicros: 42)
            #expect(try TargetUpdate(decoding: u.encode()) == u)
        }
        func error(_ b: [UInt8]) -> String {
            do {
                _ = try TargetUpdate(decoding: b)
                return "no error"
            } catch { return error.description }
        }
        let ok = TargetUpdate(
            target: Target(address: .uav(3), location: GeoPoint(latitude: 1, longitude: 2, altitude: 3)),
            sentAtMicros: 0
        ).encode()
        #expect(error(Array(ok.prefix(10))) == "malformed body: longitude at offset 7: needs 4 bytes, 3 left")
        var zero = ok
        zero[2] = 0
        #expect(error(zero) == "malformed body: UAV number 0 outside 1…250")
        #expect(error(ok + [1]) == "malformed body: 1 unexpected trailing bytes")
        var kind = ok
        kind[0] = 9
        #expect(error(kind) == "malformed body: unknown address kind 9")
    }

    @Test func aSubscriberAndASourceStreamTargetsAndDropReplays() throws {
        var source = TargetSource<Int>(meshKey: key, senderID: 99)
        var sub = TargetSubscriber<Int>(node: station, name: "station-1", meshKey: key, senderID: 5)
        // Found over DNS-SD at two addresses: subscribes at once to both.
        let first = sub.onSourceFound(name: "phone", address: 1, now: t(0))
        let second = sub.onSourceFound(name: "phone", address: 2, now: t(0))
        guard case .send(let s1, to: 1) = first.first, case .send(let s2, to: 2) = second.first else {
            Issue.record("no subscriptions: \(first) \(second)")
            return
        }
        #expect(try source.onDatagram(s1, from: 10, now: t(0)) == SubscribeRequest(node: station, name: "station-1"))
        // A replayed subscription is refused; the second address renews the same NodeID's subscription.
        #expect(throws: LocBroadcasterError.self) { try source.onDatagram(s1, from: 10, now: t(1)) }
        _ = try source.onDatagram(s2, from: 11, now: t(1))
        #expect(source.subscribers.count == 1 && source.subscribers[station]?.address == 11)

        let update = TargetUpdate(
            target: Target(address: .all, location: GeoPoint(latitude: 50, longitude: 14, altitude: 10)),
            sentAtMicros: 1)
        let (datagram, to) = source.publish(update, now: t(100))
        #expect(to == [11])
        #expect(sub.onDatagram(datagram, from: 2, now: t(101)) == [.target(update, source: "phone")])
        // The same datagram again (e.g. through the source's other address) is a silent duplicate; an older one is refused.
        #expect(sub.onDatagram(datagram, from: 2, now: t(102)).isEmpty)
        #expect(sub.duplicates == 1)
        let (newer, _) = source.publish(update, now: t(200))
        _ = sub.onDatagram(newer, from: 2, now: t(201))
        guard case .rejected(from: 2, .replayed) = sub.onDatagram(datagram, from: 2, now: t(202)).first else {
            Issue.record("older datagram accepted")
            return
        }
        #expect(sub.rejectedCounts == ["replay": 1])
        #expect(sub.sourceReports.first?.targets == 2)

        // Renewals every second to every address; a source never renewed expires after 3 s.
        #expect(sub.onTick(now: t(500)).isEmpty)
        #expect(sub.onTick(now: t(1000)).count == 2)
        #expect(source.publish(update, now: t(3002)).to.isEmpty)
        sub.onSourceRemoved(name: "phone")
        #expect(sub.onTick(now: t(5000)).isEmpty)
    }

    @Test func aSubscriberRefusesSubscriptionsAndJunkWithoutStopping() {
        var sub = TargetSubscriber<Int>(node: station, name: "s", meshKey: key, senderID: 5)
        var other = TargetSubscriber<Int>(node: NodeID(high: 1, low: 1), name: "o", meshKey: key, senderID: 6)
        guard case .send(let subscribe, _) = other.onSourceFound(name: "x", address: 1, now: t(0)).first else { return }
        guard case .rejected(_, .unexpectedKind(.subscribe)) = sub.onDatagram(subscribe, from: 3, now: t(0)).first
        else {
            Issue.record("a subscription was taken for a target")
            return
        }
        var rng = SystemRandomNumberGenerator()
        for n in 0..<2000 {
            let junk = (0..<(n % 80)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            #expect(sub.onDatagram(junk, from: 4, now: t(1)).count == 1)
        }
    }
}
