import Coordinator
import MAVLink
import MeshTypes

/// Mission uploads from ground-control software (MISSION_COUNT, MISSION_ITEM_INT) become trajectory commands.
extension GroundControlBridge {

    mutating func onMissionCount(_ m: MissionCount, gcs: GCS, now: MeshInstant) -> [Directive] {
        let target = m.targetSystem
        guard fleet[target] != nil else { return [] }
        guard m.missionType == .mission else {
            return send(
                MissionAck(
                    targetSystem: gcs.system, targetComponent: gcs.component, type: .mavMissionUnsupported,
                    missionType: m.missionType), as: target, to: [gcs.address])
        }
        if m.count == 0 {
            return send(
                MissionAck(
                    targetSystem: gcs.system, targetComponent: gcs.component, type: .mavMissionAccepted,
                    missionType: .mission), as: target, to: [gcs.address])
        }
        uploads[target] = Upload(
            address: gcs.address, system: gcs.system, component: gcs.component, count: m.count, items: [],
            deadline: now + .seconds(3))
        return send(
            MissionRequestInt(targetSystem: gcs.system, targetComponent: gcs.component, seq: 0, missionType: .mission),
            as: target, to: [gcs.address])
    }

    mutating func onMissionItem(_ m: MissionItemInt, gcs: GCS, now: MeshInstant) -> [Directive] {
        let target = m.targetSystem
        guard var u = uploads[target], u.address == gcs.address, Int(m.seq) == u.items.count else { return [] }
        u.items.append(m)
        u.deadline = now + .seconds(3)
        guard u.items.count == Int(u.count) else {
            uploads[target] = u
            return send(
                MissionRequestInt(
                    targetSystem: gcs.system, targetComponent: gcs.component, seq: UInt16(u.items.count),
                    missionType: .mission), as: target, to: [gcs.address])
        }
        uploads[target] = nil
        // Waypoints become the trajectory; a waypoint with a hold (param 1 > 0) is a stop, facing its yaw (param 4)
        // when that is a number (many tools send yaw 0 for "don't care": without a hold it is not taken as a
        // heading). Other items (takeoff, speed changes, …) are skipped.
        var points: [GeoPoint] = []
        var stops: [TrajectoryStop] = []
        for item in u.items where item.command == .navWaypoint {
            guard item.z.isFinite, abs(item.z) <= 20_000 else {
                return send(
                    MissionAck(
                        targetSystem: gcs.system, targetComponent: gcs.component, type: .mavMissionInvalidParam7,
                        missionType: .mission), as: target, to: [gcs.address])
            }
            guard let alt = relativeAltitude(Double(item.z), frame: item.frame) else {
                return send(
                    MissionAck(
                        targetSystem: gcs.system, targetComponent: gcs.component, type: .mavMissionUnsupportedFrame,
                        missionType: .mission), as: target, to: [gcs.address])
            }
            let hold = item.param1.isFinite ? min(6553.5, max(0, Double(item.param1))) : 0
            let yaw =
                item.param4.isFinite
                ? (Double(item.param4).truncatingRemainder(dividingBy: 360) + 360)
                    .truncatingRemainder(dividingBy: 360) : nil
            if hold > 0 {
                stops.append(
                    TrajectoryStop(
                        index: UInt16(points.count),
                        headingCentidegrees: yaw.map { UInt16(($0 * 100).rounded()) % 36000 },
                        holdDeciseconds: UInt16((hold * 10).rounded())))
            }
            points.append(
                GeoPoint(
                    latitudeE7: item.x, longitudeE7: item.y,
                    altitudeMillimetres: Int32(clamping: Int64((alt * 1000).rounded()))))
        }
        guard !points.isEmpty else {
            return send(
                MissionAck(
                    targetSystem: gcs.system, targetComponent: gcs.component, type: .mavMissionInvalid,
                    missionType: .mission), as: target, to: [gcs.address])
                + statusText("the mission has no waypoints", severity: .warning, as: target, to: [gcs.address], id: 0)
        }
        let key = CommandKey(
            address: gcs.address, systemID: gcs.system, componentID: gcs.component, target: target,
            command: 0x1_002C,
            parameters: points.flatMap { [UInt32(bitPattern: $0.latitudeE7), UInt32(bitPattern: $0.longitudeE7)] })
        // MISSION_ACK follows the mesh's verdict (see onAnswer via `missionTickets`).
        let out = submit(
            .trajectory(points, stops: stops), key: key, uav: target, ackCommand: nil, repeated: .whilePending,
            gcs: gcs, now: now)
        for case .command(_, _, let ticket) in out { missionTickets[ticket] = target }
        return out
    }

    /// Uploads that stalled: the GCS gave up or lost packets; asks once more for the item, then forgets the upload.
    mutating func expireUploads(now: MeshInstant) -> [Directive] {
        var out: [Directive] = []
        for (target, u) in uploads where now >= u.deadline {
            uploads[target] = nil
            out.append(
                .note(
                    "mission upload to UAV \(target) from ground control \(u.system) stalled at item \(u.items.count) of \(u.count)"
                ))
        }
        return out
    }
}
