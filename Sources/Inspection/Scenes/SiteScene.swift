import Foundation

/// Synthetic inspection sites, sampled as point clouds the way a scanner sees surfaces: a hall with pillars, a
/// building round a courtyard, a bridge with a passage under it, a forest of poles. Used by the tests, the
/// benchmark and the demo; each comes with snapshot points that keep a 1 m clearance.
public struct SiteScene: Sendable {
    /// The site's name.
    public var name: String
    /// Its cloud.
    public var cloud: PointCloud
    /// Snapshot points to plan through.
    public var points: [SnapshotPoint]

    /// The example sites' names, as `fleetmesh plan example` and scenario files (`site = …`) take them.
    public static let exampleNames = ["hall", "courtyard", "bridge", "forest", "campus"]

    /// The example site called `name` (one of ``exampleNames``), with its default sampling; nil for another name.
    public static func example(named name: String, step: Double? = nil) -> SiteScene? {
        switch name {
        case "hall": return .hall()
        case "courtyard": return .courtyard()
        case "bridge": return .bridge()
        case "forest": return .forest()
        case "campus": return step.map { .campus(step: $0) } ?? .campus()
        default: return nil
        }
    }

    /// Samples of a horizontal rectangle at height `z`, every `step` metres.
    static func plane(x: ClosedRange<Double>, y: ClosedRange<Double>, z: Double, step: Double) -> [SIMD3<Float>] {
        var out: [SIMD3<Float>] = []
        var u = x.lowerBound
        while u <= x.upperBound + 1e-9 {
            var v = y.lowerBound
            while v <= y.upperBound + 1e-9 {
                out.append(SIMD3(Float(u), Float(v), Float(z)))
                v += step
            }
            u += step
        }
        return out
    }

    /// Samples of a vertical wall from `a` to `b` (horizontal ends) between heights `z`.
    static func wall(_ a: SIMD2<Double>, _ b: SIMD2<Double>, z: ClosedRange<Double>, step: Double) -> [SIMD3<Float>] {
        let d = b - a
        let length = (d * d).sum().squareRoot()
        let n = max(1, Int((length / step).rounded(.up)))
        var out: [SIMD3<Float>] = []
        for i in 0...n {
            let p = a + d * (Double(i) / Double(n))
            var h = z.lowerBound
            while h <= z.upperBound + 1e-9 {
                out.append(SIMD3(Float(p.x), Float(p.y), Float(h)))
                h += step
            }
        }
        return out
    }

    /// Samples of a vertical cylinder's side (axis at `c`).
    static func cylinder(_ c: SIMD2<Double>, radius: Double, z: ClosedRange<Double>, step: Double) -> [SIMD3<Float>] {
        let n = max(6, Int((2 * Double.pi * radius / step).rounded(.up)))
        var out: [SIMD3<Float>] = []
        for i in 0..<n {
            let a = 2 * Double.pi * Double(i) / Double(n)
            var h = z.lowerBound
            while h <= z.upperBound + 1e-9 {
                out.append(SIMD3(Float(c.x + radius * cos(a)), Float(c.y + radius * sin(a)), Float(h)))
                h += step
            }
        }
        return out
    }

    /// Samples of an axis-aligned box's six faces.
    static func box(_ lo: SIMD3<Double>, _ hi: SIMD3<Double>, step: Double) -> [SIMD3<Float>] {
        var out = plane(x: lo.x...hi.x, y: lo.y...hi.y, z: lo.z, step: step)
        out += plane(x: lo.x...hi.x, y: lo.y...hi.y, z: hi.z, step: step)
        out += wall(SIMD2(lo.x, lo.y), SIMD2(hi.x, lo.y), z: lo.z...hi.z, step: step)
        out += wall(SIMD2(hi.x, lo.y), SIMD2(hi.x, hi.y), z: lo.z...hi.z, step: step)
        out += wall(SIMD2(hi.x, hi.y), SIMD2(lo.x, hi.y), z: lo.z...hi.z, step: step)
        out += wall(SIMD2(lo.x, hi.y), SIMD2(lo.x, lo.y), z: lo.z...hi.z, step: step)
        return out
    }

    /// A 40 × 30 m hall floor with 3 × 4 pillars (radius 0.5 m, 8 m high, 8 m apart) and walls 6 m high on
    /// three sides; snapshots in front of pillars facing them.
    public static func hall(step: Double = 0.15) -> SiteScene {
        var p = plane(x: -4...36, y: -4...26, z: 0, step: step * 2)
        for i in 0..<4 {
            for j in 0..<3 {
                p += cylinder(SIMD2(Double(i) * 8 + 4, Double(j) * 8 + 4), radius: 0.5, z: 0...8, step: step)
            }
        }
        p += wall(SIMD2(-4, -4), SIMD2(36, -4), z: 0...6, step: step * 2)
        p += wall(SIMD2(36, -4), SIMD2(36, 26), z: 0...6, step: step * 2)
        p += wall(SIMD2(-4, 26), SIMD2(36, 26), z: 0...6, step: step * 2)
        let shots: [(Double, Double, Double, Double)] = [
            (4, 2, 3, 0), (12, 6, 5, 180), (20, 10, 2, 0), (28, 18, 4, 180), (4, 18, 6, 0),
        ]
        return SiteScene(
            name: "hall", cloud: PointCloud(points: p, format: "hall"),
            points: shots.enumerated().map {
                SnapshotPoint(position: SIMD3($1.0, $1.1, $1.2), heading: $1.3, label: "snapshot \($0 + 1)")
            })
    }

