import MeshTypes

extension CoordinatorCore {
    /// Sends `command` to the drone holding `uavNumber`. Answers come back as `.commandAnswer(id, …)` directives:
    /// immediately if the number is unknown or contested, else `accepted` then one final answer. The command is
    /// retransmitted until answered; the drone executes it at most once. With `start` (an instant on this node's
    /// clock) the drone starts it then, on its own clock (`accepted` then means scheduled): several drones sent the same
    /// `start` start together.
    public mutating func sendCommand(
        _ command: Command, toUAV number: UInt8, takeover: Bool = false, start: MeshInstant? = nil,
        now: MeshInstant
    ) -> (id: CommandID, directives: [Directive]) {
        commandCounter += 1
        let id = CommandID(origin: nodeID, originIncarnation: incarnation, counter: commandCounter)
        refreshRoutes()
        let target: NodeID
        let targetIncarnation: Incarnation
        switch resolve(uavNumber: number) {
        case .unknown:
            guard let heard = heardClaimant(of: number, now: now) else {
                return (id, [.commandAnswer(id, .rejected(.unknownUAVNumber(number)))])
            }
            (target, targetIncarnation) = heard
        case .contested: return (id, [.commandAnswer(id, .rejected(.contestedNumber(number)))])
        case .node(let n):
            target = n
            targetIncarnation = n == nodeID ? incarnation : database[n]!.incarnation
        }
        let request = CommandRequest(
            counter: commandCounter, uavNumber: number, targetIncarnation: targetIncarnation,
            takeover: takeover, command: command, start: start.map { .at($0) })
        outstanding[commandCounter] = OutstandingCommand(
            request: request, target: target, firstSent: now, acceptedAt: nil,
            nextRetransmit: now + configuration.commandRetransmitInterval,
            sentVia: nextHop(to: target))
        return (id, sendRouted(.command(request), to: .node(target), now: now))
    }

    /// Sends one manual-control sample to the drone holding `uavNumber` (unreliable, latest wins, not answered).
    /// Returns no directives if the number is unknown or contested.
    public mutating func sendManualControl(
        _ control: ManualControl, toUAV number: UInt8, takeover: Bool = false,
        now: MeshInstant
    ) -> [Directive] {
        refreshRoutes()
        let target: NodeID
        switch resolve(uavNumber: number) {
        case .node(let n): target = n
        case .unknown:
            guard let heard = heardClaimant(of: number, now: now) else { return [] }
            target = heard.node
        case .contested: return []
        }
        return sendRouted(
            .manualControl(uavNumber: number, takeover: takeover, control: control), to: .node(target), now: now)
    }

    /// The one drone whose fresh telemetry claims `number` while the link state does not yet name it, with the
    /// incarnation that telemetry came from. Telemetry relayed by a neighbour can arrive before the drone's own
    /// advertisement does (tens of milliseconds as a drone joins): the vehicle is already on the operator's screen, so
    /// a command to it is held and sent once a route appears instead of being refused as unknown.
    func heardClaimant(of number: UInt8, now: MeshInstant) -> (node: NodeID, incarnation: Incarnation)? {
        let heard = fleet.filter { id, s in
            s.uavNumber == number && id != nodeID && now - s.receivedAt <= configuration.telemetryStaleAfter
                && (database[id].map { $0.role == .drone && ($0.uavNumber ?? number) == number } ?? true)
        }
        guard heard.count == 1, let (id, sample) = heard.first else { return nil }
        return (id, sample.incarnation)
    }

    /// Drone: the vehicle's verdict on a command from `.executeCommand`.
    public mutating func onVehicleVerdict(_ id: CommandID, _ verdict: VehicleVerdict, now: MeshInstant) -> [Directive] {
        guard var record = commandRecords[id] else { return [] }
        if record.scheduled {
            // `accepted` went out when it was scheduled: a refusal at the start makes it fail.
            guard record.answer == .accepted, case .rejected(let why) = verdict else { return [] }
            record.answer = .failed("refused at its start: \(why)")
            record.finishedAt = now
            commandRecords[id] = record
            return answer(id, record.answer!, now: now)
        }
        guard record.answer == nil else { return [] }
        switch verdict {
        case .accepted:
            record.answer = .accepted
        case .rejected(let why):
            record.answer = .rejected(.vehicle(why))
            record.finishedAt = now
        }
        commandRecords[id] = record
        return answer(id, record.answer!, now: now)
    }

