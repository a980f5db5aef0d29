import AutopilotEmulation
import Avoidance
import Coordinator
import Flight
import Foundation
import MeshTypes
import Vehicles

/// Drones that take off, then all fly to their goals at once so that their paths cross: head-on, at 90°, or
/// across an antipodal circle; optionally the pilot of one takes it over mid-crossing.
public struct CrossingScenario: Sendable, Hashable {
    /// The pilot's RC mode switch on one autopilot drone this long after the gotos, seconds.
    public struct Takeover: Sendable, Hashable {
        public var drone: Int
        public var after: Double
        public init(drone: Int, after: Double) {
            self.drone = drone
            self.after = after
        }
    }

    public var name: String
    public var kinds: [FleetHarness.Kind]
    /// Homes and goals, metres east and north of the origin (up is ignored: everyone flies at `altitude`).
    public var starts: [Vector3]
    public var goals: [Vector3]
    /// Flight altitude above home, metres: the same for all, so only horizontal manoeuvres or layers separate them.
    public var altitude = 10.0
    /// The gotos' speed, m/s.
    public var speed = 4.0
    public var takeover: Takeover?
    /// Everyone (but a taken-over drone) must arrive within this.
    public var timeLimit: Duration = .seconds(120)

    public init(name: String, kinds: [FleetHarness.Kind], starts: [Vector3], goals: [Vector3]) {
        self.name = name
        self.kinds = kinds
        self.starts = starts
        self.goals = goals
    }

    /// Two drones 80 m apart swapping ends.
    public static func headOn(_ a: FleetHarness.Kind, _ b: FleetHarness.Kind) -> Self {
        Self(
            name: "head-on \(a)/\(b)", kinds: [a, b], starts: [Vector3(-40, 0, 0), Vector3(40, 0, 0)],
            goals: [Vector3(40, 0, 0), Vector3(-40, 0, 0)])
    }

    /// Two drones crossing at 90°, reaching the crossing point together.
    public static func crossing(_ a: FleetHarness.Kind, _ b: FleetHarness.Kind) -> Self {
        Self(
            name: "90° crossing \(a)/\(b)", kinds: [a, b], starts: [Vector3(-40, 0, 0), Vector3(0, -40, 0)],
            goals: [Vector3(40, 0, 0), Vector3(0, 40, 0)])
    }

    /// Drones evenly on a circle of `radius` metres, each flying to the opposite point.
    public static func antipodal(_ kinds: [FleetHarness.Kind], radius: Double = 30, name: String? = nil) -> Self {
        let n = Double(kinds.count)
        let starts = kinds.indices.map { i -> Vector3 in
            let a = 2 * Double.pi * Double(i) / n
            return Vector3(radius * sin(a), radius * cos(a), 0)
        }
        return Self(
            name: name ?? "antipodal circle of \(kinds.count) (\(kinds.map(\.description).joined(separator: ", ")))",
            kinds: kinds, starts: starts, goals: starts.map { Vector3(-$0.x, -$0.y, 0) })
    }

    /// The same scenario with every drone simulated: the baseline the autopilot and mixed fleets are compared with.
    public var simulatedOnly: Self {
        var s = self
        s.kinds = kinds.map { _ in .simulated }
        s.name = name + " (simulated only)"
        s.takeover = nil
        return s
    }

    /// The straight-line flight time of drone `i` at the goto speed, seconds.
    public func straightLineSeconds(_ i: Int) -> Double { (goals[i] - starts[i]).horizontalLength / speed }
}

/// What a crossing run measured on true positions, from the gotos on. Separation as avoidance's minima define it (and
/// as `AvoidanceSimulation` counts it): a pair closer than the horizontal minimum while closer than the vertical one;
/// each pair entering the minima counts once.
public struct CrossingOutcome: Sendable {
    /// Smallest horizontal distance between two cooperating drones while vertically inside the minima, metres.
    public var minimumSeparation = Double.infinity
    /// Losses of separation between cooperating drones, and their total time (seconds, summed over pairs).
    public var losses = 0
    public var lossSeconds = 0.0
    /// The same against the taken-over drone (whole run).
    public var minimumToNonCooperating = Double.infinity
    public var nonCooperativeLosses = 0
    /// Seconds from the gotos to each drone's arrival (nil: did not arrive; a taken-over drone never does).
    public var arrivals: [Double?] = []
    /// Straight-line flight times at the goto speed.
    public var straightLine: [Double] = []
    /// Whether avoidance changed each drone's plan at some point.
    public var maneuvered: [Bool] = []
    /// Where each drone ended.
    public var finalPositions: [Vector3] = []

