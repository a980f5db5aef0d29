import Geodesy

extension Trajectory {
    /// Columns of a local CSV trajectory.
    public static let localCSVHeader = "time,east,north,up,heading,v_east,v_north,v_up"
    /// Columns of a geodetic CSV trajectory.
    public static let geodeticCSVHeader = "time,latitude,longitude,altitude,heading"

    /// Writes the trajectory as CSV: local columns (``localCSVHeader``), or geodetic columns (``geodeticCSVHeader``,
    /// 9 decimals of a degree ≈ 0.1 mm) when an origin is given.
    public func csv(origin: MapOrigin? = nil) -> String {
        var out = (origin == nil ? Self.localCSVHeader : Self.geodeticCSVHeader) + "\n"
        out.reserveCapacity(points.count * 64)
        for p in points {
            if let origin {
                let g = origin.geodetic(p.position.localPosition)
                out +=
                    "\(formatFixed(p.time, 4)),\(formatFixed(g.latitude, 9)),\(formatFixed(g.longitude, 9)),\(formatFixed(g.altitude, 4)),\(formatFixed(p.heading, 3))\n"
            } else {
                out +=
                    "\(formatFixed(p.time, 4)),\(formatFixed(p.position.x, 4)),\(formatFixed(p.position.y, 4)),\(formatFixed(p.position.z, 4)),"
                    + "\(formatFixed(p.heading, 3)),\(formatFixed(p.velocity.x, 4)),\(formatFixed(p.velocity.y, 4)),\(formatFixed(p.velocity.z, 4))\n"
            }
        }
        return out
    }

    /// Reads a CSV trajectory. The header names the columns: `time,east,north,up` (local) or `time,latitude,longitude,altitude`
    /// (geodetic, needs `origin`), optionally `heading` and `v_east,v_north,v_up` (velocities are derived from the
    /// positions when absent). Blank lines and lines starting with `#` are skipped.
    /// - Throws: ``TrajectoryFileError`` naming the line and field of the first problem.
    public static func fromCSV(_ text: String, origin: MapOrigin? = nil) throws(TrajectoryFileError) -> Trajectory {
        var header: [String]?
        var points: [TrajectoryPoint] = []
        var hasVelocity = false
        var geodetic = false
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let lineNumber = index + 1
            let line = rawLine.trimming(" \t\r")
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimming(" \t") }
            guard let columns = header else {
                let names = fields.map { $0.lowercased() }
                for (i, required) in ["time"].enumerated() where names.count <= i || names[i] != required {
                    throw .malformedCSV(
                        line: lineNumber, field: names.count > i ? names[i] : "(missing)",
                        problem: "header must start with '\(required)'")
                }
                if Array(names.dropFirst().prefix(3)) == ["east", "north", "up"] {
                    geodetic = false
                } else if Array(names.dropFirst().prefix(3)) == ["latitude", "longitude", "altitude"] {
                    geodetic = true
                    guard origin != nil else { throw .needsOrigin }
                } else {
                    throw .malformedCSV(
                        line: lineNumber, field: names.dropFirst().prefix(3).joined(separator: ","),
                        problem: "expected columns east,north,up or latitude,longitude,altitude after time")
                }
                let known: Set = [
                    "time", "east", "north", "up", "latitude", "longitude", "altitude", "heading", "v_east", "v_north",
                    "v_up",
                ]
                if let unknown = names.first(where: { !known.contains($0) }) {
                    throw .malformedCSV(line: lineNumber, field: unknown, problem: "unknown column")
                }
                hasVelocity = names.contains("v_east") && names.contains("v_north") && names.contains("v_up")
                header = names
                continue
            }
            guard fields.count == columns.count else {
                throw .malformedCSV(
                    line: lineNumber, field: fields.count < columns.count ? columns[fields.count] : "(extra)",
                    problem: "expected \(columns.count) fields, found \(fields.count)")
            }
            var values: [String: Double] = [:]
            for (name, text) in zip(columns, fields) {
                guard let v = Double(text), v.isFinite else {
                    throw .malformedCSV(
                        line: lineNumber, field: name,
                        problem: text.isEmpty ? "empty value" : "'\(text)' is not a number")
                }
                values[name] = v
            }
            let time = values["time"]!
            if let previous = points.last, !(time > previous.time) {
                throw .malformedCSV(
                    line: lineNumber, field: "time", problem: "\(time) does not increase (previous \(previous.time))")
            }
            if points.isEmpty && time != 0 {
                throw .malformedCSV(line: lineNumber, field: "time", problem: "the first time must be 0, found \(time)")
            }
            let position: Vector3
            if geodetic, let origin {
                let lat = values["latitude"]!, lon = values["longitude"]!
                guard (-90...90).contains(lat) else {
                    throw .malformedCSV(line: lineNumber, field: "latitude", problem: "\(lat) is outside -90…90")
                }
                do {
                    position = Vector3(
                        try origin.local(
                            GeodeticCoordinate(latitude: lat, longitude: lon, altitude: values["altitude"]!)))
                } catch {
                    throw .malformedCSV(line: lineNumber, field: "longitude", problem: error.description)
                }
            } else {
                position = Vector3(values["east"]!, values["north"]!, values["up"]!)
            }
            let velocity = hasVelocity ? Vector3(values["v_east"]!, values["v_north"]!, values["v_up"]!) : .zero
            points.append(
                TrajectoryPoint(
                    time: time, position: position, velocity: velocity,
                    heading: normalizedHeading(values["heading"] ?? 0)))
        }
        guard header != nil else { throw .malformedCSV(line: 1, field: "time", problem: "missing header line") }
        if !hasVelocity { points = Self.withDerivedVelocities(points) }
        do { return try Trajectory(points: points) } catch { throw .invalidTrajectory(error) }
    }

    /// Velocities by central differences of the positions (one-sided at the ends, zero at rest).
    static func withDerivedVelocities(_ points: [TrajectoryPoint]) -> [TrajectoryPoint] {
        guard points.count > 1 else { return points }
        var out = points
        for i in points.indices {
            let a = points[max(0, i - 1)], b = points[min(points.count - 1, i + 1)]
            out[i].velocity = (b.position - a.position) / (b.time - a.time)
        }
        return out
    }
}

extension StringProtocol {
    /// The string without the given leading and trailing characters.
    func trimming(_ set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }
}
