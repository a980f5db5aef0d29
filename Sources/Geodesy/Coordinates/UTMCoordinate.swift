/// North or south of the equator; selects the UTM false northing (0 or 10 000 km).
public enum Hemisphere: String, Sendable, Hashable, Codable {
    case north = "N"
    case south = "S"
}

/// A UTM zone: number 1…60 and hemisphere, written like `33N` or `33S`.
public struct UTMZone: Sendable, Hashable, Codable, CustomStringConvertible, LosslessStringConvertible {
    /// Zone number, 1…60.
    public let number: Int
    /// Hemisphere of the northing.
    public let hemisphere: Hemisphere

    /// Creates a zone, throwing unless `number` is 1…60.
    public init(number: Int, hemisphere: Hemisphere) throws(GeodesyError) {
        guard (1...60).contains(number) else { throw .zoneOutOfRange(number) }
        self.number = number
        self.hemisphere = hemisphere
    }

    /// Parses `33N`, `33n`, `33S`, `7s` (zone number then hemisphere letter N or S).
    /// Latitude band letters (C…X) are rejected because they are ambiguous with S (band S is north of the equator).
    public init(parsing text: String) throws(GeodesyError) {
        let trimmed = text.trimmingWhitespace()
        guard let last = trimmed.last, trimmed.count >= 2 else {
            throw .badZoneText(text, reason: "expected a zone number 1…60 followed by N or S, like 33N")
        }
        let hemisphere: Hemisphere
        switch last {
        case "N", "n": hemisphere = .north
        case "S", "s": hemisphere = .south
        default: throw .badZoneText(text, reason: "hemisphere letter must be N or S, found '\(last)'")
        }
        let digits = trimmed.dropLast()
        guard digits.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(digits) else {
            throw .badZoneText(text, reason: "zone number must be digits, found '\(digits)'")
        }
        guard (1...60).contains(number) else {
            throw .badZoneText(text, reason: "zone number must be 1…60, found \(number)")
        }
        try self.init(number: number, hemisphere: hemisphere)
    }

    /// Lossless conversion from text like `33N`; nil when malformed.
    public init?(_ description: String) {
        guard let z = try? UTMZone(parsing: description) else { return nil }
        self = z
    }

    /// Longitude of the zone's central meridian in degrees.
    public var centralMeridian: Double { Double(6 * number - 183) }

    /// Text form like `33N`.
    public var description: String { "\(number)\(hemisphere.rawValue)" }

    /// Decodes the text form, e.g. `"33N"`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do { try self.init(parsing: text) } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "UTM zone: \(error)")
        }
    }

    /// Encodes the text form, e.g. `"33N"`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// A UTM grid position: zone, easting and northing in metres (false easting 500 km; false northing 10 000 km in the south).
public struct UTMCoordinate: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The zone whose projection the easting and northing are in.
    public var zone: UTMZone
    /// Easting in metres, including the 500 000 m false easting.
    public var easting: Double
    /// Northing in metres, including the 10 000 000 m false northing in the southern hemisphere.
    public var northing: Double

    /// Creates a grid position.
    public init(zone: UTMZone, easting: Double, northing: Double) {
        self.zone = zone
        self.easting = easting
        self.northing = northing
    }

    /// `33N 500000.000 8658369.586` (millimetres).
    public var description: String { "\(zone) \(formatFixed(easting, 3)) \(formatFixed(northing, 3))" }
}

extension StringProtocol {
    /// The string without leading and trailing spaces, tabs and newlines.
    func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s = s.dropFirst() }
        while let l = s.last, l.isWhitespace { s = s.dropLast() }
        return String(s)
    }
}
