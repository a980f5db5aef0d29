import MeshTypes

/// Why a drone refuses a scheduled command's start.
struct StartRefusal: Error, CustomStringConvertible {
    let description: String
}

extension CoordinatorCore {
    /// Drone: the moment a scheduled command waiting since `.scheduleStart(id, at:)` has come (the shell's timer). Hands
    /// it to the vehicle, unless a newer command or the end of its lease cancelled it meanwhile.
    public mutating func onScheduledStart(_ id: CommandID, now: MeshInstant) -> [Directive] {
        guard let scheduled = scheduledCommands.removeValue(forKey: id) else { return [] }
        return [.executeCommand(id, scheduled.command)]
    }

    /// Drone: the scheduled commands waiting for their start, with their start on this node's clock.
    public var pendingStarts: [CommandID: MeshInstant] { scheduledCommands.mapValues(\.start) }

    /// A scheduled command's start as this drone can take it: on its clock, not past (beyond the tolerance) and not
    /// beyond the horizon.
    func checkStart(_ start: CommandStart, now: MeshInstant) -> Result<MeshInstant, StartRefusal> {
        guard case .at(let t) = start else {
            return .failure(
                StartRefusal(
                    description:
                        "start time lost on the way: a node on the way had no estimate of the next hop's clock yet (send it again)"
                ))
        }
        if now - t > configuration.lateStartTolerance {
            return .failure(
                StartRefusal(
                    description:
                        "arrived \((now - t).wholeMilliseconds) ms after its start time (send it again with a longer lead)"
                ))
        }
        if t - now > configuration.scheduleHorizon {
            return .failure(
                StartRefusal(
                    description:
                        "starts \((t - now).wholeMilliseconds) ms ahead: at most \(configuration.scheduleHorizon.wholeMilliseconds) ms"
                ))
        }
        return .success(t)
    }

    /// Drone: fails every scheduled command still waiting for its start, telling each origin `reason`.
    mutating func cancelScheduledCommands(_ reason: String, now: MeshInstant) -> [Directive] {
        guard !scheduledCommands.isEmpty else { return [] }
        var out: [Directive] = []
        let ids = scheduledCommands.keys.sorted { ($0.origin, $0.counter) < ($1.origin, $1.counter) }
        for id in ids {
            scheduledCommands[id] = nil
            guard var record = commandRecords[id] else { continue }
            record.answer = .failed(reason)
            record.finishedAt = now
            commandRecords[id] = record
            out += answer(id, .failed(reason), now: now)
        }
        return out
    }

}
