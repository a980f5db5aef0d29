import Foundation

/// Transverse Mercator projection by the 6th-order Krüger series (Karney 2011, "Transverse Mercator with an
/// accuracy of a few nanometers", J. Geodesy 85:475–485). Coefficients are computed once per ellipsoid;
/// the trigonometric series are summed with complex Clenshaw recurrences, so a conversion costs a few
/// transcendental calls. Accuracy: a few nanometres within 35° of the central meridian.
public struct TransverseMercator: Sendable {
    /// The ellipsoid projected.
    public let ellipsoid: Ellipsoid
    /// Central scale factor k0 (0.9996 for UTM).
    public let scaleFactor: Double

    @usableFromInline let e: Double  // first eccentricity
    @usableFromInline let e2m: Double  // 1 − e²
    @usableFromInline let scaledRectifyingRadius: Double  // k0 · A
    @usableFromInline let alpha: (Double, Double, Double, Double, Double, Double)
    @usableFromInline let beta: (Double, Double, Double, Double, Double, Double)

    /// The UTM projection on WGS84 (k0 = 0.9996).
    public static let utm = TransverseMercator(ellipsoid: .wgs84, scaleFactor: 0.9996)

    /// Precomputes the series coefficients for an ellipsoid and central scale factor.
    public init(ellipsoid: Ellipsoid, scaleFactor: Double) {
        self.ellipsoid = ellipsoid
        self.scaleFactor = scaleFactor
        let c = KruegerCoefficients(thirdFlattening: ellipsoid.thirdFlattening)
        e = ellipsoid.eccentricitySquared.squareRoot()
        e2m = 1 - ellipsoid.eccentricitySquared
        scaledRectifyingRadius = scaleFactor * ellipsoid.equatorialRadius / (1 + c.n) * c.rectifyingFactor
        alpha = (c.alpha[0], c.alpha[1], c.alpha[2], c.alpha[3], c.alpha[4], c.alpha[5])
        beta = (c.beta[0], c.beta[1], c.beta[2], c.beta[3], c.beta[4], c.beta[5])
    }

    /// Projects latitude and longitude offset from the central meridian (both degrees) to x (east) and y (north) in metres,
    /// without false easting or northing.
    @inlinable
    public func forward(latitude: Double, longitudeFromCentralMeridian dlon: Double) -> (x: Double, y: Double) {
        let phi = latitude * .pi / 180, lam = dlon * .pi / 180
        let cosPhi = cos(phi), sinPhi = sin(phi)
        let cosLam = cos(lam), sinLam = sin(lam)
        // Conformal latitude τ' = tan χ from τ = tan φ, written with sin/cos to stay finite at the poles.
        let tau = sinPhi / Swift.max(cosPhi, 1e-300)
        let sig = sinh(e * atanh(e * sinPhi))
        let taup = tau * (1 + sig * sig).squareRoot() - sig * (1 + tau * tau).squareRoot()
        let xip = atan2(taup, cosLam)
        let etap = asinh(sinLam / (taup * taup + cosLam * cosLam).squareRoot())
        let (dxi, deta) = clenshawSin(alpha, xi: xip, eta: etap)
        return (scaledRectifyingRadius * (etap + deta), scaledRectifyingRadius * (xip + dxi))
    }

    /// Inverse projection of x (east) and y (north), metres from the central meridian and equator, to latitude and
    /// longitude offset from the central meridian, in degrees.
    @inlinable
    public func inverse(x: Double, y: Double) -> (latitude: Double, longitudeFromCentralMeridian: Double) {
        let xi = y / scaledRectifyingRadius, eta = x / scaledRectifyingRadius
        let (dxi, deta) = clenshawSin(beta, xi: xi, eta: eta)
        let xip = xi - dxi, etap = eta - deta
        let sinhEtap = sinh(etap), cosXip = cos(xip)
        let lam = atan2(sinhEtap, cosXip)
        let taup = sin(xip) / (sinhEtap * sinhEtap + cosXip * cosXip).squareRoot()
        let tau = conformalToGeographic(taup)
        return (atan(tau) * 180 / .pi, lam * 180 / .pi)
    }

