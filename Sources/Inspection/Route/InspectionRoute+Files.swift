import Geodesy

extension InspectionRoute {
    /// The route as a waypoint file for `fleetmesh send N trajectory @FILE`: one `LAT,LON,ALT` per line (altitude in
    /// metres above the map origin, which is home's ground); a snapshot point's line adds its heading (`-` for none)
    /// and the hover, `LAT,LON,ALT,HEADING,HOLD`, so the drone turns and holds there, after a comment naming it.
    /// The start, when given, is where the drone already is and is not listed.
    public func waypointFile(origin: MapOrigin) -> String {
        var lines = [
            "# FleetMesh inspection route: \(points.count) snapshot points, \(format2(length)) m, "
                + "\(format2(duration)) s at the planned limits",
            "# LAT,LON,ALT[,HEADING,HOLD] (degrees, metres above the map origin \(origin); degrees, seconds)",
        ]
        var snapshotAt: [Int: Int] = [:]
        for (i, v) in snapshotVertices.enumerated() { snapshotAt[v] = i }
        for (i, v) in vertices.enumerated() {
            if i == 0 && hasStart { continue }
            if let s = snapshotAt[i] {
                let p = points[s]
                lines.append("# snapshot \(s + 1): \(p.label)" + (p.heading.map { ", heading \(format2($0))°" } ?? ""))
            }
            let g = origin.geodetic(LocalPosition(east: v.x, north: v.y, up: v.z))
            var line = "\(formatFixed(g.latitude, 8)),\(formatFixed(g.longitude, 8)),\(formatFixed(v.z, 3))"
            if let s = snapshotAt[i] {
                line +=
                    "," + (points[s].heading.map { formatFixed(normalizedDegrees($0), 2) } ?? "-") + ","
                    + formatFixed(hover, 1)
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Degrees in 0..<360, to hundredths.
func normalizedDegrees(_ d: Double) -> Double {
    let r = ((d * 100).rounded() / 100).truncatingRemainder(dividingBy: 360)
    return r < 0 ? (r + 360 >= 360 ? 0 : r + 360) : r
}
