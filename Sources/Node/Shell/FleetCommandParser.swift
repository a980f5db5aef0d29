import ControlProtocol
import Coordinator
import Foundation

/// A command line for a drone (`takeoff 10`, `goto 50.07 14.43 20 5`) that could not be read.
public struct FleetCommandError: Error, CustomStringConvertible, Equatable, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Reads the operator's words for a drone command into a coordinator `Command` (pure; used by the control socket).
public enum FleetCommandParser {
    /// The commands understood, with their arguments.
    public static let usage =
        "takeoff ALT, land, hover, goto LAT LON ALT [SPEED], rtl, follow on|off, trajectory LAT,LON,ALT[,HEADING[,HOLD]] …"

    /// The most waypoints one trajectory upload may carry.
    public static let maxTrajectoryWaypoints = ControlRequest.Send.maxTrajectoryWaypoints

    /// Parses `words` (the command name, then its arguments). Errors name the argument and what was wrong.
    public static func parse(_ words: [String]) throws(FleetCommandError) -> Command {
        guard let name = words.first?.lowercased() else {
            throw FleetCommandError("missing command (known: \(usage))")
        }
        let args = Array(words.dropFirst())
        func arity(_ range: ClosedRange<Int>, _ shape: String) throws(FleetCommandError) {
            guard range.contains(args.count) else {
                throw FleetCommandError(
                    "\(name) takes \(shape), found \(args.count) argument\(args.count == 1 ? "" : "s")")
            }
        }
        switch name {
        case "takeoff":
            try arity(1...1, "one argument: ALT (metres above home, e.g. takeoff 10)")
            let alt = try number(args[0], "ALT")
            guard alt > 0, alt <= 2000 else {
                throw FleetCommandError("takeoff ALT must be more than 0 and at most 2000 metres, found \(args[0])")
            }
            return .takeoff(altitudeMillimetres: Int32((alt * 1000).rounded()))
        case "land":
            try arity(0...0, "no arguments")
            return .land
        case "hover", "hold":
            try arity(0...0, "no arguments")
            return .hover
        case "rtl", "return":
            try arity(0...0, "no arguments")
            return .returnToLaunch
        case "goto":
            try arity(3...4, "LAT LON ALT [SPEED] (degrees, degrees, metres above home, m/s)")
            let point = try position(args[0], args[1], args[2])
            var speed: UInt16 = 0
            if args.count == 4 {
                let s = try number(args[3], "SPEED")
                guard s > 0, s <= 655 else {
                    throw FleetCommandError("goto SPEED must be more than 0 and at most 655 m/s, found \(args[3])")
                }
                speed = UInt16((s * 100).rounded())
            }
            return .goto(point, speedCmS: speed)
        case "follow":
            try arity(1...1, "one argument: on or off")
            switch args[0].lowercased() {
            case "on", "true", "1": return .followTarget(true)
            case "off", "false", "0": return .followTarget(false)
            default: throw FleetCommandError("follow takes on or off, found '\(args[0])'")
            }
        case "trajectory":
            guard !args.isEmpty else {
                throw FleetCommandError(
                    "trajectory takes one or more waypoints LAT,LON,ALT (degrees, degrees, metres above home), found none"
                )
            }
            guard args.count <= maxTrajectoryWaypoints else {
                throw FleetCommandError(
                    "trajectory takes at most \(maxTrajectoryWaypoints) waypoints, found \(args.count)")
            }
            var points: [GeoPoint] = []
            var stops: [TrajectoryStop] = []
            for (i, arg) in args.enumerated() {
                let parts = arg.split(separator: ",", omittingEmptySubsequences: false).map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
                guard (3...5).contains(parts.count) else {
                    throw FleetCommandError(
                        "trajectory waypoint \(i + 1) must be LAT,LON,ALT[,HEADING[,HOLD]], found '\(arg)'")
                }
                do {
                    points.append(try position(parts[0], parts[1], parts[2]))
                    if parts.count > 3 {
                        stops.append(try stop(at: i, heading: parts[3], hold: parts.count > 4 ? parts[4] : "0"))
                    }
                } catch {
                    throw FleetCommandError("trajectory waypoint \(i + 1): \(error.description)")
                }
            }
            return .trajectory(points, stops: stops)
        default:
            throw FleetCommandError("unknown command '\(words[0])' (known: \(usage))")
        }
    }

    /// A position from latitude and longitude in degrees and altitude in metres, checked against the wire's ranges.
    public static func position(_ lat: String, _ lon: String, _ alt: String) throws(FleetCommandError) -> GeoPoint {
        try position(number(lat, "LAT"), number(lon, "LON"), number(alt, "ALT"))
    }

    /// A position from numbers, checked: latitude ±90°, longitude ±180°, altitude ±10 km.
    public static func position(_ lat: Double, _ lon: Double, _ alt: Double) throws(FleetCommandError) -> GeoPoint {
        guard lat.isFinite, (-90.0...90.0).contains(lat) else {
            throw FleetCommandError("LAT must be within -90…90 degrees, found \(lat)")
        }
        guard lon.isFinite, (-180.0...180.0).contains(lon) else {
            throw FleetCommandError("LON must be within -180…180 degrees, found \(lon)")
        }
        guard alt.isFinite, (-10_000.0...10_000.0).contains(alt) else {
            throw FleetCommandError("ALT must be within -10000…10000 metres, found \(alt)")
        }
        return GeoPoint(latitude: lat, longitude: lon, altitude: alt)
    }

    /// A waypoint's stop: HEADING in degrees (or `-` to keep the heading), HOLD in seconds (0–6553.5).
    static func stop(at index: Int, heading: String, hold: String) throws(FleetCommandError) -> TrajectoryStop {
        var centidegrees: UInt16?
        if heading != "-" {
            let h = try number(heading, "HEADING")
            guard (0..<360).contains(h) else { throw FleetCommandError("HEADING must be 0…360 degrees, found \(h)") }
            centidegrees = UInt16((h * 100).rounded()) % 36000
        }
        let seconds = try number(hold, "HOLD")
        guard (0...6553.5).contains(seconds) else {
            throw FleetCommandError("HOLD must be 0…6553.5 seconds, found \(seconds)")
        }
        return TrajectoryStop(
            index: UInt16(index), headingCentidegrees: centidegrees, holdDeciseconds: UInt16((seconds * 10).rounded()))
    }

    static func number(_ text: String, _ what: String) throws(FleetCommandError) -> Double {
        guard let v = Double(text), v.isFinite else {
            throw FleetCommandError("\(what) must be a number, found '\(text)'")
        }
        return v
    }
}
