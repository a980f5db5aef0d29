import Foundation

extension TransverseMercator {
    /// The same Krüger forward series evaluated the textbook way: coefficients recomputed from the ellipsoid on
    /// every call and each of the 6 terms summed with its own sin/cos/sinh/cosh. Same result as
    /// ``forward(latitude:longitudeFromCentralMeridian:)`` to rounding; kept as the baseline that benchmarks compare against.
    public static func naiveForward(
        ellipsoid: Ellipsoid, scaleFactor: Double,
        latitude: Double, longitudeFromCentralMeridian dlon: Double
    ) -> (x: Double, y: Double) {
        let c = KruegerCoefficients(thirdFlattening: ellipsoid.thirdFlattening)
        let e = ellipsoid.eccentricitySquared.squareRoot()
        let a = ellipsoid.equatorialRadius / (1 + c.n) * c.rectifyingFactor
        let phi = latitude * .pi / 180, lam = dlon * .pi / 180
        let t = tan(phi)
        let sig = sinh(e * atanh(e * t / (1 + t * t).squareRoot()))
        let taup = t * (1 + sig * sig).squareRoot() - sig * (1 + t * t).squareRoot()
        let xip = atan2(taup, cos(lam))
        let etap = asinh(sin(lam) / (taup * taup + cos(lam) * cos(lam)).squareRoot())
        var xi = xip, eta = etap
        for j in 1...6 {
            let k = 2 * Double(j)
            xi += c.alpha[j - 1] * sin(k * xip) * cosh(k * etap)
            eta += c.alpha[j - 1] * cos(k * xip) * sinh(k * etap)
        }
        return (scaleFactor * a * eta, scaleFactor * a * xi)
    }
}
