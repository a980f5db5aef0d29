import Flight
import MeshTypes

extension CoordinatorMessage {
    /// The message's type number and payload bytes (big-endian layouts in DOC.md).
    public func encode() -> (type: UInt16, payload: [UInt8]) {
        var w = WireWriter(capacity: 64)
        switch self {
        case .linkState(let lsa):
            lsa.write(to: &w)
            return (CoordinatorMessageType.linkState, w.bytes)
        case .linkStateSummary(let summary):
            summary.write(to: &w)
            return (CoordinatorMessageType.linkStateSummary, w.bytes)
        case .linkStateRequest(let request):
            request.write(to: &w)
            return (CoordinatorMessageType.linkStateRequest, w.bytes)
        case .linkStateRefresh(let refresh):
            refresh.write(to: &w)
            return (CoordinatorMessageType.linkStateRefresh, w.bytes)
        case .routed(let env, let body):
            env.write(to: &w)
            let type = body.write(to: &w)
            return (type, w.bytes)
        }
    }

    /// Decodes a message; throws a `WireError` naming the field on malformed input, never traps.
    public init(type: UInt16, payload: [UInt8]) throws(WireError) {
        var r = WireReader(payload)
        if type == CoordinatorMessageType.linkState {
            self = .linkState(try LinkStateAdvertisement(from: &r))
        } else if type == CoordinatorMessageType.linkStateSummary {
            self = .linkStateSummary(try LinkStateSummary(from: &r))
        } else if type == CoordinatorMessageType.linkStateRequest {
            self = .linkStateRequest(try LinkStateRequest(from: &r))
        } else if type == CoordinatorMessageType.linkStateRefresh {
            self = .linkStateRefresh(try LinkStateRefresh(from: &r))
        } else {
            guard (CoordinatorMessageType.telemetry...CoordinatorMessageType.geofence).contains(type) else {
                throw WireError(
                    "message type: expected 0x4C01…0x4C04 or 0x5201…0x520c, found 0x" + String(type, radix: 16))
            }
            let env = try Envelope(from: &r)
            self = .routed(env, try MeshPayload(type: type, from: &r))
        }
        try r.expectEnd("coordinator message 0x" + String(type, radix: 16))
    }
}

