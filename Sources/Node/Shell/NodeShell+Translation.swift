import Avoidance
import ControlProtocol
import Coordinator
import Foundation
import Geodesy
import Logging
import MeshTypes

/// Translations between the coordinator's wire types and the flight, avoidance and report types: no state, no I/O.
extension NodeShell {
    /// The Geodesy origin of an announcement (its forced zone, else the standard one).
    static func mapOrigin(_ a: MapOriginAnnouncement) -> Result<MapOrigin, GeodesyError> {
        do {
            let origin = try MapOrigin(
                latitude: a.position.latitude, longitude: a.position.longitude,
                altitude: a.position.altitude, forcedZone: a.forcedZone.map(Int.init))
            if a.forcedZone != nil, (origin.zone.hemisphere == .south) != a.southernHemisphere {
                return .failure(
                    .badZoneText(
                        "\(origin.zone.number)\(a.southernHemisphere ? "S" : "N")",
                        reason: "wrong hemisphere for latitude \(a.position.latitude)"))
            }
            return .success(origin)
        } catch {
            return .failure(error)
        }
    }

    /// `50.07550 14.43780 alt 0 (zone 33N)`; the zone is the forced one when `zone` is nil.
    static func describe(_ a: MapOriginAnnouncement, zone: UTMZone?) -> String {
        let alt = a.position.altitude
        let altText = alt == alt.rounded() ? String(Int(alt)) : String(format: "%.3f", alt)
        let zoneText =
            zone.map { " (zone \($0))" }
            ?? a.forcedZone.map { " (zone \($0)\(a.southernHemisphere ? "S" : "N"))" } ?? ""
        return String(format: "%.5f %.5f", a.position.latitude, a.position.longitude) + " alt \(altText)" + zoneText
    }

    static func describe(_ reason: NumberChangeReason) -> String {
        switch reason {
        case .claimed: return "claimed"
        case .lostClash(let to): return "lost a clash to \(to)"
        case .exhausted: return "no free number"
        }
    }

    static func describe(_ answer: CommandAnswer) -> String {
        switch answer {
        case .accepted: return "accepted"
        case .rejected(let r): return "rejected: \(r)"
        case .completed: return "completed"
        case .failed(let r): return "failed: \(r)"
        }
    }

    /// `12:34:56.789`: a wall-clock time in milliseconds since the epoch, in UTC.
    static func clockTime(_ ms: Int64) -> String {
        let seconds = ms / 1000
        let day = seconds % 86_400
        return String(format: "%02d:%02d:%02d.%03d UTC", day / 3600, day / 60 % 60, day % 60, ms % 1000)
    }

    /// Whether no further answer follows this one.
    static func isFinal(_ answer: CommandAnswer) -> Bool {
        if case .accepted = answer { return false }
        return true
    }

    static func report(_ answer: CommandAnswer, afterMs: Int) -> CommandReport.Answer {
        switch answer {
        case .accepted: return .init(answer: "accepted", reason: nil, afterMs: afterMs)
        case .rejected(let r): return .init(answer: "rejected", reason: r.description, afterMs: afterMs)
        case .completed: return .init(answer: "completed", reason: nil, afterMs: afterMs)
        case .failed(let r): return .init(answer: "failed", reason: r, afterMs: afterMs)
        }
    }
}
