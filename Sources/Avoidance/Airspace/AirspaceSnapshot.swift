import Flight

/// Tracks resampled on one time grid — `time`, `time + step`, … `time + horizon` (41 instants by default) — so that
/// "the same time" means the same grid index for every drone, with each point's conservative growth.
///
/// A track is *trusted* when its drone avoids and its prediction is at most ``AvoidanceConfiguration/staleAfter`` old:
/// its points are used as they are. Otherwise every point grows by ½·a·τ² horizontally and vertically (capped, see
/// ``AvoidanceConfiguration/uncertaintyAcceleration``), because the drone may have changed its plan within its
/// acceleration limits: for a drone that does not avoid, τ is the time since the prediction was made; for a stale
/// drone that avoids (it keeps avoiding while we do not hear it), the time since it went stale. Beyond the end of a
/// prediction the track is extrapolated at its last velocity.
/// Predictions older than ``AvoidanceConfiguration/forgetAfter`` are left out.
public struct AirspaceSnapshot: Sendable {
    /// Time of grid index 0, seconds.
    public let time: Double
    /// Grid step, seconds.
    public let step: Double
    /// Grid instants per track (horizon / step + 1).
    public let pointsPerTrack: Int
    /// The tracks kept, in the order given (older ones left out).
    public let tracks: [AirspaceTrack]
    /// Whether each track is treated conservatively (stale or not avoiding).
    public let conservative: [Bool]
    /// Horizontal separation minimum the conflicts are judged by, metres.
    public let horizontalSeparation: Double
    /// Vertical separation minimum the conflicts are judged by, metres.
    public let verticalSeparation: Double

    var xs: [Double], ys: [Double], zs: [Double]
    var growH: [Double], growV: [Double]

    /// Resamples `tracks` on the grid starting at `now`.
    public init(tracks: [AirspaceTrack], now: Double, configuration c: AvoidanceConfiguration) {
        let k = c.steps + 1
        time = now
        step = c.step
        pointsPerTrack = k
        horizontalSeparation = c.horizontalSeparation
        verticalSeparation = c.verticalSeparation
        let kept = tracks.filter { now - $0.prediction.time <= c.forgetAfter }
        self.tracks = kept
        conservative = kept.map { !$0.avoiding || now - $0.prediction.time > c.staleAfter }
        let tuning = Tuning(c)
        let n = kept.count * k
        xs = [Double](repeating: 0, count: n)
        ys = xs
        zs = xs
        growH = xs
        growV = xs
        for (t, track) in kept.enumerated() {
            Self.resample(
                track.prediction, from: now, step: c.step, count: k, base: t * k, conservative: conservative[t],
                avoiding: track.avoiding,
                tuning: tuning, xs: &xs, ys: &ys, zs: &zs, growH: &growH, growV: &growV)
            Self.addUncertainty(track, from: now, step: c.step, count: k, base: t * k, tuning: tuning, growH: &growH)
        }
    }

    /// Widens a track's horizontal volume by the uncertainty its drone published, `from + k·step` seconds on
    /// (k = 0 ..< count), within the inflation cap.
    static func addUncertainty(
        _ track: AirspaceTrack, from now: Double, step: Double, count: Int, base: Int, tuning c: Tuning,
        growH: inout [Double]
    ) {
        let u = track.uncertainty
        guard !u.isNone else { return }
        let start = now - track.prediction.time
        for k in 0..<count {
            let i = base + k
            growH[i] = min(c.maxHorizontalInflation, growH[i] + u.radius(after: start + Double(k) * step))
        }
    }

    /// Number of tracks.
    public var count: Int { tracks.count }

    /// Position of track `track` at grid index `index`.
    public func position(track: Int, index: Int) -> Vector3 {
        let i = track * pointsPerTrack + index
        return Vector3(xs[i], ys[i], zs[i])
    }

    /// Horizontal and vertical growth of track `track` at grid index `index`, metres.
    public func growth(track: Int, index: Int) -> (horizontal: Double, vertical: Double) {
        let i = track * pointsPerTrack + index
        return (growH[i], growV[i])
    }

