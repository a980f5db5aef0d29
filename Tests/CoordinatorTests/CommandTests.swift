import MeshTypes
import Testing

@testable import Coordinator

@Suite("Commands and leases")
struct CommandTests {
    /// GS-1 (0) — drone 9 (1) — GS-2 (2).
    static func world() -> Pump {
        var p = Pump([(.station, "GS-1", nil, nil), (.drone, "D", nil, 9), (.station, "GS-2", nil, nil)])
        p.link(0, 1)
        p.link(1, 2)
        p.advance(.milliseconds(300))
        return p
    }

    @Test("unknown numbers are refused at the origin without sending anything")
    func unknown() {
        var p = Self.world()
        let (id, ds) = p.cores[0].sendCommand(.land, toUAV: 33, now: p.now)
        #expect(ds == [.commandAnswer(id, .rejected(.unknownUAVNumber(33)))])
    }

    @Test("accepted then completed, relayed answers, executed once despite retransmissions")
    func lifecycle() {
        var p = Self.world()
        let id = p.command(0, .takeoff(altitudeMillimetres: 5000), to: 9)
        #expect(p.executions(1) == [id])
        // Retransmissions before the vehicle answered: nothing new.
        p.advance(.seconds(1))
        #expect(p.executions(1) == [id])
        p.call(1) { $0.onVehicleVerdict(id, .accepted, now: $1) }
        #expect(p.answers(0, id) == [.accepted])
        p.advance(.seconds(3))
        #expect(p.executions(1) == [id])
        p.call(1) { $0.onVehicleCompletion(id, .completed, now: $1) }
        #expect(p.answers(0, id) == [.accepted, .completed])
        #expect(p.cores[0].outstandingCommands.isEmpty)
    }

    @Test("the vehicle's reason reaches the station")
    func vehicleRejects() {
        var p = Self.world()
        let id = p.command(0, .land, to: 9)
        p.call(1) { $0.onVehicleVerdict(id, .rejected("not airborne"), now: $1) }
        #expect(p.answers(0, id) == [.rejected(.vehicle("not airborne"))])
    }

    @Test("lost answers are replayed to the retransmission")
    func replay() {
        var p = Self.world()
        let id = p.command(0, .hover, to: 9)
        // The answer is lost: cut the link while the vehicle answers, then restore it.
        p.links.remove([0, 1])
        p.call(1) { $0.onVehicleVerdict(id, .accepted, now: $1) }
        p.call(1) { $0.onVehicleCompletion(id, .completed, now: $1) }
        #expect(p.answers(0, id).isEmpty)
        p.links.insert([0, 1])
        p.advance(.milliseconds(500))
        #expect(p.answers(0, id) == [.accepted, .completed])
        #expect(p.executions(1) == [id])
    }

    @Test("a command whose retransmission found no route goes the moment the drone is back, not a retransmit later")
    func sentWhenTheRouteReturns() {
        var p = Self.world()
        // The link fails silently first: the command is sent and lost; then the loss is detected.
        p.links.remove([0, 1])
        let id = p.command(0, .hover, to: 9)
        p.unlink(0, 1)
        // The retransmission at 400 ms finds no route: nothing leaves.
        p.advance(.milliseconds(500), step: .milliseconds(50))
        #expect(p.executions(1).isEmpty)
        #expect(p.cores[0].outstandingCommands == [id])
        // Back 100 ms before the next retransmission: the command goes with the neighbour's return.
        p.link(0, 1)
        #expect(p.executions(1) == [id])
        p.call(1) { $0.onVehicleVerdict(id, .accepted, now: $1) }
        #expect(p.answers(0, id) == [.accepted])
        // Its retransmission timer restarted from that send, and the drone executes it once.
        p.advance(.seconds(1))
        #expect(p.executions(1) == [id])
    }

    @Test("a command sent through a relay goes again at once when the drone becomes a neighbour")
    func sentAgainOnANewRoute() {
        // GS (0) — relay drone 7 (2) — drone 9 (1); the relay's link to drone 9 fails silently.
        var p = Pump([(.station, "GS", nil, nil), (.drone, "D", nil, 9), (.drone, "R", nil, 7)])
        p.link(0, 2)
        p.link(2, 1)
        p.advance(.milliseconds(300))
        p.links.remove([1, 2])
        let id = p.command(0, .hover, to: 9)
        #expect(p.executions(1).isEmpty)
        // Drone 9 comes into direct range 50 ms later: the command goes on the new route with the neighbour's return.
        p.now = p.now + .milliseconds(50)
        p.link(0, 1)
        #expect(p.executions(1) == [id])
        p.call(1) { $0.onVehicleVerdict(id, .accepted, now: $1) }
        #expect(p.answers(0, id) == [.accepted])
    }

