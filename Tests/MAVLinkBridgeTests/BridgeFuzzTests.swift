import Coordinator
import Determinism
import MAVLink
import MeshTypes
import Testing

@testable import MAVLinkBridge

/// Valid frames with random field values (NaN, infinities, huge numbers, any enum value) for every message the
/// bridges read, addressed at the systems under test half of the time, plus raw junk.
struct FrameFuzzer {
    static let types: [any MAVLinkMessageType.Type] = [
        Heartbeat.self, CommandLong.self, CommandInt.self, CommandAck.self, SetMode.self,
        SetPositionTargetGlobalInt.self,
        MAVLink.ManualControl.self, ParamRequestList.self, ParamRequestRead.self, ParamSet.self,
        MissionRequestList.self,
        MissionClearAll.self, MissionCount.self, MissionItemInt.self, MissionRequestInt.self, MissionRequest.self,
        MissionAck.self, MissionItemReached.self, GlobalPositionInt.self, Attitude.self, SysStatus.self,
        BatteryStatus.self,
        ExtendedSysState.self, HomePosition.self, Statustext.self,
    ]
    static let commands: [UInt16] = [16, 17, 20, 21, 22, 176, 192, 193, 400, 410, 511, 512, 520, 11, 0, 65535]
    var rng: SeededRandom
    var sequence: UInt8 = 0

    mutating func datagram(systems: [UInt8], targets: [UInt8]) -> [UInt8] {
        if Int.random(in: 0..<10, using: &rng) == 0 {
            return (0..<Int.random(in: 0..<300, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        }
        let type = Self.types.randomElement(using: &rng)!
        var payload = (0..<type.maxPayloadLength).map { _ in UInt8.random(in: 0...255, using: &rng) }
        for f in type.fields {
            if f.name == "target_system" || f.name == "target", Bool.random(using: &rng) {
                payload[f.offset] = targets.randomElement(using: &rng)!
            }
            if f.name == "command", f.type.size == 2, Bool.random(using: &rng) {
                let c = Self.commands.randomElement(using: &rng)!
                payload[f.offset] = UInt8(c & 0xFF)
                payload[f.offset + 1] = UInt8(c >> 8)
            }
        }
        let sysid =
            Bool.random(using: &rng) ? systems.randomElement(using: &rng)! : UInt8.random(in: 0...255, using: &rng)
        sequence &+= 1
        var bytes = MAVLinkEncoder.frame(
            messageID: type.id, crcExtra: type.crcExtra, payload: payload, sysid: sysid,
            compid: Bool.random(using: &rng) ? 1 : UInt8.random(in: 0...255, using: &rng),
            seq: sequence
        ).bytes
        if Int.random(in: 0..<8, using: &rng) == 0 {
            bytes += (0..<Int.random(in: 1..<40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        }
        return bytes
    }
}

@Suite("Bridge cores under random input")
struct BridgeFuzzTests {
    @Test(
        "the ground-control bridge answers anything ground-control software could send without trapping",
        arguments: 0..<4)
    func groundControl(seed: UInt64) {
        var f = FrameFuzzer(rng: SeededRandom(seed: seed))
        var b = GroundControlBridge<String>()
        var t = 0
        var sent = 0
        for i in 0..<5000 {
            t += Int.random(in: 0...20, using: &f.rng)
            if i % 10 == 0 {
                let fleet: [GroundControlBridge<String>.Vehicle] = [
                    .init(
                        uavNumber: 7,
                        state: state(
                            alt: Double(i % 30), activity: i % 60 < 30 ? .hovering : .landed, armed: i % 60 < 30),
                        isStale: false),
                    .init(uavNumber: 12, state: state(), isStale: i % 200 < 20),
                ]
                sent += b.tick(vehicles: fleet, originAltitude: i % 3 == 0 ? nil : 250, now: at(t)).count
            }
            let out = b.receive(
                f.datagram(systems: [255, 7, 12, 1], targets: [7, 12, 0, 200, 251]), from: ["qgc", "mavproxy"][i % 2],
                now: at(t))
            for case .command(_, _, let ticket) in out {
                // The mesh answers some commands, in any order.
                let answers: [CommandAnswer] = [
                    .accepted, .completed, .rejected(.unknownUAVNumber(7)), .failed("x"),
                    .rejected(.vehicle("not airborne")),
                ]
                sent += b.onAnswer(ticket: ticket, answers.randomElement(using: &f.rng)!, now: at(t)).count
            }
            sent += out.count
        }
        #expect(sent > 0)
        #expect(b.peers.count <= 2)
    }

    @Test("the autopilot session takes any frame an autopilot link could carry without trapping", arguments: 0..<4)
    func autopilot(seed: UInt64) {
        var f = FrameFuzzer(rng: SeededRandom(seed: seed))
        var ap = FakeAutopilot(flavour: seed % 2 == 0 ? .ardupilot : .px4)
        var s = connected(&ap, mode: 4, armed: true, flying: true)
        var t = 200
        var commands = 0
        for i in 0..<5000 {
            t += Int.random(in: 0...20, using: &f.rng)
            _ = s.receive(
                f.datagram(systems: [1, 2], targets: [255, 1, 0]), endOfDatagram: Bool.random(using: &f.rng), now: at(t)
            )
            if i % 50 == 0 {
                _ = s.receive(
                    ap.heartbeat(mode: UInt32.random(in: 0...10, using: &f.rng), armed: true), endOfDatagram: true,
                    now: at(t))
            }
            if i % 25 == 0 {
                commands += 1
                let id = commandID(UInt64(commands))
                let p = GeoPoint(
                    latitude: 50.1 + Double.random(in: -0.001...0.001, using: &f.rng), longitude: 14.4, altitude: 10)
                let all: [Command] = [
                    .takeoff(altitudeMillimetres: 5000), .land, .hover, .goto(p, speedCmS: 300), .returnToLaunch,
                    .followTarget(true), .followTarget(false), .trajectory([p, p]),
                ]
                _ = s.execute(id, all.randomElement(using: &f.rng)!, now: at(t))
            }
            if i % 7 == 0 { _ = s.applyTarget(GeoPoint(latitude: 50.1, longitude: 14.4, altitude: 9), now: at(t)) }
            if i % 11 == 0 { _ = s.applyManualControl(Coordinator.ManualControl(x: 100, y: 0, z: 0, r: 0), now: at(t)) }
            _ = s.tick(now: at(t))
            _ = s.vehicleState
            _ = s.prediction()
        }
        #expect(commands == 200)
    }
}
