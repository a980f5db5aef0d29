import MeshTypes

/// A datagram on a simulated link, delivered in arrival order (ties in sending order).
struct InFlight: Comparable {
    var arrival: MeshInstant
    var order: Int
    var to: Int
    var bytes: [UInt8]

    static func < (a: InFlight, b: InFlight) -> Bool { (a.arrival, a.order) < (b.arrival, b.order) }
}