    /// Drone: how a command the vehicle accepted ended.
    public mutating func onVehicleCompletion(_ id: CommandID, _ completion: VehicleCompletion, now: MeshInstant)
        -> [Directive]
    {
        guard var record = commandRecords[id], record.answer == .accepted else { return [] }
        switch completion {
        case .completed: record.answer = .completed
        case .failed(let why): record.answer = .failed(why)
        }
        record.finishedAt = now
        commandRecords[id] = record
        return answer(id, record.answer!, now: now)
    }

    /// Commands this node sent that have no final answer yet, by counter.
    public var outstandingCommands: [CommandID] {
        outstanding.keys.sorted().map { CommandID(origin: nodeID, originIncarnation: incarnation, counter: $0) }
    }

    // MARK: Drone side

    mutating func answer(_ id: CommandID, _ a: CommandAnswer, now: MeshInstant) -> [Directive] {
        sendRouted(
            .commandAnswer(counter: id.counter, requesterIncarnation: id.originIncarnation, answer: a),
            to: .node(id.origin), now: now)
    }

    mutating func receiveCommand(_ env: Envelope, _ req: CommandRequest, now: MeshInstant) -> [Directive] {
        let id = CommandID(origin: env.origin, originIncarnation: env.originIncarnation, counter: req.counter)
        if let record = commandRecords[id] {
            // A retransmission: replay the latest answer, never execute again.
            guard let a = record.answer else { return [] }
            return answer(id, a, now: now)
        }
        func refuse(_ why: CommandRejection, _ core: inout CoordinatorCore) -> [Directive] {
            core.commandRecords[id] = CommandRecord(uavNumber: req.uavNumber, answer: .rejected(why), finishedAt: now)
            return core.answer(id, .rejected(why), now: now)
        }
        guard role == .drone, req.uavNumber == uavNumber else { return refuse(.unknownUAVNumber(req.uavNumber), &self) }
        guard req.targetIncarnation == incarnation else { return refuse(.targetRestarted, &self) }
        refreshRoutes()
        guard claimants(of: req.uavNumber).count == 1 else { return refuse(.contestedNumber(req.uavNumber), &self) }
        var start: MeshInstant?
        if let requested = req.start {
            switch checkStart(requested, now: now) {
            case .failure(let why): return refuse(.startTime(why.description), &self)
            case .success(let t): start = t
            }
        }
        var out: [Directive] = []
        switch leaseGate(origin: env.origin, takeover: req.takeover, now: now) {
        case .refused(let holderName): return refuse(.controlledBy(holderName), &self)
        case .granted(let directives): out = directives
        }
        // The newest command the drone takes wins: one still waiting for its start will not start.
        out += cancelScheduledCommands("cancelled before its start: superseded by \(req.command.summary)", now: now)
        if let start, start > now {
            commandRecords[id] = CommandRecord(
                uavNumber: req.uavNumber, answer: .accepted, finishedAt: nil, scheduled: true)
            scheduledCommands[id] = ScheduledCommand(command: req.command, start: start)
            out.append(.scheduleStart(id, at: start))
            out += answer(id, .accepted, now: now)
            return out
        }
        commandRecords[id] = CommandRecord(uavNumber: req.uavNumber, answer: nil, finishedAt: nil)
        out.append(.executeCommand(id, req.command))
        return out
    }

    mutating func receiveManualControl(
        _ env: Envelope, _ n: UInt8, _ takeover: Bool, _ m: ManualControl, now: MeshInstant
    ) -> [Directive] {
        guard role == .drone, n == uavNumber else { return [] }
        if let (inc, seq) = latestManualSequence[env.origin], inc == env.originIncarnation, seq >= env.sequence {
            return []
        }
        latestManualSequence[env.origin] = (env.originIncarnation, env.sequence)
        guard case .granted(var out) = leaseGate(origin: env.origin, takeover: takeover, now: now) else { return [] }
        out.append(.applyManualControl(m, from: env.origin))
        return out
    }

