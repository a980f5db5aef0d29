import Coordinator
import Geodesy
import MAVLink
import MeshTypes

extension AutopilotSession {
    /// What the vehicle flies that collision avoidance may adjust: a held point, a goto, or a followed target.
    public enum Goal: Sendable, Hashable {
        /// Hold this point (after a hover, a takeoff or an arrival).
        case hold(GeoPoint)
        /// Fly to this point; `speed` in m/s, nil for the autopilot's own cruise speed.
        case goto(GeoPoint, speed: Double?)
        /// Follow the mesh's target, last seen here.
        case follow(GeoPoint)
    }

    /// Avoidance's override of the goal: the point streamed instead, and the speed cap asked with DO_CHANGE_SPEED.
    public struct Steering: Sendable, Hashable {
        public var point: GeoPoint
        public var speed: Double?
    }

    /// The goal of the command the vehicle flies now, if avoidance may adjust it; nil while taking off, landing,
    /// returning, flying a mission, under manual control, or idle.
    public var goal: Goal? {
        switch intent {
        case .hovering, .flyingToTarget: return heldGoal
        case .following: return lastTarget.map(Goal.follow)
        default: return nil
        }
    }

    /// A goto's speed in m/s from the command's cm/s (0: the autopilot's own).
    static func speed(_ cmS: UInt16) -> Double? { cmS == 0 ? nil : Double(cmS) / 100 }

    /// Collision avoidance steers the vehicle: fly to `point` (streamed as position targets, as the PX4 OFFBOARD
    /// rule asks, in GUIDED or OFFBOARD) at up to `speed` m/s, instead of the goal. `nil` ends the steering and
    /// resumes the goal (the goto's point and speed, the hold point, or the followed target). The command the vehicle
    /// runs is not superseded: its completion is still checked against its own goal.
    public mutating func steer(to point: GeoPoint?, speed: Double?, now: MeshInstant) -> [Directive] {
        guard let target = targetSystemID, let identity, !isSilent, flying, let goal else {
            // Whatever ended the goal, the steering's position targets end with it.
            if steering != nil, !following { setpoint = nil }
            steering = nil
            steeringModeDueAt = nil
            return []
        }
        var out: [Directive] = []
        let flavour = identity.flavour
        guard let point else {
            guard let old = steering else { return [] }
            steering = nil
            steeringModeDueAt = nil
            if old.speed != nil {
                // MAV_CMD_DO_CHANGE_SPEED: −2 is the vehicle's default (−1 would keep the cap).
                let resume = goalSpeed(goal)
                out.append(frame(changeSpeed(resume < 0 ? -2 : resume, target: target)))
                speedOverridden = resume >= 0
            }
            switch goal {
            case .follow(let p):
                setpoint = flavour == .px4 ? p : nil
                if flavour != .px4 { out.append(frame(positionTarget(p, target: target, now: now))) }
            case .hold(let p), .goto(let p, _):
                setpoint = nil
                if flavour == .px4 {
                    out.append(frame(reposition(p, speed: goalSpeed(goal), target: target)))
                } else {
                    out.append(frame(positionTarget(p, target: target, now: now)))
                }
            }
            return out
        }
        let starting = steering == nil
        // A point that moved goes out at once, not at the stream's next slot (up to 100 ms later).
        let moved =
            steering.map {
                Self.distance($0.point, point) + abs($0.point.altitude - point.altitude) > Self.resendDistance
            } ?? false
        if speed != steering?.speed {
            let cap = speed ?? goalSpeed(goal)
            out.append(frame(changeSpeed(cap < 0 ? -2 : cap, target: target)))
            speedOverridden = cap >= 0
        }
        steering = Steering(point: point, speed: speed)
        setpoint = point
        if moved {
            nextSetpointAt = now + configuration.setpointInterval
            out.append(frame(positionTarget(streamed(point), target: target, now: now)))
        }
        if starting {
            carrot = nil
            // Not from the last HEARTBEAT's mode: it may be older than the end of the previous steering.
            steeringReachedMode = false
            nextSetpointAt = now + configuration.setpointInterval
            out.append(frame(positionTarget(streamed(point), target: target, now: now)))
            // PX4 is asked for OFFBOARD whatever the last HEARTBEAT said: the end of a previous steering (its
            // DO_REPOSITION) has it leave OFFBOARD before a HEARTBEAT shows it.
            if flavour == .px4 || !flavour.isMode(telemetry.customMode, .guided) {
                running?.modes.insert(flavour.customMode(for: .guided))
                controlModes.insert(flavour.customMode(for: .guided))
                noteStreamed(now: now)
                let streaming = streamSince.map { now - $0 } ?? .zero
                if flavour == .px4 && configuration.offboardPrestream > streaming {
                    // PX4 wants the stream running before OFFBOARD: `tick` asks for it once the prestream is over
                    // (at once when the warm stream of the goal already ran that long).
                    steeringModeDueAt = now + (configuration.offboardPrestream - streaming)
                } else {
                    out += askSteeringMode(now: now, force: true)
                }
            }
        }
        return out
    }