    /// Writes one prediction's positions at `from + k·step` (k = 0 ..< count) into the arrays at `base`.
    static func resample(
        _ p: PredictedTrajectory, from now: Double, step: Double, count: Int, base: Int, conservative: Bool,
        avoiding: Bool,
        tuning c: Tuning,
        xs: inout [Double], ys: inout [Double], zs: inout [Double], growH: inout [Double], growV: inout [Double]
    ) {
        xs.withUnsafeMutableBufferPointer { x in
            ys.withUnsafeMutableBufferPointer { y in
                zs.withUnsafeMutableBufferPointer { z in
                    growH.withUnsafeMutableBufferPointer { gh in
                        growV.withUnsafeMutableBufferPointer { gv in
                            p.points.withUnsafeBufferPointer { pts in
                                resample(
                                    p, points: pts.baseAddress, m: pts.count, from: now, step: step, count: count,
                                    conservative: conservative,
                                    avoiding: avoiding, tuning: c, xs: x.baseAddress! + base, ys: y.baseAddress! + base,
                                    zs: z.baseAddress! + base, growH: gh.baseAddress! + base,
                                    growV: gv.baseAddress! + base)
                            }
                        }
                    }
                }
            }
        }
    }

    static func resample(
        _ p: PredictedTrajectory, points pts: UnsafePointer<PredictedTrajectory.Point>?, m: Int, from now: Double,
        step: Double, count: Int, conservative: Bool, avoiding: Bool, tuning c: Tuning,
        xs: UnsafeMutablePointer<Double>, ys: UnsafeMutablePointer<Double>, zs: UnsafeMutablePointer<Double>,
        growH: UnsafeMutablePointer<Double>, growV: UnsafeMutablePointer<Double>
    ) {
        let o = p.origin
        // Last segment velocity, for extrapolation.
        var vx = 0.0, vy = 0.0, vz = 0.0
        var lastOffset = 0.0, lx = o.x, ly = o.y, lz = o.z
        if let pts, m >= 1 {
            let b = pts[m - 1]
            let a = m >= 2 ? pts[m - 2].position : o, ao = m >= 2 ? pts[m - 2].offset : 0
            let dt = b.offset - ao
            if dt > 0 {
                vx = (b.position.x - a.x) / dt
                vy = (b.position.y - a.y) / dt
                vz = (b.position.z - a.z) / dt
            }
            lastOffset = b.offset
            lx = b.position.x
            ly = b.position.y
            lz = b.position.z
        }
        let start = now - p.time
        let shift = avoiding ? c.staleAfter : 0
        let ah = c.halfUncertainty, av = c.halfVerticalUncertainty
        let capH = c.maxHorizontalInflation, capV = c.maxVerticalInflation
        var j = 0  // index of the first point with offset ≥ tau
        var k = 0
        while k < count {
            let tau = start + Double(k) * step
            var qx: Double, qy: Double, qz: Double
            if let pts, m > 0, tau > 0 {
                if tau >= lastOffset {
                    let e = tau - lastOffset
                    qx = lx + vx * e
                    qy = ly + vy * e
                    qz = lz + vz * e
                } else {
                    while j < m && pts[j].offset < tau { j += 1 }
                    let a = j == 0 ? o : pts[j - 1].position, ao = j == 0 ? 0 : pts[j - 1].offset
                    let b = pts[j].position
                    let span = pts[j].offset - ao
                    let f = span > 0 ? (tau - ao) / span : 1
                    qx = a.x + (b.x - a.x) * f
                    qy = a.y + (b.y - a.y) * f
                    qz = a.z + (b.z - a.z) * f
                }
            } else {
                qx = o.x
                qy = o.y
                qz = o.z
            }
            xs[k] = qx
            ys[k] = qy
            zs[k] = qz
            if conservative {
                // A drone that avoids keeps avoiding while we do not hear it: its volume grows from the moment it went
                // stale; one that does not avoid may deviate from the moment it made its prediction.
                var t = tau - shift
                if t < 0 { t = 0 }
                growH[k] = lesser(capH, ah * t * t)
                growV[k] = lesser(capV, av * t * t)
            } else {
                growH[k] = 0
                growV[k] = 0
            }
            k += 1
        }
    }
}
