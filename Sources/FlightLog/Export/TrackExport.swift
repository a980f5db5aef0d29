import Coordinator
import Foundation

/// The text formats: CSV, GeoJSON, KML and GPX from recorded telemetry.
public enum TrackExport {
    /// The CSV's columns, in order.
    public static let csvColumns = [
        "time_utc", "time_ms", "uav", "node", "name", "latitude", "longitude", "altitude_m", "speed_m_s",
        "heading_deg", "velocity_north_m_s", "velocity_east_m_s", "velocity_up_m_s", "battery_percent", "activity",
        "armed", "link_quality",
    ]

    /// One header line, then one line per sample (every vehicle, time order); altitude in metres above home.
    public static func csv(_ samples: [TelemetryRecord]) -> String {
        var out = csvColumns.joined(separator: ",") + "\n"
        for r in samples {
            let s = r.state
            let vn = Double(s.velocityNorthCmS) / 100
            let ve = Double(s.velocityEastCmS) / 100
            let fields = [
                ExportText.iso(r.timeMs), String(r.timeMs), r.uavNumber.map(String.init) ?? "", r.node,
                csvField(r.name),
                ExportText.fixed(s.position.latitude, 7), ExportText.fixed(s.position.longitude, 7),
                ExportText.fixed(Double(s.position.altitudeMillimetres) / 1000, 3),
                ExportText.fixed((vn * vn + ve * ve).squareRoot(), 2),
                ExportText.fixed(Double(s.headingCentidegrees) / 100, 2), ExportText.fixed(vn, 2),
                ExportText.fixed(ve, 2), ExportText.fixed(-Double(s.velocityDownCmS) / 100, 2),
                String(s.batteryPercent), s.activity.rawValue, s.armed ? "1" : "0", String(s.linkQuality),
            ]
            out += fields.joined(separator: ",") + "\n"
        }
        return out
    }

    static func csvField(_ s: String) -> String {
        guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" }) else { return s }
        return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A FeatureCollection: per vehicle a LineString (a Point for a single sample) of [longitude, latitude,
    /// metres above home], with `uav`, `node`, `name`, `start`, `end` and `coordTimes` (one ISO time per position).
    public static func geoJSON(_ tracks: [ExportTrack]) -> String {
        let features = tracks.map { track -> String in
            let positions = track.samples.map { r in
                "[\(ExportText.fixed(r.state.position.longitude, 7)),\(ExportText.fixed(r.state.position.latitude, 7)),\(ExportText.fixed(Double(r.state.position.altitudeMillimetres) / 1000, 2))]"
            }
            let geometry =
                positions.count == 1
                ? "{\"type\":\"Point\",\"coordinates\":\(positions[0])}"
                : "{\"type\":\"LineString\",\"coordinates\":[\(positions.joined(separator: ","))]}"
            let times = track.samples.map { "\"\(ExportText.iso($0.timeMs))\"" }.joined(separator: ",")
            let uav = track.uavNumber.map(String.init) ?? "null"
            let properties =
                "{\"uav\":\(uav),\"node\":\"\(track.node)\",\"name\":\(ExportText.json(track.name)),"
                + "\"start\":\"\(ExportText.iso(track.samples.first!.timeMs))\","
                + "\"end\":\"\(ExportText.iso(track.samples.last!.timeMs))\",\"coordTimes\":[\(times)]}"
            return "{\"type\":\"Feature\",\"geometry\":\(geometry),\"properties\":\(properties)}"
        }
        return "{\"type\":\"FeatureCollection\",\"features\":[\n" + features.joined(separator: ",\n") + "\n]}\n"
    }

    /// A KML document: per vehicle a placemark with its time span and its path (altitude relative to the ground).
    public static func kml(_ tracks: [ExportTrack], title: String) -> String {
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <kml xmlns="http://www.opengis.net/kml/2.2">
            <Document>
            <name>\(ExportText.xml(title))</name>

            """
        for track in tracks {
            let coordinates = track.samples.map {
                "\(ExportText.fixed($0.state.position.longitude, 7)),\(ExportText.fixed($0.state.position.latitude, 7)),\(ExportText.fixed(Double($0.state.position.altitudeMillimetres) / 1000, 2))"
            }
            out += """
                <Placemark>
                <name>\(ExportText.xml(track.title))</name>
                <TimeSpan><begin>\(ExportText.iso(track.samples.first!.timeMs))</begin><end>\(ExportText.iso(track.samples.last!.timeMs))</end></TimeSpan>
                <LineString>
                <altitudeMode>relativeToGround</altitudeMode>
                <coordinates>\(coordinates.joined(separator: " "))</coordinates>
                </LineString>
                </Placemark>

                """
        }
        return out + "</Document>\n</kml>\n"
    }

    /// A GPX 1.1 file: per vehicle a track of points with time and elevation. GPX elevation is above sea level:
    /// `homeAltitude` (the mission's map origin altitude) is added to the recorded height above home; without one,
    /// the elevation is the height above home.
    public static func gpx(_ tracks: [ExportTrack], homeAltitude: Double?) -> String {
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="FleetMesh" xmlns="http://www.topografix.com/GPX/1/1">

            """
        for track in tracks {
            out += "<trk><name>\(ExportText.xml(track.title))</name><trkseg>\n"
            for r in track.samples {
                let elevation = Double(r.state.position.altitudeMillimetres) / 1000 + (homeAltitude ?? 0)
                out +=
                    "<trkpt lat=\"\(ExportText.fixed(r.state.position.latitude, 7))\" lon=\"\(ExportText.fixed(r.state.position.longitude, 7))\"><ele>\(ExportText.fixed(elevation, 2))</ele><time>\(ExportText.iso(r.timeMs))</time></trkpt>\n"
            }
            out += "</trkseg></trk>\n"
        }
        return out + "</gpx>\n"
    }
}