    // MARK: Origin side

    mutating func receiveAnswer(_ counter: UInt64, _ answer: CommandAnswer, now: MeshInstant) -> [Directive] {
        guard var o = outstanding[counter] else { return [] }
        let id = CommandID(origin: nodeID, originIncarnation: incarnation, counter: counter)
        var out: [Directive] = []
        switch answer {
        case .accepted:
            guard o.acceptedAt == nil else { return [] }
            noteControl(of: o.target, uavNumber: o.request.uavNumber, now: now)
            o.acceptedAt = now
            o.nextRetransmit = now + configuration.commandRetransmitIntervalAfterAccept
            outstanding[counter] = o
            return [.commandAnswer(id, .accepted)]
        case .completed, .failed:
            if o.acceptedAt == nil {
                noteControl(of: o.target, uavNumber: o.request.uavNumber, now: now)
                out.append(.commandAnswer(id, .accepted))
            }
        case .rejected(let why):
            if case .controlledBy = why { controlled[o.target] = nil }
        }
        outstanding[counter] = nil
        out.append(.commandAnswer(id, answer))
        return out
    }

    /// Retransmits commands whose timer ran out and gives up on those past their deadline.
    mutating func retransmitCommands(now: MeshInstant) -> [Directive] {
        var out: [Directive] = []
        for counter in outstanding.keys.sorted() {
            guard var o = outstanding[counter], now >= o.nextRetransmit else { continue }
            let id = CommandID(origin: nodeID, originIncarnation: incarnation, counter: counter)
            if o.acceptedAt == nil, now - o.firstSent >= configuration.commandGiveUpAfter {
                outstanding[counter] = nil
                out.append(.commandAnswer(id, .failed("no answer from UAV \(o.request.uavNumber)")))
                continue
            }
            if let a = o.acceptedAt, now - a >= configuration.commandCompletionTimeout {
                outstanding[counter] = nil
                out.append(.commandAnswer(id, .failed("no completion report from UAV \(o.request.uavNumber)")))
                continue
            }
            o.nextRetransmit = now + retransmitInterval(o)
            o.sentVia = nextHop(to: o.target)
            outstanding[counter] = o
            out += sendRouted(.command(o.request), to: .node(o.target), now: now)
        }
        return out
    }

    /// The time to the next retransmission of `o`: short until the drone accepted it, long after.
    func retransmitInterval(_ o: OutstandingCommand) -> Duration {
        o.acceptedAt == nil
            ? configuration.commandRetransmitInterval : configuration.commandRetransmitIntervalAfterAccept
    }

    /// Sends at once every outstanding command whose route to its drone changed since it was last sent (the drone
    /// is back as a neighbour, or reachable again): the copy on the old route may be lost, and the retransmit interval
    /// is long. A command to this node itself never goes through here.
    mutating func sendCommandsOnNewRoutes(now: MeshInstant) -> [Directive] {
        var out: [Directive] = []
        for counter in outstanding.keys.sorted() {
            guard var o = outstanding[counter], o.target != nodeID, let hop = nextHop(to: o.target), hop != o.sentVia
            else { continue }
            o.sentVia = hop
            o.nextRetransmit = now + retransmitInterval(o)
            outstanding[counter] = o
            out += sendRouted(.command(o.request), to: .node(o.target), now: now)
        }
        return out
    }

    /// Forgets finished commands older than `answerRetention`.
    mutating func forgetOldCommands(now: MeshInstant) {
        guard !commandRecords.isEmpty, now >= nextRecordSweepAt else { return }
        nextRecordSweepAt = now + .seconds(1)
        let old = commandRecords.filter {
            $0.value.finishedAt.map { now - $0 > configuration.answerRetention } ?? false
        }
        for (k, _) in old { commandRecords[k] = nil }
    }
}