extension MeshPayload {
    /// Writes the body and returns its message type.
    func write(to w: inout WireWriter) -> UInt16 {
        switch self {
        case .telemetry(let n, let s):
            w.u8(n)
            s.position.write(to: &w)
            w.i16(s.velocityNorthCmS)
            w.i16(s.velocityEastCmS)
            w.i16(s.velocityDownCmS)
            w.u16(s.headingCentidegrees)
            w.u8(s.batteryPercent)
            w.u8(s.activity.wireValue)
            w.bool(s.armed)
            w.u8(s.linkQuality)
            return CoordinatorMessageType.telemetry
        case .prediction(let n, let p):
            w.u8(n)
            let uncertain = !p.uncertainty.isNone
            // The path by second differences, each point within a few centimetres, when that is shorter (almost
            // always: a few bytes for a steady flight, not 12 a point).
            let points = Array(p.points.prefix(255))
            var coded = WireWriter(capacity: 4 * points.count + 16)
            DeltaCodedPath.write(points, tolerance: .prediction, to: &coded)
            let compact = coded.bytes.count < 1 + 12 * points.count
            w.u8((p.avoiding ? 1 : 0) | (uncertain ? 2 : 0) | (compact ? 4 : 0) | (p.index & 3) << 3)
            if uncertain {
                w.u8(UInt8((p.uncertainty.radius * 10).rounded()))
                w.u8(UInt8((p.uncertainty.growth * 10).rounded()))
            }
            w.u16(p.stepMilliseconds)
            if compact { w.bytes(coded.bytes) } else { writePoints(points, countWidth16: false, to: &w) }
            return CoordinatorMessageType.prediction
        case .target(let t):
            switch t.address {
            case .uav(let n):
                w.u8(0)
                w.u8(n)
            case .group(let ns):
                w.u8(1)
                w.u8(UInt8(min(ns.count, 255)))
                for n in ns.prefix(255) { w.u8(n) }
            case .all: w.u8(2)
            }
            t.location.write(to: &w)
            w.u16(t.headingCentidegrees ?? 0xFFFF)
            return CoordinatorMessageType.target
        case .command(let c):
            w.u64(c.counter)
            w.u8(c.uavNumber)
            w.u64(c.targetIncarnation)
            w.u8((c.takeover ? 1 : 0) | (c.start != nil ? 2 : 0))
            switch c.start {
            case nil: break
            // Microseconds on the receiving node's clock; 0 says the moment could not be carried (never a real
            // start: it is the receiver's own start, long past).
            case .at(let t): w.u64(max(1, t.nanoseconds / 1000))
            case .clockUnknown: w.u64(0)
            }
            switch c.command {
            case .takeoff(let alt):
                w.u8(0)
                w.i32(alt)
            case .land: w.u8(1)
            case .hover: w.u8(2)
            case .goto(let p, let speed):
                w.u8(3)
                p.write(to: &w)
                w.u16(speed)
            case .returnToLaunch: w.u8(4)
            case .followTarget(let on):
                w.u8(5)
                w.bool(on)
            case .trajectory(let ps, let stops):
                // Kind 6 without stops (as every version-2 node reads it); kind 7 adds them.
                let points = Array(ps.prefix(WireLimits.maxTrajectoryPoints))
                let kept = stops.filter { Int($0.index) < points.count }.prefix(WireLimits.maxTrajectoryPoints)
                w.u8(kept.isEmpty ? 6 : 7)
                writePoints(points, countWidth16: true, to: &w)
                if !kept.isEmpty {
                    w.u16(UInt16(kept.count))
                    for stop in kept {
                        w.u16(stop.index)
                        w.u16(stop.headingCentidegrees ?? 0xFFFF)
                        w.u16(stop.holdDeciseconds)
                    }
                }
            }
            return CoordinatorMessageType.command
        case .commandAnswer(let counter, let inc, let answer):
            w.u64(counter)
            w.u64(inc)
            switch answer {
            case .accepted: w.u8(0)
            case .rejected(let why):
                w.u8(1)
                switch why {
                case .unknownUAVNumber(let n):
                    w.u8(0)
                    w.u8(n)
                case .contestedNumber(let n):
                    w.u8(1)
                    w.u8(n)
                case .controlledBy(let s):
                    w.u8(2)
                    w.shortString(s)
                case .targetRestarted: w.u8(3)
                case .vehicle(let s):
                    w.u8(4)
                    w.shortString(s)
                case .startTime(let s):
                    w.u8(5)
                    w.shortString(s)
                }
            case .completed: w.u8(2)
            case .failed(let s):
                w.u8(3)
                w.shortString(s)
            }
            return CoordinatorMessageType.commandAnswer
        case .manualControl(let n, let takeover, let m):
            w.u8(n)
            w.bool(takeover)
            w.i16(m.x)
            w.i16(m.y)
            w.i16(m.z)
            w.i16(m.r)
            w.u32(m.buttons)
            w.u64(m.sentAtMicros)
            return CoordinatorMessageType.manualControl
        case .failsafeReport(let rep):
            w.u8(rep.uavNumber)
            w.u32(rep.silenceMilliseconds)
            w.u8(UInt8(min(rep.steps.count, 255)))
            for s in rep.steps.prefix(255) {
                w.u8(s.action.rawValue)
                w.u32(s.afterSilenceMilliseconds)
            }
            return CoordinatorMessageType.failsafeReport
        case .avoidanceReport(let rep):
            w.u8(rep.uavNumber)
            w.shortString(rep.summary)
            return CoordinatorMessageType.avoidanceReport
        case .leaseRevoked(let n, let holder):
            w.u8(n)
            w.shortString(holder)
            return CoordinatorMessageType.leaseRevoked
        case .leaseUpdate(let n, let release):
            w.u8(n)
            w.bool(release)
            return CoordinatorMessageType.leaseUpdate
        case .mapOrigin(let a):
            a.position.write(to: &w)
            w.u8(a.forcedZone ?? 0)
            w.u8(a.forcedZone != nil && a.southernHemisphere ? 1 : 0)
            w.u64(a.epoch)
            return CoordinatorMessageType.mapOrigin
        case .geofence(let a):
            w.nodeID(a.announcedBy)
            w.u64(a.epoch)
            guard let fence = a.fence else {
                w.u8(0)
                return CoordinatorMessageType.geofence
            }
            w.u8(1)
            w.i32(fence.floorMillimetres)
            w.i32(fence.ceilingMillimetres)
            w.u8(UInt8(fence.corners.count))
            for c in fence.corners {
                w.i32(c.latitudeE7)
                w.i32(c.longitudeE7)
            }
            return CoordinatorMessageType.geofence
        }
    }