    /// Newton's method for τ given τ' (Karney 2011, eqs. 19–21); converges in 2–3 iterations.
    @inlinable
    func conformalToGeographic(_ taup: Double) -> Double {
        var tau = taup / e2m
        for _ in 0..<5 {
            let s1 = (1 + tau * tau).squareRoot()
            let sig = sinh(e * atanh(e * tau / s1))
            let taupi = tau * (1 + sig * sig).squareRoot() - sig * s1
            let dtau = (taup - taupi) / (1 + taupi * taupi).squareRoot() * (1 + e2m * tau * tau) / (e2m * s1)
            tau += dtau
            if !(abs(dtau) >= 1e-15 * Swift.max(1, abs(tau))) { break }
        }
        return tau
    }

    /// Σ c_j sin(2j ζ) for complex ζ = ξ + iη by Clenshaw's recurrence; returns (real, imaginary) parts,
    /// which are Σ c_j sin(2jξ) cosh(2jη) and Σ c_j cos(2jξ) sinh(2jη).
    @inlinable
    func clenshawSin(_ c: (Double, Double, Double, Double, Double, Double), xi: Double, eta: Double) -> (Double, Double)
    {
        let s2 = sin(2 * xi), c2 = cos(2 * xi)
        let ex = exp(2 * eta)
        let ch2 = (ex + 1 / ex) / 2, sh2 = (ex - 1 / ex) / 2
        // a = 2 cos(2ζ) = 2(cos2ξ cosh2η − i sin2ξ sinh2η)
        let ar = 2 * c2 * ch2, ai = -2 * s2 * sh2
        var yr1 = 0.0, yi1 = 0.0, yr2 = 0.0, yi2 = 0.0
        @inline(__always) func stepRecurrence(_ ck: Double) {
            let yr = ar * yr1 - ai * yi1 - yr2 + ck
            let yi = ar * yi1 + ai * yr1 - yi2
            yr2 = yr1
            yi2 = yi1
            yr1 = yr
            yi1 = yi
        }
        stepRecurrence(c.5)
        stepRecurrence(c.4)
        stepRecurrence(c.3)
        stepRecurrence(c.2)
        stepRecurrence(c.1)
        stepRecurrence(c.0)
        // sum = sin(2ζ) · y1, sin(2ζ) = sin2ξ cosh2η + i cos2ξ sinh2η
        let sr = s2 * ch2, si = c2 * sh2
        return (sr * yr1 - si * yi1, sr * yi1 + si * yr1)
    }
}

/// Krüger series coefficients to order n⁶ (Karney 2011, eqs. 14, 35, 36).
struct KruegerCoefficients {
    let n: Double
    /// A(1+n)/a = 1 + n²/4 + n⁴/64 + n⁶/256.
    let rectifyingFactor: Double
    /// Forward series α1…α6.
    let alpha: [Double]
    /// Inverse series β1…β6.
    let beta: [Double]

    init(thirdFlattening n: Double) {
        self.n = n
        let n2 = n * n, n3 = n2 * n, n4 = n3 * n, n5 = n4 * n, n6 = n5 * n
        rectifyingFactor = 1 + n2 / 4 + n4 / 64 + n6 / 256
        alpha = [
            n / 2 - 2 * n2 / 3 + 5 * n3 / 16 + 41 * n4 / 180 - 127 * n5 / 288 + 7891 * n6 / 37800,
            13 * n2 / 48 - 3 * n3 / 5 + 557 * n4 / 1440 + 281 * n5 / 630 - 1983433 * n6 / 1935360,
            61 * n3 / 240 - 103 * n4 / 140 + 15061 * n5 / 26880 + 167603 * n6 / 181440,
            49561 * n4 / 161280 - 179 * n5 / 168 + 6601661 * n6 / 7257600,
            34729 * n5 / 80640 - 3418889 * n6 / 1995840,
            212378941 * n6 / 319334400,
        ]
        beta = [
            n / 2 - 2 * n2 / 3 + 37 * n3 / 96 - n4 / 360 - 81 * n5 / 512 + 96199 * n6 / 604800,
            n2 / 48 + n3 / 15 - 437 * n4 / 1440 + 46 * n5 / 105 - 1118711 * n6 / 3870720,
            17 * n3 / 480 - 37 * n4 / 840 - 209 * n5 / 4480 + 5569 * n6 / 90720,
            4397 * n4 / 161280 - 11 * n5 / 504 - 830251 * n6 / 7257600,
            4583 * n5 / 161280 - 108847 * n6 / 3991680,
            20648693 * n6 / 638668800,
        ]
    }
}
