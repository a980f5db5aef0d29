import Avoidance
import ControlProtocol
import Coordinator
import Flight
import Geodesy
import MeshTypes

/// Collision avoidance above a ``Vehicle``, the same for every kind: each control cycle it asks the vehicle what it
/// flies (its ownship), decides against the other drones' tracks, and hands the decision's adjustment back. Manual
/// control suspends avoidance for a second after each sample (the pilot flies, and the prediction says so).
public struct VehiclePilot: Sendable {
    /// The vehicle flown.
    public private(set) var vehicle: any Vehicle
    /// Collision avoidance (nil: off, or the vehicle cannot be adjusted).
    public private(set) var avoidance: AvoidanceCore?
    /// The latest avoidance decision.
    public private(set) var decision: AvoidanceDecision = .notAvoiding
    /// Manual control suspends avoidance until this time, seconds.
    private var manualUntil = -Double.infinity
    /// Avoidance waiting for the vehicle's local map (an autopilot's first position).
    var pendingAvoidance: AvoidancePlan?
    /// How often the prediction is published (`[coordinator] prediction_hz`), and when next.
    let predictionInterval: Duration
    var nextPredictionAt = MeshInstant(nanoseconds: 0)
    /// The other drones' paths on the vehicle's map, projected once per published path.
    var trackCache = LocalTrackCache()

    /// A pilot for `vehicle`, avoiding with `avoidance` if the vehicle can be adjusted.
    public init(vehicle: any Vehicle, avoidance: AvoidanceCore?, predictionInterval: Duration = .milliseconds(200)) {
        self.vehicle = vehicle
        self.avoidance = vehicle.capabilities.contains(.avoidance) ? avoidance : nil
        self.predictionInterval = predictionInterval
    }

    /// A pilot for `vehicle` flying `plan` (nil: no avoidance). If the vehicle's map is known now (the simulator),
    /// the plan is placed on it at once and a geofence that does not fit it throws; otherwise (an autopilot) it is
    /// placed on the first cycle that knows the map.
    public init(vehicle: any Vehicle, plan: AvoidancePlan?, predictionInterval: Duration) throws {
        self.init(vehicle: vehicle, avoidance: nil, predictionInterval: predictionInterval)
        guard let plan, vehicle.capabilities.contains(.avoidance) else { return }
        if let frame = vehicle.frame {
            avoidance = try plan.core(on: frame)
        } else {
            pendingAvoidance = plan
        }
    }

    /// Turns avoidance on once the vehicle's frame is known (an autopilot's after its first position report).
    public mutating func enableAvoidance(_ core: AvoidanceCore) {
        if vehicle.capabilities.contains(.avoidance) { avoidance = core }
    }

    /// Flies with the geofence `corners` (latitude/longitude; none: no fence) between `altitudes` (metres above home)
    /// from the next cycle on, in place of the one flown now: a station announced it. False when this drone flies no
    /// fence at all (collision avoidance, which keeps it inside, is off or the vehicle cannot be steered). An
    /// autopilot whose map is not known yet takes it with its first position.
    /// - Throws: ``GeofenceError`` when the fence cannot be placed on the vehicle's map (the fence flown is kept).
    public mutating func replaceGeofence(_ corners: [GeodeticCoordinate], altitudes: ClosedRange<Double>)
        throws(GeofenceError) -> Bool
    {
        if var core = avoidance, let frame {
            let fence =
                corners.isEmpty
                ? nil
                : try Geofence(
                    corners: corners, origin: frame, minAltitude: altitudes.lowerBound,
                    maxAltitude: altitudes.upperBound)
            core.replaceGeofence(fence)
            avoidance = core
            return true
        }
        guard pendingAvoidance != nil else { return false }
        pendingAvoidance?.geofence = corners
        pendingAvoidance?.geofenceAltitudes = altitudes
        return true
    }

    /// Whether the drone avoids others right now (what its prediction tells them).
    public var isAvoiding: Bool {
        if case .notAvoiding = decision.maneuver { return false }
        return avoidance != nil
    }

    /// The state published as telemetry.
    public var telemetry: Coordinator.VehicleState? { vehicle.telemetry }

    /// The prediction published to the airspace picture, marked as avoiding while avoidance flies the drone.
    public func prediction(now: MeshInstant) -> TrajectoryPrediction? {
        vehicle.prediction(avoiding: isAvoiding, now: now)
    }

    /// The local frame avoidance works in; nil until the vehicle knows where it is.
    public var frame: MapOrigin? { vehicle.frame }

    // MARK: - Avoidance

    /// One avoidance cycle against the other drones' `tracks` (in ``frame``, seconds on the vehicle's clock): the
    /// decision becomes the vehicle's adjustment. `changed` is true when the plan changed, so the new prediction is
    /// published at once.
    public mutating func avoid(tracks: [AirspaceTrack], uavNumber: Int, tiebreak: UInt64, now: MeshInstant)
        -> (changed: Bool, events: [VehicleEvent])
    {
        guard var core = avoidance else { return (false, []) }
        let t = Double(now.nanoseconds) / 1e9
        guard let own = vehicle.ownship(uavNumber: uavNumber, tiebreak: tiebreak, now: now, avoiding: t >= manualUntil)
        else { return (false, []) }
        decision = core.decide(own: own, airspace: tracks, now: t)
        avoidance = core
        let events = vehicle.adjust(decision.adjustment, now: now)
        return (decision.changed, events)
    }

    // MARK: - Inputs, passed to the vehicle

    public mutating func advance(to now: MeshInstant) -> [VehicleEvent] { vehicle.advance(to: now) }

    public mutating func receive(_ bytes: [UInt8], endOfDatagram: Bool, now: MeshInstant) -> [VehicleEvent] {
        vehicle.receive(bytes, endOfDatagram: endOfDatagram, now: now)
    }

    public mutating func execute(_ id: CommandID, _ command: Command, now: MeshInstant) -> [VehicleEvent] {
        vehicle.execute(id, command, now: now)
    }

    public mutating func applyTarget(_ location: GeoPoint, now: MeshInstant) -> [VehicleEvent] {
        vehicle.applyTarget(location, now: now)
    }

    /// Manual control: avoidance stands aside for a second after each sample (airborne), then the vehicle obeys it.
    public mutating func applyManualControl(_ sample: ManualControl, now: MeshInstant) -> [VehicleEvent] {
        var events: [VehicleEvent] = []
        if vehicle.telemetry.map({ $0.activity != .landed }) ?? false {
            manualUntil = Double(now.nanoseconds) / 1e9 + 1
            decision = .notAvoiding
            events += vehicle.adjust(nil, now: now)
        }
        return events + vehicle.applyManualControl(sample, now: now)
    }

    public mutating func failsafe(_ action: FailsafeAction, now: MeshInstant) -> [VehicleEvent] {
        vehicle.failsafe(action, now: now)
    }

    public mutating func setUAVNumber(_ number: UInt8?) -> [VehicleEvent] { vehicle.setUAVNumber(number) }

    public func linkStatus(now: MeshInstant) -> AutopilotReport? { vehicle.linkStatus(now: now) }
}