    init(type: UInt16, from r: inout WireReader) throws(WireError) {
        switch type {
        case CoordinatorMessageType.telemetry:
            let n = try readUAVNumber(&r, "telemetry.uavNumber", allowNone: true) ?? 0
            let pos = try GeoPoint(from: &r, "telemetry.position")
            let vn = try r.i16("telemetry.velocityNorth"), ve = try r.i16("telemetry.velocityEast"),
                vd = try r.i16("telemetry.velocityDown")
            let heading = try readHeading(&r, "telemetry.heading")
            let battery = try readPercent(&r, "telemetry.batteryPercent")
            let activityAt = r.offset
            let a = try r.u8("telemetry.activity")
            guard let activity = Activity(wireValue: a) else {
                throw WireError(
                    "telemetry.activity at offset \(activityAt): expected 0…\(Activity.wireOrder.count - 1), found \(a)"
                )
            }
            let armed = try r.bool("telemetry.armed")
            let link = try readPercent(&r, "telemetry.linkQuality")
            self = .telemetry(
                uavNumber: n,
                state: VehicleState(
                    position: pos, velocityNorthCmS: vn, velocityEastCmS: ve, velocityDownCmS: vd,
                    headingCentidegrees: heading, batteryPercent: battery, activity: activity,
                    armed: armed, linkQuality: link))
        case CoordinatorMessageType.prediction:
            let n = try readUAVNumber(&r, "prediction.uavNumber", allowNone: true) ?? 0
            let flagsAt = r.offset
            let flags = try r.u8("prediction.flags")
            guard flags & ~31 == 0 else {
                throw WireError(
                    "prediction.flags at offset \(flagsAt): only bits 0 (avoiding), 1 (uncertainty), 2 (coded path) and 3–4 (index) may be set, found 0x\(String(flags, radix: 16))"
                )
            }
            var uncertainty = PredictionUncertainty.none
            if flags & 2 != 0 {
                let radius = try r.u8("prediction.uncertainty.radius")
                let growth = try r.u8("prediction.uncertainty.growth")
                uncertainty = PredictionUncertainty(radius: Double(radius) / 10, growth: Double(growth) / 10)
            }
            let step = try r.u16("prediction.stepMilliseconds")
            let points: [GeoPoint]
            if flags & 4 != 0 {
                points = try DeltaCodedPath.read(&r, "prediction.points")
            } else {
                let count = Int(try r.u8("prediction.pointCount"))
                points = try readPoints(&r, "prediction.points", count: count)
            }
            self = .prediction(
                uavNumber: n,
                prediction: TrajectoryPrediction(
                    stepMilliseconds: step,
                    points: points,
                    avoiding: flags & 1 == 1, uncertainty: uncertainty, index: flags >> 3))
        case CoordinatorMessageType.target:
            let address: TargetAddress
            switch try r.tag("target.addressKind", max: 2) {
            case 0: address = .uav(try readUAVNumber(&r, "target.uavNumber", allowNone: false)!)
            case 1:
                let count = Int(try r.u8("target.groupCount"))
                var ns: [UInt8] = []
                for i in 0..<count { ns.append(try readUAVNumber(&r, "target.group[\(i)]", allowNone: false)!) }
                address = .group(ns)
            default: address = .all
            }
            let loc = try GeoPoint(from: &r, "target.location")
            let hAt = r.offset
            let h = try r.u16("target.heading")
            guard h == 0xFFFF || h < 36000 else {
                throw WireError("target.heading at offset \(hAt): expected 0…35999 or 0xFFFF, found \(h)")
            }
            self = .target(Target(address: address, location: loc, headingCentidegrees: h == 0xFFFF ? nil : h))
        case CoordinatorMessageType.command:
            let counter = try r.u64("command.counter")
            let n = try readUAVNumber(&r, "command.uavNumber", allowNone: false)!
            let inc = try r.u64("command.targetIncarnation")
            let flagsAt = r.offset
            let flags = try r.u8("command.flags")
            guard flags & ~3 == 0 else {
                throw WireError(
                    "command.flags at offset \(flagsAt): only bits 0 (takeover) and 1 (scheduled) may be set, found 0x\(String(flags, radix: 16))"
                )
            }
            var start: CommandStart?
            if flags & 2 != 0 {
                let startAt = r.offset
                let micros = try r.u64("command.start")
                guard micros <= UInt64.max / 1000 else {
                    throw WireError(
                        "command.start at offset \(startAt): expected ≤ \(UInt64.max / 1000) µs, found \(micros)")
                }
                start = micros == 0 ? .clockUnknown : .at(MeshInstant(nanoseconds: micros * 1000))
            }
            let command: Command
            let kind = try r.tag("command.kind", max: 7)
            switch kind {
            case 0: command = .takeoff(altitudeMillimetres: try r.i32("command.takeoff.altitude"))
            case 1: command = .land
            case 2: command = .hover
            case 3:
                command = .goto(
                    try GeoPoint(from: &r, "command.goto.position"), speedCmS: try r.u16("command.goto.speed"))
            case 4: command = .returnToLaunch
            case 5: command = .followTarget(try r.bool("command.followTarget.on"))
            default:
                let countAt = r.offset
                let count = Int(try r.u16("command.trajectory.count"))
                guard count <= WireLimits.maxTrajectoryPoints else {
                    throw WireError(
                        "command.trajectory.count at offset \(countAt): expected ≤ \(WireLimits.maxTrajectoryPoints), found \(count)"
                    )
                }
                let points = try readPoints(&r, "command.trajectory.points", count: count)
                var stops: [TrajectoryStop] = []
                if kind == 7 {
                    let stopsAt = r.offset
                    let n = Int(try r.u16("command.trajectory.stops.count"))
                    guard n >= 1, n <= count else {
                        throw WireError(
                            "command.trajectory.stops.count at offset \(stopsAt): expected 1…\(count), found \(n)")
                    }
                    for k in 0..<n {
                        let at = r.offset
                        let index = try r.u16("command.trajectory.stops[\(k)].index")
                        let heading = try r.u16("command.trajectory.stops[\(k)].heading")
                        let hold = try r.u16("command.trajectory.stops[\(k)].hold")
                        guard Int(index) < count else {
                            throw WireError(
                                "command.trajectory.stops[\(k)].index at offset \(at): expected < \(count), found \(index)"
                            )
                        }
                        guard heading < 36000 || heading == 0xFFFF else {
                            throw WireError(
                                "command.trajectory.stops[\(k)].heading at offset \(at + 2): expected < 36000 or 65535, found \(heading)"
                            )
                        }
                        stops.append(
                            TrajectoryStop(
                                index: index, headingCentidegrees: heading == 0xFFFF ? nil : heading,
                                holdDeciseconds: hold))
                    }
                }
                command = .trajectory(points, stops: stops)
            }
            self = .command(
                CommandRequest(
                    counter: counter, uavNumber: n, targetIncarnation: inc, takeover: flags & 1 != 0, command: command,
                    start: start))
        case CoordinatorMessageType.commandAnswer:
            let counter = try r.u64("answer.counter")
            let inc = try r.u64("answer.requesterIncarnation")
            let answer: CommandAnswer
            switch try r.tag("answer.kind", max: 3) {
            case 0: answer = .accepted
            case 1:
                switch try r.tag("answer.rejection", max: 5) {
                case 0: answer = .rejected(.unknownUAVNumber(try r.u8("answer.rejection.uavNumber")))
                case 1: answer = .rejected(.contestedNumber(try r.u8("answer.rejection.uavNumber")))
                case 2: answer = .rejected(.controlledBy(try r.shortString("answer.rejection.station")))
                case 3: answer = .rejected(.targetRestarted)
                case 4: answer = .rejected(.vehicle(try r.shortString("answer.rejection.reason")))
                default: answer = .rejected(.startTime(try r.shortString("answer.rejection.startTime")))
                }
            case 2: answer = .completed
            default: answer = .failed(try r.shortString("answer.failure.reason"))
            }
            self = .commandAnswer(counter: counter, requesterIncarnation: inc, answer: answer)
        case CoordinatorMessageType.manualControl:
            let n = try readUAVNumber(&r, "manualControl.uavNumber", allowNone: false)!
            let takeover = try r.bool("manualControl.takeover")
            let m = ManualControl(
                x: try r.i16("manualControl.x"), y: try r.i16("manualControl.y"), z: try r.i16("manualControl.z"),
                r: try r.i16("manualControl.r"), buttons: try r.u32("manualControl.buttons"),
                sentAtMicros: try r.u64("manualControl.sentAt"))
            self = .manualControl(uavNumber: n, takeover: takeover, control: m)
        case CoordinatorMessageType.failsafeReport:
            let n = try readUAVNumber(&r, "failsafe.uavNumber", allowNone: true) ?? 0
            let silence = try r.u32("failsafe.silenceMilliseconds")
            let count = Int(try r.u8("failsafe.stepCount"))
            var steps: [FailsafeStep] = []
            for i in 0..<count {
                let at = r.offset
                let a = try r.u8("failsafe.steps[\(i)].action")
                guard let action = FailsafeAction(rawValue: a) else {
                    throw WireError("failsafe.steps[\(i)].action at offset \(at): expected 0…2, found \(a)")
                }
                steps.append(
                    FailsafeStep(action: action, afterSilenceMilliseconds: try r.u32("failsafe.steps[\(i)].after")))
            }
            self = .failsafeReport(FailsafeReport(uavNumber: n, steps: steps, silenceMilliseconds: silence))
        case CoordinatorMessageType.avoidanceReport:
            let n = try readUAVNumber(&r, "avoidance.uavNumber", allowNone: true) ?? 0
            self = .avoidanceReport(AvoidanceReport(uavNumber: n, summary: try r.shortString("avoidance.summary")))
        case CoordinatorMessageType.leaseUpdate:
            let n = try readUAVNumber(&r, "leaseUpdate.uavNumber", allowNone: false)!
            self = .leaseUpdate(uavNumber: n, release: try r.bool("leaseUpdate.release"))
        case CoordinatorMessageType.mapOrigin:
            let position = try GeoPoint(from: &r, "mapOrigin.position")
            let zoneAt = r.offset
            let zone = try r.u8("mapOrigin.zone")
            guard zone <= 60 else {
                throw WireError("mapOrigin.zone at offset \(zoneAt): expected 0…60, found \(zone)")
            }
            let hemisphereAt = r.offset
            let hemisphere = try r.tag("mapOrigin.hemisphere", max: 1)
            guard zone != 0 || hemisphere == 0 else {
                throw WireError(
                    "mapOrigin.hemisphere at offset \(hemisphereAt): expected 0 without a zone, found \(hemisphere)")
            }
            let epoch = try r.u64("mapOrigin.epoch")
            self = .mapOrigin(
                MapOriginAnnouncement(
                    position: position, forcedZone: zone == 0 ? nil : zone,
                    southernHemisphere: hemisphere == 1, epoch: epoch))
        case CoordinatorMessageType.geofence:
            self = .geofence(try GeofenceAnnouncement(from: &r))
        default:
            let n = try readUAVNumber(&r, "leaseRevoked.uavNumber", allowNone: false)!
            self = .leaseRevoked(uavNumber: n, newHolder: try r.shortString("leaseRevoked.newHolder"))
        }
    }
}
