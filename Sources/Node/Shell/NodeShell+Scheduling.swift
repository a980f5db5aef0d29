import ControlProtocol
import Coordinator
import Foundation
import MeshTypes

/// Commands that start at one moment on several drones: the station's side (`sendGroup`: one start instant, sent to
/// each drone, which the mesh carries onto each drone's clock) and the drone's (a timer per scheduled command, armed
/// by the core's `.scheduleStart` and handed back to it when due).
extension NodeShell {
    /// Sends `command` to every drone in `numbers`, all to start `lead` from now, and waits until each has its final
    /// answer or `timeout` after the start has passed. With `takeover`, their control leases move to this station.
    public func sendGroup(
        _ command: Command, toUAVs numbers: [UInt8], lead: Duration, takeover: Bool = false, timeout: Duration
    ) async -> GroupCommandReport {
        let t = now
        let start = t + lead
        let startsAtMs = Int64(((Date().timeIntervalSince1970 + lead.secondsDouble) * 1000).rounded())
        var ids: [CommandID] = []
        for n in numbers {
            let (id, effects) = node.sendCommand(command, toUAV: n, takeover: takeover, start: start, now: t)
            ids.append(id)
            answers[id] = []
            commandSentAt[id] = t
            noteCommandSent(id, command, to: n)
            commandStartsAtMs[id] = startsAtMs
            logger.info(
                "command \(id) \(command.summary) to UAV \(n)\(takeover ? " (takeover)" : ""), starting in \(lead.wholeMilliseconds) ms"
            )
            apply(effects, now: t)
        }
        await resendLostStarts(&ids, command, toUAVs: numbers, takeover: takeover, start: start, startsAtMs: startsAtMs)
        let reports = await reports(
            for: ids, to: numbers, summary: command.summary, until: clock.now + lead + timeout)
        return GroupCommandReport(
            command: command.summary, leadMs: Int(lead.wholeMilliseconds), startsAtMs: startsAtMs, commands: reports)
    }

    /// A node on the way (this station, or a relay) that had no estimate of the next hop's clock yet (a session just
    /// made, or back after an outage: the estimate needs a fresh heartbeat) loses the start, and the drone refuses the
    /// command ("send it again"). While the start is more than 300 ms away, the station sends it again itself, at most
    /// every 100 ms and eight times per drone, so the operator does not have to; `ids` gets the new commands. (Three
    /// resends at once were all refused alike when the drone had just come back: the estimate takes a heartbeat.)
    func resendLostStarts(
        _ ids: inout [CommandID], _ command: Command, toUAVs numbers: [UInt8], takeover: Bool, start: MeshInstant,
        startsAtMs: Int64
    ) async {
        var resent = Array(repeating: 0, count: ids.count)
        var lastSent = Array(repeating: now, count: ids.count)
        while now < start - .milliseconds(300) {
            var waiting = false
            for i in ids.indices {
                guard let first = answers[ids[i]]?.first else {
                    waiting = true
                    continue
                }
                guard first.answer == "rejected", first.reason?.hasPrefix("start time lost on the way") == true,
                    resent[i] < 8
                else { continue }
                guard now - lastSent[i] >= .milliseconds(100) else {
                    waiting = true
                    continue
                }
                let t = now
                lastSent[i] = t
                let (id, effects) = node.sendCommand(
                    command, toUAV: numbers[i], takeover: takeover, start: start, now: t)
                logger.info("command \(ids[i]) to UAV \(numbers[i]) lost its start on the way: sent again as \(id)")
                resent[i] += 1
                ids[i] = id
                answers[id] = []
                commandSentAt[id] = t
                noteCommandSent(id, command, to: numbers[i])
                commandStartsAtMs[id] = startsAtMs
                apply(effects, now: t)
                waiting = true
            }
            guard waiting else { return }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Drone: arms the timer of a scheduled command (`.scheduleStart`); at `start` the core hands it to the vehicle.
    func armStart(_ id: CommandID, at start: MeshInstant) {
        let deadline = clock.now + (start - now)
        Task { [weak self] in
            try? await Task.sleep(until: deadline, clock: .continuous)
            await self?.startScheduled(id, due: start)
        }
    }

    /// Drone: a scheduled command's moment came. Logged with how late the timer fired, then handed to the core (which
    /// does nothing if a newer command cancelled it).
    func startScheduled(_ id: CommandID, due: MeshInstant) {
        let t = now
        guard core.pendingStarts[id] != nil else { return }
        let late = Double((t - due).wholeNanoseconds) / 1e6
        event(.info, "command", "command \(id) starts as scheduled (\(String(format: "%.1f", late)) ms after its time)")
        coordinate(now: t) { $0.onScheduledStart(id, now: t) }
    }

}
