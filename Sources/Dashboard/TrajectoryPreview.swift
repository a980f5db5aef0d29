import ControlProtocol
import Flight
import Foundation
import Geodesy

/// The answer of `POST /api/v1/uavs/{uav}/trajectory-preview`: the path a drone would fly for a `trajectory` command
/// sent now, planned as the drone plans it (`TrajectoryPlanner.commandedFlight`: from its position and heading, at its
/// navigator's cruise speed, turning in place before each leg), thinned out for display.
struct TrajectoryPreview: Codable, Hashable, Sendable {
    /// `[latitude, longitude, altitude]` (degrees, degrees, metres above home): one per ``displayInterval`` of flight
    /// time, from the drone's position, and the last waypoint.
    var points: [[Double]]
    /// Flight time, seconds (turns included).
    var durationS: Double
    /// Path length, metres.
    var lengthM: Double
    /// Straight legs flown (from the drone's position to the first waypoint, then between waypoints; a waypoint at the
    /// previous one's place adds none).
    var legs: Int

    /// Seconds of flight between displayed points.
    static let displayInterval = 0.5
    /// The longest path previewed, metres (the planner samples every 8 cm: a longer one would cost the station memory
    /// for nothing an operator draws on this map).
    static let maximumLength = 20_000.0
    /// Altitudes the node's parser accepts, metres above home.
    static let altitudeRange = -10_000.0...10_000.0
}

/// A request the preview refuses: the message names the field, the status says what kind of refusal it is.
struct PreviewRefusal: Error, Equatable, CustomStringConvertible {
    var description: String
    var status: Int
    init(_ description: String, status: Int = 400) {
        self.description = description
        self.status = status
    }
}

extension TrajectoryPreview {
    /// The waypoints of a preview request's `waypoints` (`[[lat, lon, alt], …]`, as the generated server decoded them),
    /// each value checked as the node's command parser checks it (latitude ±90°, longitude ±180°, altitude ±10 km, at
    /// most `ControlRequest.Send.maxTrajectoryWaypoints`); a refusal names the field (`waypoints[2][0]`).
    static func waypoints(_ list: [[Double]]) throws(PreviewRefusal) -> [GeodeticCoordinate] {
        guard !list.isEmpty else { throw PreviewRefusal("waypoints: expected at least one waypoint, found none") }
        let most = ControlRequest.Send.maxTrajectoryWaypoints
        guard list.count <= most else {
            throw PreviewRefusal("waypoints: at most \(most) waypoints, found \(list.count)")
        }
        var result: [GeodeticCoordinate] = []
        for (i, numbers) in list.enumerated() {
            guard numbers.count == 3 else {
                throw PreviewRefusal(
                    "waypoints[\(i)]: expected [latitude, longitude, altitude], found an array of \(numbers.count)")
            }
            let checks: [(String, ClosedRange<Double>, String)] = [
                ("latitude", -90...90, "degrees"), ("longitude", -180...180, "degrees"),
                ("altitude", altitudeRange, "metres above home"),
            ]
            for (j, (name, range, unit)) in checks.enumerated() where !range.contains(numbers[j]) {
                throw PreviewRefusal(
                    "waypoints[\(i)][\(j)]: \(name) must be within \(Self.format(range.lowerBound))…"
                        + "\(Self.format(range.upperBound)) \(unit), found \(Self.format(numbers[j]))")
            }
            result.append(GeodeticCoordinate(latitude: numbers[0], longitude: numbers[1], altitude: numbers[2]))
        }
        return result
    }