    /// Asks for GUIDED / OFFBOARD for avoidance's steering: at once (`force`), or when PX4's prestream is over and the
    /// vehicle is still steered.
    mutating func askSteeringMode(now: MeshInstant, force: Bool = false) -> [Directive] {
        if !force {
            guard let due = steeringModeDueAt, now >= due else { return [] }
            steeringModeDueAt = nil
        }
        guard steering != nil, let identity, let target = targetSystemID, !isSilent else { return [] }
        var c = identity.flavour.setModeCommand(for: .guided, target: target)
        c.targetComponent = identity.componentID
        steeringModeAsked = true
        return [frame(c)]
    }

    /// The position target streamed for `setpoint`. On PX4, while avoidance caps the speed, a point moving toward the
    /// steering point at the cap, at most one second's travel ahead of the vehicle: PX4 acknowledges DO_CHANGE_SPEED
    /// but ignores it in OFFBOARD and flies to a position target as fast as it may, so the cap is kept by where the
    /// target is. The cap is horizontal (as the prediction's): the moving point carries the steering point's altitude
    /// at once, and the autopilot climbs or descends at its own rate. Elsewhere (ArduPilot honours DO_CHANGE_SPEED in
    /// GUIDED, and uncapped steering) the point itself.
    mutating func streamed(_ point: GeoPoint) -> GeoPoint {
        guard identity?.flavour == .px4, let s = steering, s.point == point, let cap = s.speed, cap > 0,
            let here = telemetry.position
        else {
            carrot = nil
            return point
        }
        let step = cap * configuration.setpointInterval.secondsDouble
        var next = Self.toward(carrot ?? here, point, by: step)
        // Never more than a second's travel ahead of the vehicle (a slow vehicle must not be pulled to catch up).
        if Self.distance(here, next) > cap { next = Self.toward(here, point, by: cap) }
        carrot = next
        return next
    }

    /// `a` moved horizontally toward `b` by `metres` (on the tangent plane at `a`; `b`'s position if it is nearer),
    /// at `b`'s altitude.
    static func toward(_ a: GeoPoint, _ b: GeoPoint, by metres: Double) -> GeoPoint {
        let plane = TangentPlane(origin: a.geodetic)
        let d = plane.local(b.geodetic)
        let length = (d.east * d.east + d.north * d.north).squareRoot()
        guard length > metres, length > 0 else { return b }
        let f = metres / length
        let g = plane.geodetic(LocalPosition(east: d.east * f, north: d.north * f, up: 0))
        return GeoPoint(latitude: g.latitude, longitude: g.longitude, altitude: b.altitude)
    }

    /// A steering point that moves farther than this (metres) is sent at once.
    static let resendDistance = 0.25

    /// The goal's speed (m/s), or −1: "the autopilot's own", as DO_REPOSITION reads it.
    func goalSpeed(_ goal: Goal) -> Double {
        if case .goto(_, let speed?) = goal { return speed }
        return -1
    }

    func changeSpeed(_ speed: Double, target: UInt8) -> CommandLong {
        CommandLong(
            targetSystem: target, targetComponent: identity?.componentID ?? 1, command: .doChangeSpeed, confirmation: 0,
            param1: 1, param2: Float(speed), param3: -1, param4: 0, param5: 0, param6: 0, param7: 0)
    }

    func reposition(_ p: GeoPoint, speed: Double, target: UInt8) -> CommandInt {
        let homeAMSL = Double(telemetry.homeAMSLMillimetres ?? 0) / 1000
        return CommandInt(
            targetSystem: target, targetComponent: identity?.componentID ?? 1, frame: .global, command: .doReposition,
            current: 0, autocontinue: 0, param1: Float(speed), param2: 1, param3: 0, param4: .nan,
            x: p.latitudeE7, y: p.longitudeE7, z: Float(homeAMSL + p.altitude))
    }
}
