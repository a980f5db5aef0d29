import Flight

/// What the own drone would fly under one candidate plan: go to `target` (moving at `targetVelocity`, which is also
/// the feedforward) at up to `speed` m/s horizontally; first, when `wait` is set, fly to that point (at up to
/// `waitSpeed`, default the speed limit) for `waitFor` seconds.
struct MotionPlan: Sendable, Hashable {
    var target: Vector3
    var targetVelocity: Vector3
    var speed: Double
    var wait: Vector3?
    var waitFor = 0.0
    var waitSpeed: Double?
}

/// A cheap copy of ``Flight/MultirotorModel``'s position controller (proportional correction capped by a braking
/// profile, speed and climb limits, acceleration limits), integrated at a coarser step. It ranks candidate plans;
/// what other drones see is the navigator's own prediction of the plan that was chosen.
struct MotionModel: Sendable {
    var limits: VehicleLimits
    var step: Double

    /// Positions at `k · gridStep`, k = 0 ..< count, written to `xs`, `ys`, `zs` (index 0 is the start).
    func rollout(
        position: Vector3, velocity: Vector3, plan: MotionPlan, gridStep: Double, count: Int,
        xs: inout [Double], ys: inout [Double], zs: inout [Double]
    ) {
        xs.withUnsafeMutableBufferPointer { xs in
            ys.withUnsafeMutableBufferPointer { ys in
                zs.withUnsafeMutableBufferPointer { zs in
                    rollout(
                        position: position, velocity: velocity, plan: plan, gridStep: gridStep, count: count,
                        xs: xs.baseAddress!, ys: ys.baseAddress!, zs: zs.baseAddress!)
                }
            }
        }
    }

    func rollout(
        position: Vector3, velocity: Vector3, plan: MotionPlan, gridStep: Double, count: Int,
        xs: UnsafeMutablePointer<Double>, ys: UnsafeMutablePointer<Double>, zs: UnsafeMutablePointer<Double>
    ) {
        let n = Int((gridStep / step).rounded()) > 1 ? Int((gridStep / step).rounded()) : 1
        let h = gridStep / Double(n)
        let l = limits
        let gain = l.positionGain
        let aH = l.maxHorizontalAcceleration, aV = l.maxVerticalAcceleration
        let vCruise = lesser(plan.speed, l.maxHorizontalSpeed),
            vFree = lesser(plan.waitSpeed ?? l.maxHorizontalSpeed, l.maxHorizontalSpeed)
        let climb = l.maxClimbRate, descent = -l.maxDescentRate
        let brakeH = 2 * 0.9 * aH, brakeV = 2 * 0.9 * aV
        let dmax = aH * h, dzmax = aV * h
        var px = position.x, py = position.y, pz = position.z
        var vx = velocity.x, vy = velocity.y, vz = velocity.z
        let fx = plan.targetVelocity.x, fy = plan.targetVelocity.y, fz = plan.targetVelocity.z
        let gx = plan.target.x, gy = plan.target.y, gz = plan.target.z
        let waits = plan.wait != nil
        let wx0 = plan.wait?.x ?? 0, wy0 = plan.wait?.y ?? 0, wz0 = plan.wait?.z ?? 0
        var t = 0.0
        xs[0] = px
        ys[0] = py
        zs[0] = pz
        var k = 1
        while k < count {
            var i = 0
            while i < n {
                let waiting = waits && t < plan.waitFor - 1e-9
                let ffx = waiting ? 0 : fx, ffy = waiting ? 0 : fy, ffz = waiting ? 0 : fz
                let tx = waiting ? wx0 : gx + fx * t, ty = waiting ? wy0 : gy + fy * t, tz = waiting ? wz0 : gz + fz * t
                let vMax = waiting ? vFree : vCruise
                let ex = tx - px, ey = ty - py, ez = tz - pz
                let dh = (ex * ex + ey * ey).squareRoot()
                var cx = ex * gain, cy = ey * gain
                let cl = (cx * cx + cy * cy).squareRoot(), cap = (brakeH * dh).squareRoot()
                if cl > cap && cl > 0 {
                    cx *= cap / cl
                    cy *= cap / cl
                }
                var wx = ffx + cx, wy = ffy + cy
                let wl = (wx * wx + wy * wy).squareRoot()
                if wl > vMax && wl > 0 {
                    wx *= vMax / wl
                    wy *= vMax / wl
                }
                let bz = (brakeV * magnitude(ez)).squareRoot()
                let wz = clamp(ffz + clamp(ez * gain, -bz, bz), descent, climb)
                var dx = wx - vx, dy = wy - vy
                let dl = (dx * dx + dy * dy).squareRoot()
                if dl > dmax {
                    dx *= dmax / dl
                    dy *= dmax / dl
                }
                let dz = clamp(wz - vz, -dzmax, dzmax)
                vx += dx
                vy += dy
                vz += dz
                px += vx * h
                py += vy * h
                pz += vz * h
                t += h
                i += 1
            }
            xs[k] = px
            ys[k] = py
            zs[k] = pz
            k += 1
        }
    }
}
