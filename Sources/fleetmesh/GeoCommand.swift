import ArgumentParser
import Foundation
import Geodesy

/// `fleetmesh geo …`: coordinate conversions for field use (WGS84 latitude/longitude ↔ UTM).
struct GeoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geo",
        abstract: "Convert between WGS84 latitude/longitude and UTM (6th-order Krüger series, nanometre accuracy).",
        subcommands: [UTMSubcommand.self, LatLonSubcommand.self])

    /// `fleetmesh geo utm LAT LON [--zone N] [--json]`.
    struct UTMSubcommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "utm",
            abstract: "Latitude/longitude (decimal degrees) → UTM zone, easting, northing.",
            discussion: """
                Negative values are fine: fleetmesh geo utm -33.8568 151.2153
                The standard zone follows the Norway (32V) and Svalbard (31X–37X) exceptions; --zone forces a zone \
                (e.g. to keep a test area that crosses a zone edge in one grid).
                """)

        @Argument(parsing: .allUnrecognized, help: ArgumentHelp("LAT LON in decimal degrees.", valueName: "lat-lon"))
        var coordinates: [String] = []

        @Option(name: .long, help: "Force this zone number (1–60) instead of the standard zone.")
        var zone: Int?

        @Flag(name: .long, help: "Print JSON.")
        var json = false

        func run() throws {
            try checkPositional(coordinates, count: 2, expected: "LAT LON (two decimal numbers)")
            let lat = try parseNumber(coordinates[0], name: "latitude")
            let lon = try parseNumber(coordinates[1], name: "longitude")
            let point: GeodeticCoordinate
            let utm: UTMCoordinate
            do {
                point = try GeodeticCoordinate.validated(latitude: lat, longitude: lon)
                utm = try UTM.forward(point, zone: zone)
            } catch {
                throw GeoInputError(error.description)
            }
            if json {
                print(
                    try jsonLine(
                        GeoUTMOutput(
                            zone: utm.zone.description, easting: utm.easting, northing: utm.northing,
                            latitude: lat, longitude: lon)))
            } else {
                print("\(utm.zone) \(formatFixed(utm.easting, 3)) \(formatFixed(utm.northing, 3))")
            }
        }
    }

    /// `fleetmesh geo latlon ZONE EASTING NORTHING [--json]`.
    struct LatLonSubcommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "latlon",
            abstract: "UTM zone (like 33N or 33S), easting, northing (metres) → latitude/longitude.")

        @Argument(
            parsing: .allUnrecognized,
            help: ArgumentHelp(
                "ZONE EASTING NORTHING, e.g. 33N 500000 8658369.586.", valueName: "zone-easting-northing"))
        var values: [String] = []

        @Flag(name: .long, help: "Print JSON.")
        var json = false

        func run() throws {
            try checkPositional(values, count: 3, expected: "ZONE EASTING NORTHING (e.g. 33N 500000 8658369.586)")
            let g: GeodeticCoordinate
            do {
                let zone = try UTMZone(parsing: values[0])
                let easting = try parseNumber(values[1], name: "easting")
                let northing = try parseNumber(values[2], name: "northing")
                g = try UTM.inverse(UTMCoordinate(zone: zone, easting: easting, northing: northing))
            } catch let error as GeodesyError {
                throw GeoInputError(error.description)
            }
            if json {
                print(
                    try jsonLine(
                        GeoLatLonOutput(latitude: g.latitude, longitude: g.longitude, zone: values[0].uppercased())))
            } else {
                print("\(formatFixed(g.latitude, 9)) \(formatFixed(g.longitude, 9))")
            }
        }
    }
}

/// JSON printed by `geo utm --json`.
struct GeoUTMOutput: Codable {
    var zone: String
    var easting: Double
    var northing: Double
    var latitude: Double
    var longitude: Double
}

/// JSON printed by `geo latlon --json`.
struct GeoLatLonOutput: Codable {
    var latitude: Double
    var longitude: Double
    var zone: String
}

/// Checks there are `count` positional values, described by `expected` in the error. Values collected with
/// `.allUnrecognized` include misspelt options; they are named instead of miscounted.
private func checkPositional(_ values: [String], count: Int, expected: String) throws {
    if let option = values.first(where: { $0.hasPrefix("-") && Double($0) == nil }) {
        throw GeoInputError("unknown option '\(option)'")
    }
    guard values.count == count else {
        throw GeoInputError(
            "expected \(expected), got \(values.count) value(s): \(values.joined(separator: " "))")
    }
}

/// Parses a decimal number from the command line, with an error naming the argument.
private func parseNumber(_ text: String, name: String) throws -> Double {
    guard let v = Double(text), v.isFinite else { throw GeoInputError("\(name) '\(text)' is not a decimal number") }
    return v
}

/// One line of JSON with sorted keys.
private func jsonLine<T: Encodable>(_ value: T) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}

/// A bad command-line value; printed as `Error: <message>` without the usage banner.
struct GeoInputError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
