import AutopilotEmulation
import MAVLink
import Testing

@Suite("Autopilot emulator: missions")
struct MissionTests {
    /// A waypoint as the bridge uploads it (altitude above home).
    func item(_ seq: UInt16, east: Double, north: Double, up: Double) -> MissionItemInt {
        let (lat, lon) = targetE7(east: east, north: north)
        return MissionItemInt(
            targetSystem: 1, targetComponent: 1, seq: seq, frame: .globalRelativeAlt, command: .navWaypoint,
            autocontinue: 1, x: lat, y: lon, z: Float(up), missionType: .mission)
    }

    func requested(_ frames: [MAVLinkFrame]) -> [UInt16] {
        frames.compactMap {
            if case .missionRequestInt(let r) = $0.message, r.targetSystem == 255, r.targetComponent == 190 {
                return r.seq
            }
            return nil
        }
    }

    func acked(_ frames: [MAVLinkFrame]) -> MAVMissionResult? {
        frames.compactMap { if case .missionAck(let a) = $0.message { a.type } else { nil } }.first
    }

    @Test(
        "upload: MISSION_REQUEST_INT item by item (a repeat asked again), MISSION_ACK; AUTO flies items 1… with MISSION_ITEM_REACHED"
    )
    func arduMission() {
        var b = Bench()
        b.airborne(altitude: 10)
        let home = MissionItemInt(
            targetSystem: 1, targetComponent: 1, seq: 0, frame: .global, command: .navWaypoint, autocontinue: 1,
            x: 500_901_000, y: 144_101_000, z: 300, missionType: .mission)
        let items = [
            home, item(1, east: 10, north: 0, up: 10), item(2, east: 10, north: 10, up: 12),
            item(3, east: 0, north: 10, up: 8),
        ]
        #expect(
            requested(b.send(MissionCount(targetSystem: 1, targetComponent: 1, count: 4, missionType: .mission))) == [0]
        )
        #expect(requested(b.send(items[0])) == [1])
        #expect(requested(b.send(items[0])) == [1])  // a retransmission: asked for the next again
        #expect(requested(b.send(items[2])).isEmpty)  // out of order: ignored
        #expect(requested(b.send(items[1])) == [2])
        #expect(requested(b.send(items[2])) == [3])
        #expect(acked(b.send(items[3])) == .mavMissionAccepted)
        #expect(b.emulator.mission.count == 4)
        #expect(b.emulator.mission[0].position.length < 0.01)  // home, AMSL frame
        #expect(b.emulator.mission[2].position.distance(to: .init(10, 10, 12)) < 0.02)

        let current = b.send(MissionSetCurrent(targetSystem: 1, targetComponent: 1, seq: 1))
        #expect(
            current.contains {
                if case .missionCurrent(let m) = $0.message { m.seq == 1 && m.total == 4 } else { false }
            })
        #expect(b.setMode(3) == .accepted && b.emulator.modeName == "AUTO")
        let start = b.now
        b.run(for: 40) { $0.emulator.missionSequence == 4 }
        let reached = b.sent(since: start) { if case .missionItemReached(let r) = $0 { r.seq } else { nil } }
        #expect(reached == [1, 2, 3])
        b.run(for: 3)
        #expect(b.emulator.position.distance(to: .init(0, 10, 8)) < 0.1)  // holds at the end
        #expect(b.emulator.modeName == "AUTO" && b.emulator.armed)
    }

    @Test("an empty mission is acknowledged at once; other mission types are unsupported")
    func emptyAndOtherTypes() {
        var b = Bench()
        #expect(
            acked(b.send(MissionCount(targetSystem: 1, targetComponent: 1, count: 0, missionType: .mission)))
                == .mavMissionAccepted)
        #expect(
            acked(b.send(MissionCount(targetSystem: 1, targetComponent: 1, count: 2, missionType: .fence)))
                == .mavMissionUnsupported)
        #expect(b.emulator.mission.isEmpty)
    }
}
