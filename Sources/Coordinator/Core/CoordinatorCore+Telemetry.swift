import MeshTypes

/// One vehicle in the fleet picture.
public struct FleetVehicle: Hashable, Sendable {
    /// The drone's node.
    public var node: NodeID
    /// The UAV number it published (nil if it had none).
    public var uavNumber: UInt8?
    /// The latest state.
    public var state: VehicleState
    /// Time since the state was received (zero for this node's own vehicle at the time it was given).
    public var age: Duration
    /// Whether the age exceeds `telemetryStaleAfter`.
    public var isStale: Bool
    /// The station holding the drone's control lease, as the drone's latest advertisement says (this drone's own
    /// lease for its own vehicle); nil when no station controls it or its advertisement is not known.
    public var controller: NodeID?
}

/// One drone's predicted trajectory in the airspace picture.
public struct AirspaceEntry: Hashable, Sendable {
    /// The drone's node.
    public var node: NodeID
    /// Its UAV number (nil if it had none).
    public var uavNumber: UInt8?
    /// The prediction.
    public var prediction: TrajectoryPrediction
    /// Time since it was received.
    public var age: Duration

    public init(node: NodeID, uavNumber: UInt8?, prediction: TrajectoryPrediction, age: Duration) {
        self.node = node
        self.uavNumber = uavNumber
        self.prediction = prediction
        self.age = age
    }
}

extension CoordinatorCore {
    /// Drone: the local vehicle's latest state. Published as telemetry every `telemetryInterval` on ticks.
    public mutating func onLocalVehicleState(_ state: VehicleState, now: MeshInstant) -> [Directive] {
        localState = state
        fleet[nodeID] = HeardSample(
            uavNumber: uavNumber ?? 0, value: state, receivedAt: now, incarnation: incarnation, sequence: 0)
        return []
    }

    /// Drone: the local vehicle's latest predicted trajectory. Published every `predictionInterval` on ticks, or at
    /// once with `publishNow` (the drone changed its plan to avoid another: the others must see it without delay).
    public mutating func onLocalPrediction(
        _ prediction: TrajectoryPrediction, publishNow: Bool = false, now: MeshInstant
    ) -> [Directive] {
        localPrediction = prediction
        predictions[nodeID] = HeardSample(
            uavNumber: uavNumber ?? 0, value: prediction, receivedAt: now, incarnation: incarnation, sequence: 0)
        guard publishNow, role == .drone, isFlying else { return [] }
        nextPredictionAt = max(now + predictionInterval, nextPredictionAt)
        return publish(prediction, now: now)
    }

    /// Sends a target (one sample of a follow-me stream) to the drones it addresses.
    public mutating func sendTarget(_ target: Target, now: MeshInstant) -> [Directive] {
        var out = sendRouted(.target(target), to: .broadcast, now: now)
        if role == .drone, let n = uavNumber, target.address.includes(n) {
            out.append(.applyTarget(target, from: nodeID))
        }
        return out
    }

    /// Every vehicle whose telemetry this node holds, by UAV number then NodeID.
    public func fleetPicture(now: MeshInstant) -> [FleetVehicle] {
        fleet.keys.compactMap { fleetVehicle($0, now: now) }.sorted {
            ($0.uavNumber ?? 255, $0.node) < ($1.uavNumber ?? 255, $1.node)
        }
    }

    /// Predictions no older than `predictionMaxAge`, by UAV number then NodeID.
    public func airspace(now: MeshInstant) -> [AirspaceEntry] {
        predictions.compactMap { id, p in
            let age = now - p.receivedAt
            guard age <= configuration.predictionMaxAge else { return nil }
            return AirspaceEntry(
                node: id, uavNumber: p.uavNumber == 0 ? nil : p.uavNumber, prediction: p.value, age: age)
        }.sorted { ($0.uavNumber ?? 255, $0.node) < ($1.uavNumber ?? 255, $1.node) }
    }

    /// The node's own lateness at `now` (how far behind it handles datagrams and timers): sets the publication pace
    /// (``PublicationPace``); returns its change, if any, for the log.
    public mutating func onLateness(_ lateness: Duration, now: MeshInstant) -> PublicationPace.Change? {
        pace.onLateness(lateness, now: now)
    }

    /// Telemetry's interval at the current pace.
    public var telemetryInterval: Duration { configuration.telemetryInterval * pace.level.telemetryFactor }
    /// Predictions' interval at the current pace.
    public var predictionInterval: Duration { configuration.predictionInterval * pace.level.predictionFactor }

