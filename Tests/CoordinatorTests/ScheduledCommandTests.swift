import MeshTypes
import Testing

@testable import Coordinator

@Suite("Scheduled commands and the controlling station")
struct ScheduledCommandTests {
    /// GS-1 (0) — drone 9 (1) — GS-2 (2), on one clock (the node core moves starts between clocks; see
    /// MeshSimulationTests' ScheduledStartTests).
    static func world() -> Pump { CommandTests.world() }

    static func scheduled(_ p: Pump, _ i: Int) -> [(CommandID, MeshInstant)] {
        p.directives[i].compactMap { if case .scheduleStart(let id, let t) = $0 { (id, t) } else { nil } }
    }

    /// Sends `command` from station `i` to UAV 9, starting `lead` from now.
    static func send(_ p: inout Pump, _ i: Int, _ c: Command, lead: Duration, takeover: Bool = false) -> CommandID {
        let (id, ds) = p.cores[i].sendCommand(c, toUAV: 9, takeover: takeover, start: p.now + lead, now: p.now)
        p.handle(i, ds)
        p.drain()
        return id
    }

    @Test("accepted means scheduled: the drone asks for a timer at the start and executes only when it fires")
    func scheduledThenStarted() {
        var p = Self.world()
        let start = p.now + .milliseconds(1500)
        let id = Self.send(&p, 0, .takeoff(altitudeMillimetres: 4000), lead: .milliseconds(1500))
        #expect(p.answers(0, id) == [.accepted])
        #expect(Self.scheduled(p, 1).map(\.0) == [id] && Self.scheduled(p, 1).map(\.1) == [start])
        #expect(p.executions(1).isEmpty)
        // Retransmissions meanwhile replay `accepted` and schedule nothing more.
        p.advance(.seconds(1))
        #expect(p.executions(1).isEmpty && Self.scheduled(p, 1).count == 1)
        #expect(p.cores[1].pendingStarts == [id: start])
        p.call(1) { $0.onScheduledStart(id, now: $1) }
        #expect(p.executions(1) == [id])
        // The vehicle's verdict at the start adds nothing to `accepted`; its completion ends the command.
        p.call(1) { $0.onVehicleVerdict(id, .accepted, now: $1) }
        p.call(1) { $0.onVehicleCompletion(id, .completed, now: $1) }
        #expect(p.answers(0, id) == [.accepted, .completed])
        // A timer firing twice starts nothing twice.
        p.call(1) { $0.onScheduledStart(id, now: $1) }
        #expect(p.executions(1) == [id])
    }

    @Test("a vehicle that refuses at the start makes the scheduled command fail with its reason")
    func refusedAtItsStart() {
        var p = Self.world()
        let id = Self.send(&p, 0, .land, lead: .milliseconds(200))
        p.call(1) { $0.onScheduledStart(id, now: $1) }
        p.call(1) { $0.onVehicleVerdict(id, .rejected("not airborne"), now: $1) }
        #expect(p.answers(0, id) == [.accepted, .failed("refused at its start: not airborne")])
    }