    /// Plans `waypoints` as the drone `uav` (its report in the station's picture) would fly them if sent now. It must
    /// be a drone in the air (a landed drone refuses trajectories: 409).
    static func plan(_ waypoints: [GeodeticCoordinate], for uav: Int, in vehicles: [VehicleReport])
        throws(PreviewRefusal) -> TrajectoryPreview
    {
        guard let vehicle = vehicles.first(where: { $0.uavNumber == uav && $0.role == "drone" }) else {
            throw PreviewRefusal("uav: no drone holds UAV number \(uav)", status: 404)
        }
        guard vehicle.activity != "landed" else {
            throw PreviewRefusal(
                "uav: UAV \(uav) is landed; a drone flies a trajectory only in the air (take off first)", status: 409)
        }
        // The drone plans on the map of its home (UTM, in the zone of its home); a map placed at its position in the
        // zone of its position is the same grid moved, so the path and its timing are the same.
        let origin: MapOrigin
        do { origin = try MapOrigin(latitude: vehicle.latitude, longitude: vehicle.longitude) } catch {
            throw PreviewRefusal("uav: UAV \(uav)'s position cannot be placed on a map (\(error))", status: 409)
        }
        let start = Vector3(0, 0, vehicle.altitude)
        var corners = [start]
        var straight = 0.0
        for (i, w) in waypoints.enumerated() {
            let local: Vector3
            do { local = Vector3(try origin.local(w)) } catch {
                throw PreviewRefusal("waypoints[\(i)]: not on the drone's map (\(error))")
            }
            straight += local.distance(to: corners[corners.count - 1])
            guard straight <= maximumLength else {
                throw PreviewRefusal(
                    "waypoints[\(i)]: the path is longer than \(Int(maximumLength / 1000)) km by here; a preview covers at most that"
                )
            }
            corners.append(local)
        }
        let trajectory: Trajectory
        do {
            trajectory = try TrajectoryPlanner.commandedFlight(
                from: start, heading: vehicle.heading, through: waypoints, on: origin)
        } catch {
            throw PreviewRefusal("waypoints: \(error)")
        }
        let legs = corners.indices.dropFirst().filter { corners[$0].distance(to: corners[$0 - 1]) > 1e-9 }.count
        return TrajectoryPreview(
            points: decimated(trajectory, every: displayInterval).map { p in
                let g = origin.geodetic(p.position.localPosition)
                return [rounded(g.latitude, 7), rounded(g.longitude, 7), rounded(g.altitude, 2)]
            },
            durationS: rounded(trajectory.duration, 2), lengthM: rounded(trajectory.length, 2), legs: legs)
    }

    /// The trajectory's own samples, the first at or after each multiple of `interval` seconds, and its end.
    static func decimated(_ trajectory: Trajectory, every interval: Double) -> [TrajectoryPoint] {
        var kept: [TrajectoryPoint] = []
        var next = 0.0
        for p in trajectory.points where p.time >= next - 1e-9 {
            kept.append(p)
            next = ((p.time + 1e-9) / interval).rounded(.down) * interval + interval
        }
        if kept.last?.time != trajectory.end.time { kept.append(trajectory.end) }
        return kept
    }

    static func rounded(_ v: Double, _ digits: Int) -> Double {
        let scale = pow(10, Double(digits))
        return (v * scale).rounded() / scale
    }

    static func format(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
    }
}

/// Any JSON value: what a request held where it was wrong (error messages say what was found), and an overlay's GeoJSON
/// as the generated server encodes it (openapi.yaml's `GeoJSON`). A `true` is not a number here.
enum JSONValue: Codable, Hashable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let v = try? c.decode(Bool.self) {
            self = .bool(v)
        } else if let v = try? c.decode(Double.self) {
            self = .number(v)
        } else if let v = try? c.decode(String.self) {
            self = .string(v)
        } else if let v = try? c.decode([JSONValue].self) {
            self = .array(v)
        } else {
            self = .object(try c.decode([String: JSONValue].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let v): try c.encode(v)
        case .number(let v): try c.encode(v)
        case .string(let v): try c.encode(v)
        case .array(let v): try c.encode(v)
        case .object(let v): try c.encode(v)
        }
    }

    /// What kind of value this is, for error messages.
    var kind: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// The value itself for short ones (`the string "land"`, `5`, `true`, `null`), else its kind, for error messages.
    var found: String {
        switch self {
        case .null: return "null"
        case .bool(let v): return String(v)
        case .number(let v): return TrajectoryPreview.format(v)
        case .string(let s): return "the string \"\(s.count > 40 ? String(s.prefix(40)) + "…" : s)\""
        case .array, .object: return kind
        }
    }

    /// The value at `path` inside this one (object keys and array indices), if there is one.
    func value(at path: [any CodingKey]) -> JSONValue? {
        var value = self
        for key in path {
            switch value {
            case .object(let fields):
                guard let next = fields[key.stringValue] else { return nil }
                value = next
            case .array(let items):
                guard let i = key.intValue, items.indices.contains(i) else { return nil }
                value = items[i]
            default:
                return nil
            }
        }
        return value
    }
}