    /// Publishes telemetry and predictions that are due, and drops expired predictions.
    mutating func publishDue(now: MeshInstant) -> [Directive] {
        var out: [Directive] = []
        if role == .drone, let s = localState, now >= nextTelemetryAt {
            nextTelemetryAt = max(nextTelemetryAt + telemetryInterval, now)
            // Only stations keep fleet pictures: telemetry goes to each reachable station along its route, so a
            // fleet of N drones costs N messages per period per station rather than a flood through every node.
            refreshRoutes()
            let telemetry = MeshPayload.telemetry(uavNumber: uavNumber ?? 0, state: s)
            // Rates fall with distance: a station more than `telemetryFullRateHops` away gets every second period
            // (5 Hz), unless it holds this drone's lease (its operator flies it).
            let everyOther = telemetryRounds % 2 == 1
            telemetryRounds &+= 1
            let far = configuration.telemetryFullRateHops
            var stations: [NodeID] = []
            for station in database.values.filter({ $0.role == .station && $0.origin != nodeID }).map(\.origin).sorted()
            {
                guard let route = routesStore[station] else { continue }
                if everyOther, far > 0, Int(route.hops) > far, lease?.holder != station { continue }
                stations.append(station)
            }
            // One message for all of them: a copy per next hop, split where their routes part (`routeCopies`), not
            // one copy per station along a shared route (two stations side by side: half the hops).
            let together = configuration.sharesTelemetryCopies ? Destination.maxNodes : 1
            for some in stations.chunks(of: together) {
                out += sendRouted(telemetry, to: some.count == 1 ? .node(some[0]) : .nodes(some), now: now)
            }
        }
        // The airspace picture holds airborne drones: a drone on the ground publishes no prediction (a fleet waiting
        // on the ground costs its stations telemetry only).
        if role == .drone, isFlying, let p = localPrediction, now >= nextPredictionAt {
            nextPredictionAt = max(nextPredictionAt + predictionInterval, now)
            out += publish(p, now: now)
        }
        if !predictions.isEmpty {
            let expired = predictions.filter { now - $0.value.receivedAt > configuration.predictionMaxAge }.map(\.key)
            for id in expired { predictions[id] = nil }
        }
        return out
    }

    /// Floods this drone's prediction to the mesh. The index (which relays far from the path thin by: index 0
    /// beyond 200 m, even ones beyond 100 m) counts publications at the full pace; at a reduced pace it counts in
    /// twos (0, 2, 0, 2 …), so that far relays still pass one on at least every 0.8 s, inside the receivers' 1 s age
    /// limit (every fourth of 2.5 Hz would be 1.6 s).
    private mutating func publish(_ prediction: TrajectoryPrediction, now: MeshInstant) -> [Directive] {
        var numbered = prediction
        let stride: UInt8 = pace.level == .full ? 1 : 2
        if stride == 2 && predictionsPublished & 1 == 1 { predictionsPublished &+= 1 }
        numbered.index = predictionsPublished & 3
        predictionsPublished &+= stride
        return sendRouted(.prediction(uavNumber: uavNumber ?? 0, prediction: numbered), to: .broadcast, now: now)
    }

    mutating func receiveTelemetry(_ env: Envelope, _ n: UInt8, _ s: VehicleState, now: MeshInstant) -> [Directive] {
        let kept = HeardSample.keep(
            HeardSample(
                uavNumber: n, value: s, receivedAt: now, incarnation: env.originIncarnation, sequence: env.sequence),
            from: env.origin, in: &fleet)
        return kept && reportsTelemetryArrivals ? [.telemetryArrived(from: env.origin)] : []
    }

    /// One vehicle of the fleet picture (nil if this node has no telemetry from it).
    public func fleetVehicle(_ node: NodeID, now: MeshInstant) -> FleetVehicle? {
        guard let s = fleet[node] else { return nil }
        let age = now - s.receivedAt
        return FleetVehicle(
            node: node, uavNumber: s.uavNumber == 0 ? nil : s.uavNumber, state: s.value, age: age,
            isStale: age > configuration.telemetryStaleAfter,
            controller: node == nodeID ? lease?.holder : database[node]?.controller)
    }

    mutating func receivePrediction(_ env: Envelope, _ n: UInt8, _ p: TrajectoryPrediction, now: MeshInstant) {
        HeardSample.keep(
            HeardSample(
                uavNumber: n, value: p, receivedAt: now, incarnation: env.originIncarnation, sequence: env.sequence),
            from: env.origin, in: &predictions)
    }

    mutating func receiveTarget(_ env: Envelope, _ t: Target) -> [Directive] {
        guard role == .drone, let n = uavNumber, t.address.includes(n) else { return [] }
        if let (inc, seq) = latestTargetSequence[env.origin], inc == env.originIncarnation, seq >= env.sequence {
            return []
        }
        latestTargetSequence[env.origin] = (env.originIncarnation, env.sequence)
        return [.applyTarget(t, from: env.origin)]
    }
}