    /// A building 30 × 30 m and 12 m high round a 12 × 12 m open courtyard; snapshots outside and inside it.
    public static func courtyard(step: Double = 0.25) -> SiteScene {
        var p = plane(x: -20...50, y: -20...50, z: 0, step: step * 2)
        // Outer walls, inner (courtyard) walls and the roof ring.
        p += wall(SIMD2(0, 0), SIMD2(30, 0), z: 0...12, step: step)
        p += wall(SIMD2(30, 0), SIMD2(30, 30), z: 0...12, step: step)
        p += wall(SIMD2(30, 30), SIMD2(0, 30), z: 0...12, step: step)
        p += wall(SIMD2(0, 30), SIMD2(0, 0), z: 0...12, step: step)
        p += wall(SIMD2(9, 9), SIMD2(21, 9), z: 0...12, step: step)
        p += wall(SIMD2(21, 9), SIMD2(21, 21), z: 0...12, step: step)
        p += wall(SIMD2(21, 21), SIMD2(9, 21), z: 0...12, step: step)
        p += wall(SIMD2(9, 21), SIMD2(9, 9), z: 0...12, step: step)
        p += plane(x: 0...30, y: 0...9, z: 12, step: step)
        p += plane(x: 0...30, y: 21...30, z: 12, step: step)
        p += plane(x: 0...9, y: 9...21, z: 12, step: step)
        p += plane(x: 21...30, y: 9...21, z: 12, step: step)
        let shots: [(Double, Double, Double, Double)] = [(-5, 15, 4, 90), (15, 15, 4, 0), (35, 15, 6, 270)]
        return SiteScene(
            name: "courtyard", cloud: PointCloud(points: p, format: "courtyard"),
            points: shots.enumerated().map {
                SnapshotPoint(position: SIMD3($1.0, $1.1, $1.2), heading: $1.3, label: "snapshot \($0 + 1)")
            })
    }

    /// A bridge: a deck 8 m wide from y = -20 to 20 m, its underside at 6 m, on two piers; the passage under it
    /// is 6 m high. Snapshots on each side of the deck, under it, and a point of the river bank beyond.
    public static func bridge(step: Double = 0.2) -> SiteScene {
        var p = plane(x: -30...30, y: -30...30, z: 0, step: step * 2)
        p += box(SIMD3(-4, -20, 6), SIMD3(4, 20, 7), step: step)
        p += box(SIMD3(-4, -21, 0), SIMD3(4, -19, 6), step: step)
        p += box(SIMD3(-4, 19, 0), SIMD3(4, 21, 6), step: step)
        let shots: [(Double, Double, Double, Double)] = [(-15, 0, 3, 90), (15, 0, 3, 270), (0, 0, 3, 0)]
        return SiteScene(
            name: "bridge", cloud: PointCloud(points: p, format: "bridge"),
            points: shots.enumerated().map {
                SnapshotPoint(position: SIMD3($1.0, $1.1, $1.2), heading: $1.3, label: "snapshot \($0 + 1)")
            })
    }

    /// A forest of poles (radius 0.15 m, 10 m high) on a jittered 5 m grid over 40 × 40 m, drawn from `seed`.
    public static func forest(seed: UInt64 = 7, step: Double = 0.15) -> SiteScene {
        var state = seed | 1
        func next() -> Double {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Double(state >> 11) / Double(1 << 53)
        }
        var p = plane(x: -25...25, y: -25...25, z: 0, step: step * 3)
        for i in 0..<8 {
            for j in 0..<8 {
                let c = SIMD2(Double(i) * 5 - 17.5 + (next() - 0.5) * 1.2, Double(j) * 5 - 17.5 + (next() - 0.5) * 1.2)
                p += cylinder(c, radius: 0.15, z: 0...10, step: step)
            }
        }
        let shots: [(Double, Double, Double, Double)] = [(-22, -22, 3, 45), (22, 22, 3, 225), (-22, 22, 4, 135)]
        return SiteScene(
            name: "forest", cloud: PointCloud(points: p, format: "forest"),
            points: shots.enumerated().map {
                SnapshotPoint(position: SIMD3($1.0, $1.1, $1.2), heading: $1.3, label: "snapshot \($0 + 1)")
            })
    }
}