    /// Whether every cooperating drone arrived.
    public func allArrived(except: Int? = nil) -> Bool {
        arrivals.indices.allSatisfy { $0 == except || arrivals[$0] != nil }
    }

    /// The mean over arrived drones of arrival time ÷ straight-line time (1: no time lost at all).
    public var extraTime: Double {
        let ratios = arrivals.indices.compactMap { i in arrivals[i].map { $0 / straightLine[i] } }
        return ratios.isEmpty ? .nan : ratios.reduce(0, +) / Double(ratios.count)
    }
}

extension CrossingScenario {
    /// Flies the scenario: every drone takes off to `altitude`, then all get their goto at once; runs until every
    /// cooperating drone arrived or `timeLimit`. `prepare` may set up the harness first (a transport).
    public func run(
        realism: FleetHarness.Realism = .realistic, avoid: Bool = true,
        configuration: AvoidanceConfiguration = .init(), seed: UInt64 = 1,
        prepare: (inout FleetHarness) -> Void = { _ in }
    ) throws -> CrossingOutcome {
        var h = try FleetHarness(
            kinds: kinds, homes: starts, avoid: avoid, configuration: configuration, realism: realism, seed: seed)
        prepare(&h)
        try h.takeOff(altitude: altitude)
        return try fly(&h, configuration: configuration)
    }

    /// The crossing itself on an airborne fleet.
    public func fly(_ h: inout FleetHarness, configuration: AvoidanceConfiguration = .init()) throws
        -> CrossingOutcome
    {
        let n = kinds.count
        let start = h.now
        if let t = takeover, var ap = h.drones[t.drone].autopilot {
            ap.inject(.pilotTakeover(at: ap.sinceBoot(start.seconds + t.after)))
            h.replaceAutopilot(t.drone, ap)
        }
        let ids = (0..<n).map { i in
            h.execute(
                i, .goto(h.geo(Vector3(goals[i].x, goals[i].y, altitude)), speedCmS: UInt16((speed * 100).rounded())))
        }
        var o = CrossingOutcome()
        o.arrivals = Array(repeating: nil, count: n)
        o.straightLine = (0..<n).map(straightLineSeconds)
        o.maneuvered = Array(repeating: false, count: n)
        var inside = Set<Int>()
        let cooperating = (0..<n).filter { $0 != takeover?.drone }
        let dt = h.cycle.secondsDouble
        let end = start + timeLimit
        while h.now < end && !cooperating.allSatisfy({ o.arrivals[$0] != nil }) {
            h.step()
            let positions = (0..<n).map { h.position($0) }
            for i in 0..<n {
                if o.arrivals[i] == nil, h.drones[i].completed(ids[i]) { o.arrivals[i] = (h.now - start).secondsDouble }
                if Self.maneuvers(h.drones[i].pilot.decision) { o.maneuvered[i] = true }
            }
            for i in 0..<n {
                for j in (i + 1)..<n {
                    let a = positions[i], b = positions[j]
                    let vertical = abs(a.z - b.z) < configuration.verticalSeparation
                    let dh = (a - b).horizontalLength
                    let violating = vertical && dh < configuration.horizontalSeparation
                    let key = i * n + j
                    let mixed = i == takeover?.drone || j == takeover?.drone
                    if vertical {
                        if mixed {
                            o.minimumToNonCooperating = min(o.minimumToNonCooperating, dh)
                        } else {
                            o.minimumSeparation = min(o.minimumSeparation, dh)
                        }
                    }
                    if violating {
                        if !inside.contains(key) {
                            if mixed { o.nonCooperativeLosses += 1 } else { o.losses += 1 }
                        }
                        if !mixed { o.lossSeconds += dt }
                        inside.insert(key)
                    } else {
                        inside.remove(key)
                    }
                }
            }
        }
        o.finalPositions = (0..<n).map { h.position($0) }
        return o
    }

    /// Whether a decision changes the mission's own plan.
    static func maneuvers(_ d: AvoidanceDecision) -> Bool {
        switch d.maneuver {
        case .notAvoiding, .nominal: return false
        default: return true
        }
    }
}
