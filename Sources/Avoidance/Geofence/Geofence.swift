import Flight
import Geodesy

/// The area drones must stay in: a polygon in the local frame (east, north metres) between a floor and a ceiling
/// (local up, metres). Resolution never plans a path that leaves it, and goals outside it are moved to the nearest
/// point inside. Any simple polygon is accepted; the no-deadlock argument needs a convex one (a straight path between
/// two inside points stays inside).
public struct Geofence: Sendable, Hashable, Codable {
    /// Corners in order (either direction), local east/north metres; `z` is ignored.
    public let polygon: [Vector3]
    /// Lowest allowed altitude, local up metres.
    public let minAltitude: Double
    /// Highest allowed altitude, local up metres.
    public let maxAltitude: Double
    /// Whether the polygon is convex.
    public let isConvex: Bool

    /// A fence from local corners and altitude limits.
    /// - Throws: ``GeofenceError`` for fewer than three corners, non-finite values, a polygon without area, or
    ///   `minAltitude` not below `maxAltitude`.
    public init(polygon: [Vector3], minAltitude: Double, maxAltitude: Double) throws(GeofenceError) {
        guard polygon.count >= 3 else { throw .tooFewCorners(polygon.count) }
        for (i, p) in polygon.enumerated() where !(p.x.isFinite && p.y.isFinite) { throw .notFinite(corner: i) }
        guard minAltitude.isFinite, maxAltitude.isFinite, minAltitude < maxAltitude else {
            throw .badAltitudes(minimum: minAltitude, maximum: maxAltitude)
        }
        let flat = polygon.map { Vector3($0.x, $0.y, 0) }
        guard abs(Self.signedArea(flat)) > 1e-6 else { throw .noArea }
        self.polygon = flat
        self.minAltitude = minAltitude
        self.maxAltitude = maxAltitude
        self.isConvex = Self.convex(flat)
    }

    private enum CodingKeys: String, CodingKey { case polygon, minAltitude, maxAltitude }

