import AutopilotEmulation
import AvoidanceScenarios
import Flight
import Foundation
import MAVLink
import MeshTypes

#if canImport(Glibc)
    import Glibc
#endif

/// Collision avoidance on autopilot drones (issue #15), in process on emulated autopilots with realistic response,
/// link delay, wind and GPS noise (`FleetHarness.Realism.realistic`): the time from an avoidance decision to its
/// position target arriving at the autopilot over a real UDP loopback socket, and the crossing scenarios' closest
/// approach and extra time against the same scenarios flown by simulated drones only.
enum AutopilotAvoidanceBenchmarks {
    static func run(_ out: BenchOutput) async throws {
        out.heading("Autopilot avoidance (issue #15): decision to setpoint, crossing scenarios")
        try latency(out)
        try crossings(out)
    }

    // MARK: - Decision to setpoint

    /// Every frame from the pilots to their autopilots crosses this socket pair on 127.0.0.1; each arrival is logged.
    final class Loopback: @unchecked Sendable {
        struct Arrival {
            var sentAt: ContinuousClock.Instant
            var receivedAt: ContinuousClock.Instant
            /// SET_POSITION_TARGET_GLOBAL_INT or COMMAND_INT DO_REPOSITION: a new point for the autopilot.
            var isSetpoint: Bool
        }
        let sender: Int32
        let receiver: Int32
        var address = sockaddr_in()
        var arrivals: [Arrival] = []
        let clock = ContinuousClock()

        init() throws {
            sender = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            receiver = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            guard sender >= 0, receiver >= 0 else { throw BenchError("socket: \(errno)") }
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { a in
                    bind(receiver, a, length) == 0 && getsockname(receiver, a, &length) == 0
                }
            }
            guard bound else { throw BenchError("bind 127.0.0.1: \(errno)") }
        }

        deinit {
            close(sender)
            close(receiver)
        }

        /// Sends `bytes` to the receiving socket and reads them back from it.
        func carry(_ bytes: [UInt8]) -> [UInt8] {
            let sentAt = clock.now
            let sent = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { a in
                    bytes.withUnsafeBytes {
                        sendto(sender, $0.baseAddress, bytes.count, 0, a, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
            }
            guard sent == bytes.count else { return bytes }
            var buffer = [UInt8](repeating: 0, count: 2048)
            let n = buffer.withUnsafeMutableBytes { recv(receiver, $0.baseAddress, 2048, 0) }
            let receivedAt = clock.now
            let received = Array(buffer[0..<max(0, n)])
            var parser = MAVLinkParser()
            let isSetpoint = (parser.feed(received) + parser.finish()).contains { e in
                guard case .frame(let f) = e else { return false }
                switch f.message {
                case .setPositionTargetGlobalInt: return true
                case .commandInt(let c): return c.command == .doReposition
                default: return false
                }
            }
            arrivals.append(Arrival(sentAt: sentAt, receivedAt: receivedAt, isSetpoint: isSetpoint))
            return received
        }
    }

    /// Decisions that changed a drone's plan, and when their last position target of the cycle arrived.
    static func latency(_ out: BenchOutput) throws {
        let link = try Loopback()
        var endToEnd = Samples(), compute = Samples(), hop = Samples()
        var decisions = 0, withoutFrame = 0, simulatedDecisions = 0
        let scenarios = [
            CrossingScenario.antipodal([
                .autopilot(.ardupilot), .autopilot(.px4), .autopilot(.ardupilot), .autopilot(.px4),
            ]),
            .headOn(.autopilot(.ardupilot), .autopilot(.px4)),
            .crossing(.autopilot(.px4), .autopilot(.ardupilot)),
        ]
        for seed in 1...8 {
            for s in scenarios {
                var h = try FleetHarness(kinds: s.kinds, homes: s.starts, realism: .realistic, seed: UInt64(seed))
                h.transport = { _, bytes in link.carry(bytes) }
                try h.takeOff(altitude: s.altitude)
                let ids = s.kinds.indices.map { i in
                    h.execute(
                        i, .goto(h.geo(Vector3(s.goals[i].x, s.goals[i].y, s.altitude)), speedCmS: 400))
                }
                let end = h.now + s.timeLimit
                while h.now < end && !zip(h.drones, ids).allSatisfy({ $0.completed($1) }) {
                    h.startCycle()
                    for i in h.drones.indices {
                        h.deliverTelemetry(i)
                        let mark = link.arrivals.count
                        let start = link.clock.now
                        guard h.runCycle(i) else { continue }
                        guard h.drones[i].autopilot != nil else {
                            simulatedDecisions += 1
                            continue
                        }
                        decisions += 1
                        guard let a = link.arrivals[mark...].last(where: \.isSetpoint) else {
                            withoutFrame += 1
                            continue
                        }
                        endToEnd.add(a.receivedAt - start)
                        compute.add(a.sentAt - start)
                        hop.add(a.receivedAt - a.sentAt)
                    }
                }
            }
        }
        out.latency("decision → setpoint at autopilot (UDP)", endToEnd)
        out.latency("decision → setpoint handed to socket", compute)
        out.latency("  of which the UDP hop", hop, unit: .microseconds)
        out.line(
            "decisions measured",
            "\(endToEnd.count) of \(decisions) (\(withoutFrame) sent no new point in their cycle: a PX4 hold while OFFBOARD is pending, or an unchanged point)"
        )
    }

    // MARK: - Crossing scenarios

    static func crossings(_ out: BenchOutput) throws {
        var takeover = CrossingScenario.antipodal([
            .autopilot(.ardupilot), .autopilot(.px4), .simulated, .autopilot(.ardupilot),
        ])
        takeover.name = "pilot takes drone 1 of 4 mid-crossing"
        takeover.takeover = .init(drone: 0, after: 3)
        let scenarios: [CrossingScenario] = [
            .headOn(.autopilot(.ardupilot), .autopilot(.px4)),
            .crossing(.autopilot(.px4), .autopilot(.ardupilot)),
            .antipodal(
                [.autopilot(.ardupilot), .autopilot(.px4), .autopilot(.ardupilot), .autopilot(.px4)],
                name: "antipodal circle, 4 autopilots"),
            .antipodal(
                [
                    .autopilot(.ardupilot), .simulated, .autopilot(.px4), .autopilot(.ardupilot), .simulated,
                    .autopilot(.px4),
                ], name: "antipodal circle, mixed 6"),
            takeover,
        ]
        for s in scenarios {
            let o = try s.run()
            let base = try s.simulatedOnly.run()
            let note = o.losses == 0 ? "" : "  (\(o.losses) losses of separation)"
            out.line(
                "\(s.name): closest",
                String(format: "%6.2f m  vs %6.2f m simulated only", o.minimumSeparation, base.minimumSeparation) + note
            )
            if s.takeover != nil {
                out.line(
                    "\(s.name): closest to the taken drone",
                    String(format: "%6.2f m  (%d losses)", o.minimumToNonCooperating, o.nonCooperativeLosses))
            }
            out.line(
                "\(s.name): time / straight line",
                String(format: "%6.2f x  vs %6.2f x simulated only", o.extraTime, base.extraTime))
            out.ratio("\(s.name): extra time ratio", o.extraTime / base.extraTime, against: "simulated only")
        }
    }
}
