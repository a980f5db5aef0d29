import ControlProtocol
import Coordinator
import MeshTypes

/// The answers to commands the ground-control endpoint sent, with its tickets, in the order the mesh gave them.
final class GroundControlAnswers: Sendable {
    let stream: AsyncStream<(ticket: UInt64, answer: CommandAnswer)>
    private let continuation: AsyncStream<(ticket: UInt64, answer: CommandAnswer)>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: (ticket: UInt64, answer: CommandAnswer).self)
    }

    func yield(_ ticket: UInt64, _ answer: CommandAnswer) { continuation.yield((ticket, answer)) }
}

/// The MAVLink side of the node's actor: bytes from a drone's autopilot, and the ground-control endpoint's
/// commands and fleet picture on a station.
extension NodeShell {
    /// Bytes from the autopilot link (`endOfDatagram`: UDP; false for a serial stream).
    func autopilotReceived(_ bytes: [UInt8], endOfDatagram: Bool) {
        let t = now
        withPilot(now: t) { $0.receive(bytes, endOfDatagram: endOfDatagram, now: t) }
    }

    /// A command from ground-control software, routed like `fleetmesh send` (leases, relays, exactly-once); its
    /// answers go to `groundControlAnswers` with `ticket`. Does not wait.
    func submitForGroundControl(_ command: Command, toUAV number: UInt8, ticket: UInt64) {
        let t = now
        let (id, effects) = node.sendCommand(command, toUAV: number, now: t)
        groundControlTickets[id] = ticket
        noteCommandSent(id, command, to: number, from: " (from ground control)")
        logger.info("command \(id) \(command.summary) to UAV \(number) from ground control")
        apply(effects, now: t)
    }

    /// Passes a command answer to the ground-control endpoint if it asked for the command.
    func forwardToGroundControl(_ id: CommandID, _ answer: CommandAnswer) {
        guard let ticket = groundControlTickets[id] else { return }
        if answer.isFinal { groundControlTickets[id] = nil }
        groundControlAnswers.yield(ticket, answer)
    }

    /// The autopilot link's state for `status` (drones flying an autopilot; nil otherwise).
    func autopilotReport() -> AutopilotReport? {
        guard let link = autopilotLink, var report = pilot?.linkStatus(now: now) else { return nil }
        let counters = link.counters
        report.remote = counters.remote
        report.framesSent = counters.sent
        report.framesDropped = counters.dropped
        return report
    }

    /// The drones with UAV numbers in the fleet picture, and the agreed map origin's altitude (metres above sea level).
    func groundControlPicture() -> (vehicles: [FleetVehicle], originAltitude: Double?) {
        let t = now
        return (
            core.fleetPicture(now: t).filter { $0.uavNumber != nil },
            core.agreedMapOrigin?.announcement.position.altitude
        )
    }
}
