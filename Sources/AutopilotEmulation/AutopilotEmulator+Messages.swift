import Flight
import MAVLink

extension AutopilotEmulator {
    // MARK: - Messages from the companion

    /// One frame from the companion; returns the frames that answer it.
    mutating func handle(_ frame: MAVLinkFrame, now: Double) -> [[UInt8]] {
        let name = MAVLinkDialect.common.info(for: frame.messageID)?.name ?? "message \(frame.messageID)"
        messageCounts[name, default: 0] += 1
        switch frame.message {
        case .heartbeat(let hb):
            if heardFrom.insert(UInt16(frame.systemID) << 8 | UInt16(frame.componentID)).inserted {
                record(
                    .heartbeat(
                        systemID: frame.systemID, componentID: frame.componentID, type: hb.type,
                        autopilot: hb.autopilot), at: now)
            }
        case .commandLong(let c):
            return handle(c, from: frame, now: now)
        case .commandInt(let c):
            return handle(c, from: frame, now: now)
        case .setPositionTargetGlobalInt(let m):
            guard isAddressed(system: m.targetSystem, component: m.targetComponent) else { return [] }
            positionTarget(m, now: now)
        case .manualControl(let m):
            guard m.target == configuration.systemID else { return [] }
            manual = ManualInput(x: m.x, y: m.y, z: m.z, r: m.r, at: now)
            manualControlCount += 1
            record(.manualControl(x: m.x, y: m.y, z: m.z, r: m.r), at: now)
        case .missionCount(let m):
            guard isAddressed(system: m.targetSystem, component: m.targetComponent) else { return [] }
            return missionCount(m, from: frame, now: now)
        case .missionItemInt(let m):
            guard isAddressed(system: m.targetSystem, component: m.targetComponent) else { return [] }
            return missionItem(m, now: now)
        case .missionSetCurrent(let m):
            guard isAddressed(system: m.targetSystem, component: m.targetComponent) else { return [] }
            missionSequence = Int(m.seq)
            record(.missionSetCurrent(m.seq), at: now)
            return [self.frame(MissionCurrent(seq: m.seq, total: UInt16(clamping: mission.count)))]
        case .missionClearAll(let m):
            guard isAddressed(system: m.targetSystem, component: m.targetComponent) else { return [] }
            mission = []
            missionSequence = 0
            record(.message("MISSION_CLEAR_ALL"), at: now)
            return [missionAck(.mavMissionAccepted, to: frame.systemID, frame.componentID)]
        default:
            record(.message(name), at: now)
        }
        return []
    }

    // MARK: - Position targets

    /// SET_POSITION_TARGET_GLOBAL_INT: taken only armed, airborne and in ArduPilot GUIDED / PX4 OFFBOARD (its arrival
    /// feeds PX4's OFFBOARD stream check in any mode; under an `.ignoreSetpoints` fault it is taken, but not flown). Position in the global frames (altitude AMSL or above home);
    /// velocity, unless ignored, is a feed-forward that moves the target for up to 3 s (ArduPilot GUID_TIMEOUT);
    /// velocity alone is flown as a velocity for 3 s; yaw, unless ignored, is the heading.
    mutating func positionTarget(_ m: SetPositionTargetGlobalInt, now: Double) {
        // A gap of more than 0.5 s (under 2 Hz) starts a new stream for PX4's OFFBOARD check.
        if now - lastSetpointAt > Self.offboardLossTimeout { setpointStreamStart = now }
        lastSetpointAt = now
        positionTargetCount += 1
        let mask = m.typeMask
        let globalFrames: [MAVFrame] = [
            .global, .globalInt, .globalRelativeAlt, .globalRelativeAltInt, .globalTerrainAlt, .globalTerrainAltInt,
        ]
        let hasPosition = !mask.contains([.xIgnore, .yIgnore, .zIgnore])
        let hasVelocity = !mask.contains([.vxIgnore, .vyIgnore, .vzIgnore])
        var velocity: Vector3?
        if hasVelocity, m.vx.isFinite, m.vy.isFinite, m.vz.isFinite {
            velocity = Vector3(Double(m.vy), Double(m.vx), -Double(m.vz))
        }
        let usable =
            armed && !onGround && behaviour == .guided && globalFrames.contains(m.coordinateFrame)
            && (!hasPosition || m.alt.isFinite) && (hasPosition || velocity != nil)
        record(.positionTarget(m, accepted: usable), at: now)
        guard usable, !ignoresSetpoints(at: now) else { return }
        takeoffAltitude = nil
        if hasPosition {
            target = local(
                latitudeE7: m.latInt, longitudeE7: m.lonInt, up: relativeAltitude(m.alt, frame: m.coordinateFrame))
        } else {
            target = nil
        }
        targetVelocity = velocity.map { ($0, now) }
        if !mask.contains(.yawIgnore), m.yaw.isFinite {
            desiredHeading = normalizedHeading(Double(m.yaw) * 180 / .pi)
        }
    }

    // MARK: - Mission upload

    mutating func missionCount(_ m: MissionCount, from frame: MAVLinkFrame, now: Double) -> [[UInt8]] {
        guard m.missionType == .mission else {
            return [missionAck(.mavMissionUnsupported, to: frame.systemID, frame.componentID, type: m.missionType)]
        }
        record(.missionCount(m.count), at: now)
        guard m.count > 0 else {
            upload = nil
            mission = []
            return [missionAck(.mavMissionAccepted, to: frame.systemID, frame.componentID)]
        }
        upload = MissionUpload(
            expected: Int(m.count), sourceSystem: frame.systemID, sourceComponent: frame.componentID)
        return [missionRequest(0)]
    }

    /// MISSION_ITEM_INT: the next item is taken (and the one after requested, or the mission acknowledged); a repeat
    /// of the previous item is answered with the request again; anything else is ignored.
    mutating func missionItem(_ m: MissionItemInt, now: Double) -> [[UInt8]] {
        guard var u = upload, m.missionType == .mission else { return [] }
        let seq = Int(m.seq)
        if seq == u.items.count - 1 { return [missionRequest(u.items.count)] }
        guard seq == u.items.count else { return [] }
        let position = local(latitudeE7: m.x, longitudeE7: m.y, up: relativeAltitude(m.z, frame: m.frame))
        u.items.append(Waypoint(position: position, item: m))
        record(.missionItem(m), at: now)
        guard u.items.count == u.expected else {
            upload = u
            return [missionRequest(u.items.count)]
        }
        upload = nil
        mission = u.items
        missionSequence = min(missionSequence, mission.count)
        return [missionAck(.mavMissionAccepted, to: u.sourceSystem, u.sourceComponent)]
    }

    mutating func missionRequest(_ seq: Int) -> [UInt8] {
        let u = upload
        return frame(
            MissionRequestInt(
                targetSystem: u?.sourceSystem ?? 0, targetComponent: u?.sourceComponent ?? 0,
                seq: UInt16(clamping: seq), missionType: .mission))
    }

    mutating func missionAck(
        _ result: MAVMissionResult, to system: UInt8, _ component: UInt8, type: MAVMissionType = .mission
    ) -> [UInt8] {
        frame(MissionAck(targetSystem: system, targetComponent: component, type: result, missionType: type))
    }
}