    @Test("another station gets 'controlled by', takeover revokes, lease ends when the holder is lost")
    func leases() {
        var p = Self.world()
        let a = p.command(0, .hover, to: 9)
        #expect(p.cores[1].leaseHolder == p.id(0))
        #expect(p.directives[1].contains(.leaseChanged(holder: p.id(0), name: "GS-1")))
        let b = p.command(2, .hover, to: 9)
        #expect(p.answers(2, b) == [.rejected(.controlledBy("GS-1"))])
        #expect(p.answers(2, b).first.map { "\($0)" }?.contains("GS-1") == true)
        let c = p.command(2, .hover, to: 9, takeover: true)
        #expect(p.cores[1].leaseHolder == p.id(2))
        #expect(p.executions(1) == [a, c])
        #expect(p.directives[0].contains(.controlLost(uavNumber: 9, to: "GS-2")))
        p.unlink(1, 2)
        p.advance(.milliseconds(200))
        #expect(p.cores[1].leaseHolder == nil)
        #expect(
            p.directives[1].last { if case .leaseChanged = $0 { true } else { false } }
                == .leaseChanged(holder: nil, name: nil))
    }

    @Test("stations renew their leases by themselves and release them explicitly")
    func leaseRenewalAndRelease() {
        var p = Self.world()
        let a = p.command(0, .hover, to: 9)
        p.call(1) { $0.onVehicleVerdict(a, .accepted, now: $1) }
        #expect(p.cores[0].controlledDrones == [p.id(1): 9])
        p.advance(.seconds(95))  // three lease durations without a command
        #expect(p.cores[1].leaseHolder == p.id(0))
        p.call(0) { $0.releaseControl(ofUAV: 9, now: $1) }
        #expect(p.cores[1].leaseHolder == nil)
        #expect(p.cores[0].controlledDrones.isEmpty)
        let b = p.command(2, .hover, to: 9)
        #expect(p.cores[1].leaseHolder == p.id(2))
        #expect(p.executions(1).last == b)
    }

    @Test("a station whose lease lapsed while it was cut off learns it on its next renewal")
    func lapsedLeaseNotice() {
        var p = Self.world()
        let id = p.command(0, .hover, to: 9)
        p.call(1) { $0.onVehicleVerdict(id, .accepted, now: $1) }
        p.unlink(0, 1)
        p.advance(.milliseconds(200))
        #expect(p.cores[1].leaseHolder == nil)  // holder unreachable
        p.link(0, 1)
        p.advance(.seconds(11))
        #expect(p.directives[0].contains(.controlLost(uavNumber: 9, to: "")))
        #expect(p.cores[0].controlledDrones.isEmpty)
    }

    @Test("without automatic renewal a lease lapses after its duration")
    func leaseExpiry() {
        var p = Pump([(.station, "GS-1", nil, nil), (.drone, "D", nil, 9), (.station, "GS-2", nil, nil)]) {
            $0.leaseDuration = .seconds(2)
            $0.renewsLeases = false
        }
        p.link(0, 1)
        p.link(1, 2)
        p.advance(.milliseconds(300))
        _ = p.command(0, .hover, to: 9)
        p.advance(.seconds(1))
        #expect(p.cores[1].leaseHolder == p.id(0))
        p.advance(.milliseconds(1200))
        #expect(p.cores[1].leaseHolder == nil)
    }

    @Test("manual control is latest-wins and gated by the lease")
    func manualControl() {
        var p = Self.world()
        _ = p.command(0, .hover, to: 9)
        p.call(0) { $0.sendManualControl(ManualControl(x: 1, y: 0, z: 0, r: 0), toUAV: 9, now: $1) }
        p.call(2) { $0.sendManualControl(ManualControl(x: 2, y: 0, z: 0, r: 0), toUAV: 9, now: $1) }
        let applied = p.directives[1].compactMap { if case .applyManualControl(let m, _) = $0 { m.x } else { nil } }
        #expect(applied == [1])
        // A stale sample (older sequence) arriving late is ignored.
        let env = Envelope(origin: p.id(0), originIncarnation: 100, sequence: 1, destination: .node(p.id(1)), ttl: 8)
        let late = p.cores[1].onMessage(
            .routed(env, .manualControl(uavNumber: 9, takeover: false, control: ManualControl(x: 3, y: 0, z: 0, r: 0))),
            from: p.id(0), now: p.now)
        #expect(late.isEmpty)
    }

    @Test("a restarted drone refuses commands addressed to its earlier life")
    func restartedTarget() {
        var p = Self.world()
        let id = p.command(0, .hover, to: 9)
        let cfg = p.cores[1].configuration
        p.cores[1] = CoordinatorCore(configuration: cfg, incarnation: 555, persistedUAVNumber: 9, now: p.now)
        p.unlink(0, 1)
        p.link(0, 1)
        p.advance(.milliseconds(500))
        #expect(p.answers(0, id) == [.rejected(.targetRestarted)])
    }

    @Test("a command without any answer fails after the give-up time")
    func giveUp() {
        var p = Self.world()
        let id = p.command(0, .hover, to: 9)
        p.links.remove([0, 1])
        p.advance(.seconds(16))
        #expect(p.answers(0, id) == [.failed("no answer from UAV 9")])
    }

    @Test("a drone whose telemetry arrived before its advertisement is commandable: the command waits for its route")
    func heardBeforeAdvertised() {
        // GS-1 (0) — GS-2 (1); the drone (2) is not linked yet, but GS-2 relayed one of its telemetry samples.
        var p = Pump([(.station, "GS-1", nil, nil), (.station, "GS-2", nil, nil), (.drone, "D", nil, 9)])
        p.link(0, 1)
        p.advance(.milliseconds(300))
        let relay = p.id(1)
        let state = VehicleState(position: TelemetryTests.here, batteryPercent: 80, activity: .landed, armed: false)
        let env = Envelope(origin: p.id(2), originIncarnation: 102, sequence: 1, destination: .node(p.id(0)), ttl: 7)
        p.call(0) { $0.onMessage(.routed(env, .telemetry(uavNumber: 9, state: state)), from: relay, now: $1) }
        #expect(p.cores[0].fleetVehicle(p.id(2), now: p.now)?.uavNumber == 9)
        #expect(p.cores[0].resolve(uavNumber: 9) == .unknown)
        let id = p.command(0, .takeoff(altitudeMillimetres: 3000), to: 9)
        #expect(p.answers(0, id).isEmpty)
        #expect(p.cores[0].outstandingCommands.count == 1)
        // The drone's link comes up; its advertisement floods and the held command goes out on the new route.
        p.link(1, 2)
        p.advance(.seconds(1))
        #expect(p.executions(2) == [id])
        p.call(2) { $0.onVehicleVerdict(id, .accepted, now: $1) }
        #expect(p.answers(0, id) == [.accepted])
    }

    @Test("a number heard only in stale telemetry, or from a drone advertising another number, stays unknown")
    func heardButStale() {
        var p = Pump([(.station, "GS-1", nil, nil), (.station, "GS-2", nil, nil), (.drone, "D", nil, 9)])
        p.link(0, 1)
        let relay = p.id(1)
        let state = VehicleState(position: TelemetryTests.here, batteryPercent: 80, activity: .landed, armed: false)
        let env = Envelope(origin: p.id(2), originIncarnation: 102, sequence: 1, destination: .node(p.id(0)), ttl: 7)
        p.call(0) { $0.onMessage(.routed(env, .telemetry(uavNumber: 9, state: state)), from: relay, now: $1) }
        p.advance(.milliseconds(1100))
        let (stale, ds) = p.cores[0].sendCommand(.land, toUAV: 9, now: p.now)
        #expect(ds == [.commandAnswer(stale, .rejected(.unknownUAVNumber(9)))])
        // Now linked: the drone advertises 9, so telemetry claiming 7 from it does not make 7 commandable.
        p.link(1, 2)
        p.advance(.milliseconds(300))
        let env2 = Envelope(origin: p.id(2), originIncarnation: 102, sequence: 99, destination: .node(p.id(0)), ttl: 7)
        p.call(0) { $0.onMessage(.routed(env2, .telemetry(uavNumber: 7, state: state)), from: relay, now: $1) }
        let (other, ds2) = p.cores[0].sendCommand(.land, toUAV: 7, now: p.now)
        #expect(ds2 == [.commandAnswer(other, .rejected(.unknownUAVNumber(7)))])
    }
}
