import Coordinator
import Foundation
import Testing

@testable import FlightLog

#if canImport(FoundationXML)
    import FoundationXML
#endif

@Suite struct ExportTests {
    let samples =
        flight(node: "a", uav: 3, start: missionStartMs, seconds: 5)
        + flight(node: "b", uav: 4, start: missionStartMs + 50, seconds: 5, north: 8)

    var tracks: [ExportTrack] { ExportTrack.tracks(samples.sorted { $0.timeMs < $1.timeMs }) }

    @Test func csvHasAHeaderAndARowPerSample() {
        let lines = TrackExport.csv(samples).split(separator: "\n")
        #expect(lines.count == samples.count + 1)
        #expect(lines[0] == TrackExport.csvColumns.joined(separator: ","))
        let first = lines[1].split(separator: ",", omittingEmptySubsequences: false)
        #expect(first.count == TrackExport.csvColumns.count)
        #expect(first[0] == "2026-11-26T20:00:00.000Z")
        #expect(first[2] == "3" && first[5] == "50.0755000" && first[6] == "14.4378000")
    }

    /// RFC 7946: longitude first, one LineString per vehicle, a time per position.
    @Test func geoJSONIsAFeatureCollectionOfTracks() throws {
        let text = TrackExport.geoJSON(tracks)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(json["type"] as? String == "FeatureCollection")
        let features = try #require(json["features"] as? [[String: Any]])
        #expect(features.count == 2)
        let geometry = try #require(features[0]["geometry"] as? [String: Any])
        #expect(geometry["type"] as? String == "LineString")
        let coordinates = try #require(geometry["coordinates"] as? [[Double]])
        #expect(coordinates.count == samples.count / 2)
        #expect(abs(coordinates[0][0] - 14.4378) < 1e-9 && abs(coordinates[0][1] - 50.0755) < 1e-9)
        let properties = try #require(features[0]["properties"] as? [String: Any])
        #expect(properties["uav"] as? Int == 3)
        #expect((properties["coordTimes"] as? [String])?.count == coordinates.count)
    }

    @Test func gpxAndKMLAreWellFormedXML() throws {
        let gpx = TrackExport.gpx(tracks, homeAltitude: 230.5)
        let gpxCount = try XMLCount(gpx)
        #expect(gpxCount.elements["trk"] == 2)
        #expect(gpxCount.elements["trkpt"] == samples.count)
        // Elevation above sea level: the flight's 10 m above a home at 230.5 m.
        #expect(gpx.contains("<ele>240.50</ele>"))
        let kml = TrackExport.kml(tracks, title: "FleetMesh <test> & co")
        let kmlCount = try XMLCount(kml)
        #expect(kmlCount.elements["Placemark"] == 2)
        #expect(kmlCount.elements["LineString"] == 2)
    }

    /// Every record: an 8-byte big-endian microsecond time, then one whole MAVLink 2 frame from system 3 (decoded
    /// here by hand from the wire layout, apart from the codec that wrote it).
    @Test func tlogIsTimestampedMAVLink2Frames() throws {
        let track = try #require(tracks.first { $0.uavNumber == 3 })
        let bytes = TelemetryLogExport.tlog(track, homeAltitude: 230.5)
        var i = 0
        var last: UInt64 = 0
        var positions: [(time: UInt64, lat: Int32)] = []
        var messages = Set<UInt32>()
        while i < bytes.count {
            let stamp = bytes[i..<i + 8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            #expect(stamp >= last)
            last = stamp
            i += 8
            #expect(bytes[i] == 0xFD)
            let length = Int(bytes[i + 1])
            #expect(bytes[i + 5] == 3)
            let id = UInt32(bytes[i + 7]) | UInt32(bytes[i + 8]) << 8 | UInt32(bytes[i + 9]) << 16
            messages.insert(id)
            if id == 33 {
                let p = Array(bytes[i + 10..<i + 10 + length]) + [UInt8](repeating: 0, count: 28)
                let lat = Int32(bitPattern: UInt32(p[4]) | UInt32(p[5]) << 8 | UInt32(p[6]) << 16 | UInt32(p[7]) << 24)
                positions.append((stamp, lat))
            }
            i += 10 + length + 2
        }
        #expect(i == bytes.count)
        // HEARTBEAT, SYS_STATUS, GLOBAL_POSITION_INT, ATTITUDE, VFR_HUD.
        #expect(messages.isSuperset(of: [0, 1, 33, 30, 74]))
        #expect(positions.count == track.samples.count)
        #expect(positions.first?.time == UInt64(missionStartMs) * 1000)
        #expect(positions.first?.lat == track.samples[0].state.position.latitudeE7)
    }
}

/// Parses XML and counts elements by name (throws when it is not well-formed).
struct XMLCount {
    var elements: [String: Int] = [:]

    init(_ text: String) throws {
        let parser = XMLParser(data: Data(text.utf8))
        let delegate = Delegate()
        parser.delegate = delegate
        guard parser.parse() else {
            throw XMLProblem(description: "\(parser.parserError.map { "\($0)" } ?? "parse failed")")
        }
        elements = delegate.counts
    }

    struct XMLProblem: Error, CustomStringConvertible { let description: String }

    final class Delegate: NSObject, XMLParserDelegate {
        var counts: [String: Int] = [:]
        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            counts[elementName, default: 0] += 1
        }
    }
}

@Suite struct ExportTextTests {
    @Test func fixedPointMatchesPrintf() {
        for x in [0.0, 1, -1, 0.5, -0.05, 50.0755, 14.4378, -33.8568123, 151.2153, 239.995, 1e-8, -1e-8, 123_456.789] {
            for digits in [0, 2, 3, 7] {
                let mine = ExportText.fixed(x, digits)
                var expected = String(format: "%.\(digits)f", x)
                if expected.hasPrefix("-"), Double(expected) == 0 { expected.removeFirst() }
                // printf rounds binary halves to even; both agree away from exact halves.
                #expect(
                    mine == expected
                        || abs((Double(mine) ?? .nan) - (Double(expected) ?? .nan)) <= pow(10, -Double(digits)),
                    "\(x) \(digits): \(mine) vs \(expected)")
            }
        }
        #expect(ExportText.fixed(-0.05, 2) == "-0.05" && ExportText.fixed(50.0755, 7) == "50.0755000")
        #expect(ExportText.iso(1_795_723_200_123) == "2026-11-26T20:00:00.123Z")
        #expect(ExportText.iso(0) == "1970-01-01T00:00:00.000Z")
    }
}
