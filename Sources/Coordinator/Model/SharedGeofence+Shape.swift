import Foundation
import Geodesy

extension SharedGeofence {
    /// The corners on a flat map around the first one (east, north metres; an equirectangular projection, within
    /// 0.1 % over the 50 km a fence may span).
    static func flatten(_ corners: [GeoPoint]) -> [(x: Double, y: Double)] {
        let radius = 6_371_008.8
        let lat0 = corners[0].latitude * .pi / 180, lon0 = corners[0].longitude
        return corners.map { c in
            var dlon = c.longitude - lon0
            if dlon > 180 { dlon -= 360 } else if dlon < -180 { dlon += 360 }
            return (dlon * .pi / 180 * radius * cos(lat0), (c.latitude * .pi / 180 - lat0) * radius)
        }
    }

    /// Refuses a polygon that spans too far, repeats a corner, folds back, crosses itself or encloses no area.
    static func checkShape(_ corners: [GeoPoint]) throws(GeofenceProblem) {
        let p = flatten(corners)
        let n = p.count
        for i in 1..<n {
            let d = hypot(p[i].x, p[i].y)
            guard d <= maxSpan else {
                throw GeofenceProblem(
                    "corners[\(i)]",
                    "is \(formatFixed(d / 1000, 1)) km from corners[0]; a geofence spans at most \(Int(maxSpan / 1000)) km"
                )
            }
        }
        for i in 0..<n {
            let j = (i + 1) % n
            guard hypot(p[j].x - p[i].x, p[j].y - p[i].y) >= 0.1 else {
                throw GeofenceProblem(
                    "corners[\(j)]", "repeats corners[\(i)] (corners must be at least 10 cm apart)")
            }
        }
        // Adjacent edges meet only at their shared corner: not when the second turns straight back along the first.
        for i in 0..<n {
            let a = p[(i + n - 1) % n], b = p[i], c = p[(i + 1) % n]
            let ux = b.x - a.x, uy = b.y - a.y, vx = c.x - b.x, vy = c.y - b.y
            let cross = ux * vy - uy * vx, dot = ux * vx + uy * vy
            if abs(cross) <= 1e-9 * hypot(ux, uy) * hypot(vx, vy), dot < 0 {
                throw GeofenceProblem(
                    "corners[\(i)]", "turns straight back: the edges before and after it overlap")
            }
        }
        // Edges that do not share a corner must not touch.
        for i in 0..<n {
            for j in stride(from: i + 2, to: n, by: 1) where !(i == 0 && j == n - 1) {
                if segmentsTouch(p[i], p[(i + 1) % n], p[j], p[(j + 1) % n]) {
                    throw GeofenceProblem(
                        "corners",
                        "edge corners[\(i)]–corners[\((i + 1) % n)] crosses edge corners[\(j)]–corners[\((j + 1) % n)]: the polygon must not intersect itself"
                    )
                }
            }
        }
        var twiceArea = 0.0
        for i in 0..<n {
            let a = p[i], b = p[(i + 1) % n]
            twiceArea += a.x * b.y - b.x * a.y
        }
        guard abs(twiceArea) / 2 >= 1 else {
            throw GeofenceProblem(
                "corners",
                "the corners enclose \(formatFixed(abs(twiceArea) / 2, 2)) m²; a geofence needs at least 1 m²")
        }
    }

    /// Whether segments ab and cd have a point in common (touching counts).
    static func segmentsTouch(
        _ a: (x: Double, y: Double), _ b: (x: Double, y: Double), _ c: (x: Double, y: Double),
        _ d: (x: Double, y: Double)
    ) -> Bool {
        func orient(_ p: (x: Double, y: Double), _ q: (x: Double, y: Double), _ r: (x: Double, y: Double)) -> Double {
            let v = (q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x)
            return abs(v) < 1e-9 ? 0 : v
        }
        func within(_ p: (x: Double, y: Double), _ q: (x: Double, y: Double), _ r: (x: Double, y: Double)) -> Bool {
            min(p.x, r.x) <= q.x && q.x <= max(p.x, r.x) && min(p.y, r.y) <= q.y && q.y <= max(p.y, r.y)
        }
        let o1 = orient(a, b, c), o2 = orient(a, b, d), o3 = orient(c, d, a), o4 = orient(c, d, b)
        if (o1 > 0) != (o2 > 0) && o1 != 0 && o2 != 0 && (o3 > 0) != (o4 > 0) && o3 != 0 && o4 != 0 { return true }
        if o1 == 0 && within(a, c, b) { return true }
        if o2 == 0 && within(a, d, b) { return true }
        if o3 == 0 && within(c, a, d) { return true }
        if o4 == 0 && within(c, b, d) { return true }
        return false
    }
}
