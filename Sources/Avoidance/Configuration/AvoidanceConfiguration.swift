import Flight

/// Settings of collision avoidance, shared by detection (``AirspaceSnapshot``) and resolution (``AvoidanceCore``).
///
/// The separation minima are the MRS UAV system's defaults: two drones conflict when, at the same time, they are
/// closer than 5 m horizontally while less than 2.9 m apart vertically. Resolution plans with a buffer on top
/// (1 m and 0.6 m) so that model error, GPS error and message latency do not eat into the minima.
public struct AvoidanceConfiguration: Sendable, Hashable, Codable {
    /// Horizontal separation minimum, metres.
    public var horizontalSeparation = 5.0
    /// Vertical separation minimum, metres: closer than this vertically *and* closer than the horizontal minimum is a
    /// conflict.
    public var verticalSeparation = 2.9
    /// Added to the horizontal minimum when planning, metres.
    public var horizontalBuffer = 1.0
    /// Added to the vertical minimum when planning, metres.
    public var verticalBuffer = 0.6
    /// Look-ahead, seconds (the length of a shared prediction).
    public var horizon = 8.0
    /// Time step of the common grid that predictions are compared on, seconds.
    public var step = 0.2
    /// A prediction older than this is stale and treated conservatively, seconds.
    public var staleAfter = 1.0
    /// A prediction older than this is dropped, seconds.
    public var forgetAfter = 3.0
    /// Courtesy window, seconds: no drone, whatever its rank, adopts a plan that conflicts with another avoiding
    /// drone's current prediction sooner than this. It gives the lower-ranked drone time to see the change (publication
    /// period plus latency) and to move away (about 2 s to climb a layer).
    public var reactionTime = 3.0
    /// Vertical distance between altitude layers, metres (more than the vertical minimum plus buffer).
    public var layerSpacing = 4.0
    /// Altitude layers tried above and below the goal's altitude.
    public var layers = 5
    /// Reduced speeds tried, as fractions of the commanded speed.
    public var speedFactors: [Double] = [0.7, 0.45, 0.25]
    /// Spacing of the parking lattice around a goal another drone holds, metres.
    public var parkingSpacing = 6.5
    /// How fast a drone that is not avoiding, or whose prediction is stale, may deviate from its prediction,
    /// m/s² (horizontal); its swept volume grows by ½·a·t² from the time of the prediction.
    public var uncertaintyAcceleration = 2.0
    /// The same vertically, m/s².
    public var verticalUncertaintyAcceleration = 1.0
    /// Largest horizontal growth of such a volume, metres.
    public var maxHorizontalInflation = 6.0
    /// Largest vertical growth of such a volume, metres.
    public var maxVerticalInflation = 3.0
    /// Lowest altitude resolution sends a drone to when there is no geofence, local up metres.
    public var minimumAltitude = 2.0
    /// The area drones must stay in (nil: unlimited).
    public var geofence: Geofence?
    /// Horizontal distance resolution keeps from the geofence's edges, metres.
    public var fenceMargin = 1.0
    /// Vertical distance resolution keeps from the geofence's floor and ceiling, metres.
    public var fenceAltitudeMargin = 0.5
    /// The vehicles' performance limits (used to model the own drone's plans).
    public var limits = VehicleLimits()
    /// Integration step of the internal motion model, seconds.
    public var modelStep = 0.1
    /// A drone keeps its current plan while it is safe and costs at most this many seconds more than the best plan.
    public var hysteresis = 1.0
    /// While the current plan stays safe, better plans are looked for at most this often, seconds.
    public var reconsiderEvery = 1.0

    /// Defaults as documented on each property.
    public init() {}

    /// Number of grid intervals over the horizon (40 by default).
    public var steps: Int { max(1, Int((horizon / step).rounded())) }
    /// Horizontal separation plus buffer.
    var planningHorizontal: Double { horizontalSeparation + horizontalBuffer }
    /// Vertical separation plus buffer.
    var planningVertical: Double { verticalSeparation + verticalBuffer }
}

/// The scalars the hot loops need, copied out of ``AvoidanceConfiguration`` once: the configuration holds arrays, and
/// copying it (as unoptimized builds do at every `let c = configuration`) costs reference counting.
struct Tuning: Sendable, Hashable {
    var horizontalSeparation, verticalSeparation, planningHorizontal, planningVertical: Double
    var staleAfter, forgetAfter, step: Double
    var halfUncertainty, halfVerticalUncertainty, maxHorizontalInflation, maxVerticalInflation: Double

    init(_ c: AvoidanceConfiguration) {
        horizontalSeparation = c.horizontalSeparation
        verticalSeparation = c.verticalSeparation
        planningHorizontal = c.planningHorizontal
        planningVertical = c.planningVertical
        staleAfter = c.staleAfter
        forgetAfter = c.forgetAfter
        step = c.step
        halfUncertainty = 0.5 * c.uncertaintyAcceleration
        halfVerticalUncertainty = 0.5 * c.verticalUncertaintyAcceleration
        maxHorizontalInflation = c.maxHorizontalInflation
        maxVerticalInflation = c.maxVerticalInflation
    }
}
