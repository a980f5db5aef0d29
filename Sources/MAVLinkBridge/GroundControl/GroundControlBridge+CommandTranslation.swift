import Coordinator
import Flight
import MAVLink
import MeshTypes

/// MAV_CMDs and mode numbers from ground-control software, read as FleetMesh commands (or refused with a reason).
extension GroundControlBridge {
    struct Refusal: Error, Hashable {
        var result: MAVResult
        var text: String
    }

    /// The FleetMesh command for a MAV_CMD, or why there is none.
    func commandFor(_ cmd: MAVCmd, params p: [Float], intCommand: CommandInt?, vehicle: Vehicle?) -> Result<
        Command, Refusal
    > {
        switch cmd {
        case .navTakeoff:
            // param7 (COMMAND_LONG) is metres above home; COMMAND_INT's z follows its frame.
            var alt = Double(intCommand?.z ?? p.last ?? .nan)
            if let c = intCommand, alt.isFinite {
                guard let a = relativeAltitude(alt, frame: c.frame) else {
                    return .failure(
                        Refusal(result: .denied, text: "altitude frame \(c.frame.rawValue) is not supported"))
                }
                alt = a
            }
            if !alt.isFinite || alt <= 0 { alt = configuration.defaultTakeoffAltitude }
            guard alt <= 2000 else {
                return .failure(Refusal(result: .denied, text: "takeoff altitude \(alt) m is above 2000 m"))
            }
            return .success(.takeoff(altitudeMillimetres: Int32((alt * 1000).rounded())))
        case .navLand:
            return .success(.land)
        case .navReturnToLaunch:
            return .success(.returnToLaunch)
        case .navLoiterUnlim:
            return .success(.hover)
        case .doPauseContinue:
            return p[0] < 0.5
                ? .success(.hover)
                : .failure(Refusal(result: .unsupported, text: "continue is not supported; send the next command"))
        case .doReposition, .navWaypoint:
            return reposition(cmd, params: p, intCommand: intCommand, vehicle: vehicle)
        case .doSetMode:
            return modeCommand(baseMode: p[0], customMode: p[1])
        default:
            return .failure(Refusal(result: .unsupported, text: "\(Self.name(cmd)) is not supported"))
        }
    }

    /// DO_REPOSITION: COMMAND_LONG carries latitude, longitude (degrees) and altitude above home in param5–7;
    /// COMMAND_INT carries x, y (degrees × 10⁷) and z in its frame. NaN (or INT32_MAX) keeps the current value.
    /// param1 is the ground speed (m/s; ≤ 0 for the vehicle's default).
    func reposition(_ cmd: MAVCmd, params p: [Float], intCommand: CommandInt?, vehicle: Vehicle?) -> Result<
        Command, Refusal
    > {
        guard let v = vehicle else { return .failure(Refusal(result: .denied, text: "not in the mesh")) }
        let here = v.state.position
        var lat = here.latitude, lon = here.longitude, alt = here.altitude
        if let c = intCommand {
            if c.x != Int32.max && c.x != 0 { lat = Double(c.x) / 1e7 }
            if c.y != Int32.max && c.y != 0 { lon = Double(c.y) / 1e7 }
            if c.z.isFinite {
                guard let a = relativeAltitude(Double(c.z), frame: c.frame) else {
                    return .failure(
                        Refusal(result: .denied, text: "altitude frame \(c.frame.rawValue) is not supported"))
                }
                alt = a
            }
        } else {
            if p[4].isFinite { lat = Double(p[4]) }
            if p[5].isFinite { lon = Double(p[5]) }
            if p[6].isFinite { alt = Double(p[6]) }
        }
        guard (-90.0...90.0).contains(lat), (-180.0...180.0).contains(lon), (-10_000.0...10_000.0).contains(alt) else {
            return .failure(Refusal(result: .denied, text: "position \(lat), \(lon), \(alt) m is out of range"))
        }
        let speed = cmd == .doReposition && p[0].isFinite && p[0] > 0 ? min(655, Double(p[0])) : 0
        return .success(
            .goto(GeoPoint(latitude: lat, longitude: lon, altitude: alt), speedCmS: UInt16((speed * 100).rounded())))
    }

    /// Altitude above home from an altitude in a MAVLink frame; nil for frames FleetMesh cannot convert.
    func relativeAltitude(_ z: Double, frame: MAVFrame) -> Double? {
        switch frame {
        case .globalRelativeAlt, .globalRelativeAltInt: return z
        case .global, .globalInt: return z - originAltitude
        default: return nil
        }
    }

    /// DO_SET_MODE / SET_MODE: the custom modes are the activity codes the HEARTBEAT carries; the ones that are
    /// also commands can be set.
    func modeCommand(baseMode: Float, customMode: Float) -> Result<Command, Refusal> {
        guard let base = Self.wholeNumber(baseMode), base & Int(MAVModeFlag.customModeEnabled.rawValue) != 0 else {
            return .failure(
                Refusal(
                    result: .denied,
                    text: "only custom modes can be set (base mode with MAV_MODE_FLAG_CUSTOM_MODE_ENABLED)"))
        }
        switch Activity(wireValue: UInt8(clamping: Self.wholeNumber(customMode) ?? -1)) {
        case .hovering: return .success(.hover)
        case .following: return .success(.followTarget(true))
        case .landing: return .success(.land)
        case .returning: return .success(.returnToLaunch)
        default:
            return .failure(
                Refusal(
                    result: .denied,
                    text: "mode \(customMode) cannot be set (settable: 2 hover, 4 follow, 6 land, 7 return)"))
        }
    }
}
