import Flight

/// Measures separation on true positions: the smallest separation, losses of separation (each pair entering the
/// minima counts once, with its duration), between avoiding drones and separately with non-avoiding ones, and
/// geofence exits of avoiding drones.
struct SeparationMonitor: Sendable {
    let count: Int
    let horizontal: Double
    let vertical: Double
    var inViolation: [Bool]
    var outside: [Bool]
    var minimumSeparation = Double.infinity
    var minimumDistance = Double.infinity
    var minimumSeparationMixed = Double.infinity
    var violations = 0
    var violationSeconds = 0.0
    var mixedViolations = 0
    var mixedViolationSeconds = 0.0
    var fenceExits = 0

    init(count: Int, configuration: AvoidanceConfiguration) {
        self.count = count
        horizontal = configuration.horizontalSeparation
        vertical = configuration.verticalSeparation
        inViolation = [Bool](repeating: false, count: count * count)
        outside = [Bool](repeating: false, count: count)
    }

    mutating func observe(
        positions: [Vector3], avoiding: [Bool], airborne: [Bool], time: Double, dt: Double, fence: Geofence?
    ) {
        for i in 0..<count {
            guard airborne[i] else {
                for j in 0..<count {
                    inViolation[i * count + j] = false
                    inViolation[j * count + i] = false
                }
                continue
            }
            if let fence, avoiding[i] {
                let out = !fence.contains(positions[i])
                if out && !outside[i] { fenceExits += 1 }
                outside[i] = out
            }
            for j in (i + 1)..<count where airborne[j] && (avoiding[i] || avoiding[j]) {
                let a = positions[i], b = positions[j]
                let dz = abs(a.z - b.z)
                let dh = (a - b).horizontalLength
                let both = avoiding[i] && avoiding[j]
                if both { minimumDistance = min(minimumDistance, (a - b).length) }
                if dz < vertical {
                    if both {
                        minimumSeparation = min(minimumSeparation, dh)
                    } else {
                        minimumSeparationMixed = min(minimumSeparationMixed, dh)
                    }
                }
                let violating = dz < vertical && dh < horizontal
                let key = i * count + j
                if violating {
                    if both {
                        if !inViolation[key] { violations += 1 }
                        violationSeconds += dt
                    } else {
                        if !inViolation[key] { mixedViolations += 1 }
                        mixedViolationSeconds += dt
                    }
                }
                inViolation[key] = violating
            }
        }
    }
}
