import ControlProtocol
import Foundation
import LabKit
import Node

/// Ground-control software → station → mesh → drone → COMMAND_ACK, on real `fleetmesh run` processes in the lab.
///
/// Four hosts: the station (host 1, `[ground_control]` on UDP 14550), a drone in direct range (host 2), a drone that
/// relays (host 3) and a drone out of the station's range (host 4: blocked from hosts 1 and 2, so its only path is
/// through host 3). A pymavlink ground station on the station's host (Tests/mavlink/gcs_client.py, loopback inside the
/// lab namespace) sends MAV_CMD_DO_SET_MODE (custom mode 2: hover) to a drone and times the COMMAND_ACK; interleaved
/// with it, the same program times a control-socket `send hover` round trip to the same drone: the baseline, the
/// mesh path `fleetmesh send` takes, measured by the same process in the same run. Samples per figure:
/// FLEETMESH_BENCH_GCS_SAMPLES (default 200).
enum GroundControlBenchmarks {
    static func run(_ out: BenchOutput) async throws {
        let samples = max(1, Int(ProcessInfo.processInfo.environment["FLEETMESH_BENCH_GCS_SAMPLES"] ?? "") ?? 200)
        out.heading(
            "Ground control: MAVLink command → COMMAND_ACK through the mesh (real processes, 4 namespaced hosts)")
        out.line("load average at start (1/5/15 min)", MeshLabBenchmarks.loadAverage())
        let client = repositoryRoot.appendingPathComponent("Tests/mavlink/gcs_client.py").path
        try await Lab.with(hosts: 4) { lab in
            try lab.lab("block", "1", "4")
            try lab.lab("block", "2", "4")
            let station = try lab.startNode(
                host: 1, name: "station", role: "station",
                extra: "[ground_control]\nport = 14550", logLevel: "notice")
            let direct = try lab.startNode(host: 2, name: "direct", logLevel: "notice")
            _ = try lab.startNode(host: 3, name: "relay", logLevel: "notice")
            let far = try lab.startNode(host: 4, name: "far", logLevel: "notice")
            func vehicles() throws -> [VehicleReport] {
                try ControlClient.request(ControlRequest.vehicles, socket: station.socketPath, timeout: .seconds(2))
                    .vehicles ?? []
            }
            var numbers: (direct: Int, far: Int) = (0, 0)
            try await waitUntil(
                "the station sees the three drones, the far one 2 hops away", timeout: .seconds(30),
                poll: .milliseconds(100)
            ) {
                guard let d = try direct.status().node.uavNumber, let f = try far.status().node.uavNumber else {
                    return false
                }
                numbers = (d, f)
                let live = try vehicles().filter { !$0.stale }.compactMap(\.uavNumber)
                let hops = try station.status().peers.first { $0.name == "far" }?.hops
                return live.count == 3 && live.contains(d) && live.contains(f) && hops == 2
            }
            // Hover needs an airborne drone: both take off first (not timed).
            for n in [numbers.direct, numbers.far] {
                let r = try ControlClient.request(
                    ControlRequest.send(.init(uav: n, args: ["takeoff", "5"], timeoutMs: 30_000)),
                    socket: station.socketPath, timeout: .seconds(35))
                guard r.command?.succeeded == true else {
                    throw LabError(
                        "takeoff of UAV \(n) failed: \(r.command.map { "\($0.answers)" } ?? "") \(r.error ?? "")")
                }
            }
            for (label, n) in [("direct (1 hop)", numbers.direct), ("relayed (2 hops)", numbers.far)] {
                let steps =
                    "[{\"do\":\"heartbeats\",\"seconds\":1.5},{\"do\":\"bench\",\"sysid\":\(n),\"count\":\(samples),\"socket\":\"\(station.socketPath)\",\"uav\":\(n)}]"
                let r = try shell(lab.onHost(1, ["python3", client, "--connect", "127.0.0.1:14550", "--steps", steps]))
                guard r.status == 0, let line = r.output.split(separator: "\n").last,
                    let result = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                else {
                    throw LabError("gcs_client bench failed: \(r.output.suffix(2000))")
                }
                var mavlink = Samples(), control = Samples()
                for ms in result["mavlink_ms"] as? [Double] ?? [] { mavlink.add(ms / 1000) }
                for ms in result["control_ms"] as? [Double] ?? [] { control.add(ms / 1000) }
                out.latency("\(label): GCS DO_SET_MODE → COMMAND_ACK", mavlink)
                out.note(
                    "pymavlink sends COMMAND_LONG to system \(n) at 127.0.0.1:14550 on the station's host; until the COMMAND_ACK (ACCEPTED) arrives"
                )
                out.latency("\(label): control socket send hover (baseline)", control)
                out.note(
                    "same program, interleaved: {\"command\":\"send\",\"uav\":\(n),\"args\":[\"hover\"]} over the station's Unix socket, until its one-line answer (accepted and completed)"
                )
                out.ratio(
                    "\(label): GCS p50 vs control-socket p50", mavlink.p50 / control.p50,
                    against: "control-socket send, same run")
                out.ratio(
                    "\(label): GCS p99 vs control-socket p99", mavlink.p99 / control.p99,
                    against: "control-socket send, same run")
                out.line("\(label): failed samples", "\(result["failed"] as? Int ?? -1) of \(2 * samples)")
            }
        }
        out.line("load average at end (1/5/15 min)", MeshLabBenchmarks.loadAverage())
    }
}