    /// Decodes `{"polygon": [...], "minAltitude": …, "maxAltitude": …}` and validates it as ``init(polygon:minAltitude:maxAltitude:)``.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        do {
            try self.init(
                polygon: try c.decode([Vector3].self, forKey: .polygon),
                minAltitude: try c.decode(Double.self, forKey: .minAltitude),
                maxAltitude: try c.decode(Double.self, forKey: .maxAltitude))
        } catch let e as GeofenceError {
            throw DecodingError.dataCorruptedError(forKey: .polygon, in: c, debugDescription: e.description)
        }
    }

    /// Encodes the corners and altitude limits.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(polygon, forKey: .polygon)
        try c.encode(minAltitude, forKey: .minAltitude)
        try c.encode(maxAltitude, forKey: .maxAltitude)
    }

    /// A fence from latitude/longitude corners, placed on `origin`'s map; altitudes are local up metres.
    public init(corners: [GeodeticCoordinate], origin: MapOrigin, minAltitude: Double, maxAltitude: Double)
        throws(GeofenceError)
    {
        var local: [Vector3] = []
        for (i, c) in corners.enumerated() {
            do { local.append(Vector3(try origin.local(c))) } catch {
                throw .notOnMap(corner: i, reason: error.description)
            }
        }
        try self.init(polygon: local, minAltitude: minAltitude, maxAltitude: maxAltitude)
    }

    /// An axis-aligned rectangle.
    public static func rectangle(east: ClosedRange<Double>, north: ClosedRange<Double>, altitude: ClosedRange<Double>)
        throws(GeofenceError) -> Geofence
    {
        try Geofence(
            polygon: [
                Vector3(east.lowerBound, north.lowerBound, 0), Vector3(east.upperBound, north.lowerBound, 0),
                Vector3(east.upperBound, north.upperBound, 0), Vector3(east.lowerBound, north.upperBound, 0),
            ],
            minAltitude: altitude.lowerBound, maxAltitude: altitude.upperBound)
    }

    /// Horizontal distance from `p` to the polygon's edge: positive inside, negative outside.
    public func signedDistance(_ p: Vector3) -> Double {
        var inside = false
        var best = Double.infinity
        var j = polygon.count - 1
        for i in polygon.indices {
            let a = polygon[j], b = polygon[i]
            if (a.y > p.y) != (b.y > p.y) {
                let x = a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x)
                if p.x < x { inside.toggle() }
            }
            best = min(best, Self.segmentDistanceSquared(p, a, b))
            j = i
        }
        let d = best.squareRoot()
        return inside ? d : -d
    }

    /// Whether `p` is inside, at least `margin` from the edges and `altitudeMargin` from the floor and ceiling.
    public func contains(_ p: Vector3, margin: Double = 0, altitudeMargin: Double = 0) -> Bool {
        p.z >= minAltitude + altitudeMargin && p.z <= maxAltitude - altitudeMargin && signedDistance(p) >= margin
    }

    /// How far `p` is from satisfying ``contains(_:margin:altitudeMargin:)`` (0 when it does), metres.
    public func excess(_ p: Vector3, margin: Double, altitudeMargin: Double) -> Double {
        let h = max(0, margin - signedDistance(p))
        let v = max(0, minAltitude + altitudeMargin - p.z, p.z - (maxAltitude - altitudeMargin))
        return h + v
    }

    /// The point nearest to `p` that is inside with the margins (`p` itself when it already is).
    public func clamp(_ p: Vector3, margin: Double, altitudeMargin: Double) -> Vector3 {
        let low = minAltitude + altitudeMargin, high = maxAltitude - altitudeMargin
        let z = low <= high ? min(max(p.z, low), high) : (minAltitude + maxAltitude) / 2
        var q = Vector3(p.x, p.y, z)
        if signedDistance(q) >= margin { return q }
        if isConvex {
            // Dykstra's alternating projections onto the edges' inset half-planes converge to the nearest point.
            let sign: Double = Self.signedArea(polygon) > 0 ? 1 : -1
            let planes = polygon.indices.map { i -> (nx: Double, ny: Double, c: Double) in
                let a = polygon[i], b = polygon[(i + 1) % polygon.count]
                let l = max((b - a).horizontalLength, 1e-12)
                let nx = -(b.y - a.y) / l * sign, ny = (b.x - a.x) / l * sign  // inward normal
                return (nx, ny, nx * a.x + ny * a.y + margin)
            }
            var x = q.x, y = q.y
            var corrections = [(Double, Double)](repeating: (0, 0), count: planes.count)
            for _ in 0..<200 {
                var moved = 0.0
                for (i, h) in planes.enumerated() {
                    let zx = x + corrections[i].0, zy = y + corrections[i].1
                    let v = h.nx * zx + h.ny * zy - h.c
                    let px = v < 0 ? zx - v * h.nx : zx, py = v < 0 ? zy - v * h.ny : zy
                    corrections[i] = (zx - px, zy - py)
                    moved += abs(px - x) + abs(py - y)
                    x = px
                    y = py
                }
                if moved < 1e-12 { break }
            }
            q = Vector3(x, y, z)
            if signedDistance(q) >= margin - 1e-9 { return q }
        }
        // Not convex: the nearest edge point pushed inward along the edge's normal, then toward the centroid until
        // inside.
        var best = Double.infinity
        var bestPoint = q
        var bestEdge = (polygon[0], polygon[1])
        var j = polygon.count - 1
        for i in polygon.indices {
            let a = polygon[j], b = polygon[i]
            let c = Self.closestPoint(q, a, b)
            let d = (c - q).horizontalLength
            if d < best {
                best = d
                bestPoint = c
                bestEdge = (a, b)
            }
            j = i
        }
        let edge = bestEdge.1 - bestEdge.0
        var normal = Vector3(-edge.y, edge.x, 0) / max(edge.horizontalLength, 1e-12)
        if Self.signedArea(polygon) < 0 { normal = -normal }
        q = Vector3(bestPoint.x + normal.x * (margin + 1e-6), bestPoint.y + normal.y * (margin + 1e-6), z)
        let centre = centroid
        var k = 0
        while signedDistance(q) < margin && k < 60 {
            q = Vector3(q.x + (centre.x - q.x) * 0.1, q.y + (centre.y - q.y) * 0.1, z)
            k += 1
        }
        return q
    }

    static func convex(_ polygon: [Vector3]) -> Bool {
        var sign = 0.0
        for i in polygon.indices {
            let a = polygon[i], b = polygon[(i + 1) % polygon.count], c = polygon[(i + 2) % polygon.count]
            let cross = (b.x - a.x) * (c.y - b.y) - (b.y - a.y) * (c.x - b.x)
            if abs(cross) < 1e-12 { continue }
            if sign == 0 { sign = cross } else if (cross > 0) != (sign > 0) { return false }
        }
        return true
    }

    /// The polygon's area centroid.
    public var centroid: Vector3 {
        var cx = 0.0, cy = 0.0, a2 = 0.0
        var j = polygon.count - 1
        for i in polygon.indices {
            let p = polygon[j], q = polygon[i]
            let cross = p.x * q.y - q.x * p.y
            a2 += cross
            cx += (p.x + q.x) * cross
            cy += (p.y + q.y) * cross
            j = i
        }
        return Vector3(cx / (3 * a2), cy / (3 * a2), (minAltitude + maxAltitude) / 2)
    }

    static func signedArea(_ p: [Vector3]) -> Double {
        var s = 0.0
        var j = p.count - 1
        for i in p.indices {
            s += p[j].x * p[i].y - p[i].x * p[j].y
            j = i
        }
        return s / 2
    }

    static func closestPoint(_ p: Vector3, _ a: Vector3, _ b: Vector3) -> Vector3 {
        let ab = Vector3(b.x - a.x, b.y - a.y, 0)
        let l2 = ab.x * ab.x + ab.y * ab.y
        let t = l2 > 0 ? min(1, max(0, ((p.x - a.x) * ab.x + (p.y - a.y) * ab.y) / l2)) : 0
        return Vector3(a.x + ab.x * t, a.y + ab.y * t, 0)
    }

    static func segmentDistanceSquared(_ p: Vector3, _ a: Vector3, _ b: Vector3) -> Double {
        let c = closestPoint(p, a, b)
        let dx = p.x - c.x, dy = p.y - c.y
        return dx * dx + dy * dy
    }
}

/// Why a geofence could not be built.
public enum GeofenceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A polygon needs at least three corners.
    case tooFewCorners(Int)
    /// A corner is not a finite number.
    case notFinite(corner: Int)
    /// The corners are all on one line.
    case noArea
    /// The floor is not below the ceiling (or one is not finite).
    case badAltitudes(minimum: Double, maximum: Double)
    /// A latitude/longitude corner could not be placed on the map.
    case notOnMap(corner: Int, reason: String)

    /// What is wrong.
    public var description: String {
        switch self {
        case .tooFewCorners(let n): return "a geofence needs at least 3 corners, found \(n)"
        case .notFinite(let i): return "corner \(i) is not a finite number"
        case .noArea: return "the corners enclose no area"
        case .badAltitudes(let lo, let hi): return "minimum altitude \(lo) must be below maximum altitude \(hi)"
        case .notOnMap(let i, let r): return "corner \(i) is not on the map: \(r)"
        }
    }
}