    @Test("a start already past, beyond the horizon, or lost on the way is refused, naming why")
    func startsTheDroneRefuses() {
        var p = Self.world()
        // 11 ms late: refused (the tolerance is 10 ms); 10 ms late: started at once, like an unscheduled command.
        let late = Self.send(&p, 0, .hover, lead: .zero - .milliseconds(11))
        #expect(
            p.answers(0, late)
                == [.rejected(.startTime("arrived 11 ms after its start time (send it again with a longer lead)"))])
        let barely = Self.send(&p, 0, .hover, lead: .zero - .milliseconds(10))
        #expect(p.executions(1) == [barely] && Self.scheduled(p, 1).isEmpty)
        let far = Self.send(&p, 0, .hover, lead: .seconds(61))
        #expect(p.answers(0, far) == [.rejected(.startTime("starts 61000 ms ahead: at most 60000 ms"))])
        // A relay without an estimate of the next hop's clock forwards the start as unknown.
        let env = Envelope(
            origin: p.id(0), originIncarnation: 100, sequence: 999, destination: .node(p.id(1)), ttl: 8)
        let lost = CommandRequest(
            counter: 77, uavNumber: 9, targetIncarnation: 101, takeover: false, command: .hover, start: .clockUnknown)
        p.handle(1, p.cores[1].onMessage(.routed(env, .command(lost)), from: p.id(0), now: p.now))
        let replies = p.inbox.compactMap { m -> CommandAnswer? in
            if case .routed(_, .commandAnswer(77, _, let a)) = m.message { a } else { nil }
        }
        #expect(
            replies == [
                .rejected(
                    .startTime(
                        "start time lost on the way: a node on the way had no estimate of the next hop's clock yet (send it again)"
                    ))
            ])
        #expect(p.executions(1) == [barely])
    }

    @Test("a newer command cancels one waiting for its start, and so does another station's takeover")
    func newerCommandsCancel() {
        var p = Self.world()
        let first = Self.send(&p, 0, .takeoff(altitudeMillimetres: 3000), lead: .seconds(2))
        let land = p.command(0, .land, to: 9)
        #expect(p.answers(0, first) == [.accepted, .failed("cancelled before its start: superseded by land")])
        #expect(p.executions(1) == [land])
        // The cancelled one's timer does nothing.
        p.call(1) { $0.onScheduledStart(first, now: $1) }
        #expect(p.executions(1) == [land])

        let second = Self.send(&p, 0, .hover, lead: .seconds(2))
        #expect(p.answers(0, second) == [.accepted])
        // GS-2 is refused without a takeover (nothing cancelled), and cancels it with one.
        let refused = p.command(2, .land, to: 9)
        #expect(p.answers(2, refused) == [.rejected(.controlledBy("GS-1"))])
        #expect(p.cores[1].pendingStarts.keys.contains(second))
        let taken = p.command(2, .land, to: 9, takeover: true)
        #expect(p.answers(0, second) == [.accepted, .failed("cancelled before its start: control taken by GS-2")])
        #expect(p.executions(1) == [land, taken])
        #expect(p.cores[1].pendingStarts.isEmpty)
    }

    @Test("a lease that lapses before the start cancels the command")
    func lapsedLeaseCancels() {
        var p = Self.world()
        let id = Self.send(&p, 0, .hover, lead: .seconds(30))
        p.unlink(0, 1)
        p.advance(.milliseconds(200))
        #expect(p.answers(0, id) == [.accepted])  // the failure goes nowhere: GS-1 is unreachable
        #expect(p.cores[1].pendingStarts.isEmpty)
        p.call(1) { $0.onScheduledStart(id, now: $1) }
        #expect(p.executions(1).isEmpty)
    }

    @Test("every station sees which station controls a drone, from the drone's advertisement")
    func controllerReachesEveryStation() throws {
        var p = Self.world()
        func controller(seenBy i: Int) -> NodeID? {
            p.cores[i].fleetVehicle(p.id(1), now: p.now)?.controller
        }
        // Telemetry first (drones publish on ticks), then no controller anywhere.
        p.call(1) {
            $0.onLocalVehicleState(VehicleState(position: GeoPoint(latitude: 50, longitude: 14, altitude: 0)), now: $1)
        }
        p.advance(.milliseconds(200))
        #expect(controller(seenBy: 0) == nil && controller(seenBy: 2) == nil && controller(seenBy: 1) == nil)
        _ = p.command(0, .hover, to: 9)
        p.advance(.milliseconds(100))
        #expect(
            controller(seenBy: 0) == p.id(0) && controller(seenBy: 2) == p.id(0) && controller(seenBy: 1) == p.id(0))
        _ = p.command(2, .hover, to: 9, takeover: true)
        p.advance(.milliseconds(100))
        #expect(controller(seenBy: 0) == p.id(2) && controller(seenBy: 2) == p.id(2))
        // GS-2 goes away: the lease lapses and the drone says so.
        p.unlink(1, 2)
        p.advance(.milliseconds(200))
        #expect(controller(seenBy: 0) == nil && controller(seenBy: 1) == nil)
        // A renewal changes nothing: no advertisement is flooded for it.
        _ = p.command(0, .hover, to: 9)
        p.advance(.milliseconds(100))
        let sequence = try #require(p.cores[0].advertisement(of: p.id(1))).sequence
        p.advance(.seconds(9))
        #expect(p.cores[0].advertisement(of: p.id(1))?.sequence == sequence)
        #expect(controller(seenBy: 0) == p.id(0))
    }
}
