import ControlProtocol
import Foundation
import LabKit
import Node
import Testing

/// Link outages in real processes, as the field has them: a station and five drones lose each other for
/// 1, 3, 6 and 10 s after the loss is detected, and for longer than the forget interval (20 s) — by link (the port goes
/// down), by firewall both ways and by firewall one way; by firewall both ways one drone's outage lasts 30 s instead
/// of 6. Every pair must have a command answered by the drone and be back in session within 1.5 s of the restore (the
/// kernel's neighbour resolution alone may take 1 s of it: `sessionBound`), and keep its UAV number.
@Suite(.serialized) struct OutageLabTests {
    /// Seconds each drone's outage lasts after its loss was detected: host 2 … host 6; host 6's is longer than the
    /// forget interval configured below (15 s). Past that interval every outage up to the session lifetime (180 s) is
    /// one class (the peer forgotten, found again, a new handshake), so the half-minute outage runs for one kind only,
    /// by firewall both ways (host 5); the deterministic simulation flies every length by every kind
    /// (MeshSimulationTests). Each kind takes about 25 s, firewall both ways 35 s.
    static func extra(_ kind: Kind) -> [Int: Int] { [2: 1, 3: 3, 4: 10, 5: kind == .firewall ? 30 : 6, 6: 20] }
    static let forgetMs = 15_000

    enum Kind: String, CaseIterable, CustomStringConvertible {
        case link, firewall, oneWay = "firewall-one-way"
        var description: String { rawValue }
        /// OUTAGE_KIND=link|firewall|firewall-one-way runs one kind (all by default).
        static var selected: [Kind] {
            ProcessInfo.processInfo.environment["OUTAGE_KIND"].flatMap(Kind.init(rawValue:)).map { [$0] } ?? allCases
        }
    }

    struct Recovery {
        var host: Int
        var kind: Kind
        var inSession: Duration
        var commandAnswered: Duration
        /// What the attempts before the answer got (for the report when it is slow).
        var attempts: [String]
    }

    func numbers(_ drones: [NodeProcess]) throws -> [String: Int] {
        var out: [String: Int] = [:]
        for d in drones { out[d.name] = try d.status().node.uavNumber }
        return out
    }

    @Test(
        "outages of 1, 3, 6 (by firewall 30), 10 s and past the forget interval, by link and by firewall both ways and one way: commands again within 1.5 s",
        arguments: Kind.selected)
    func everyPairIsBackWithinOneAndAHalfSecondsOfTheRestore(kind: Kind) async throws {
        try await Lab.with(hosts: 6) { lab in
            let membership = "[membership]\nforget_after_ms = \(Self.forgetMs)"
            let station = try lab.startNode(host: 1, name: "station", role: "station", extra: membership)
            let drones = try (2...6).map { try lab.startNode(host: $0, name: "drone-\($0)", extra: membership) }
            var before: [String: Int] = [:]
            try await waitUntil(
                "five drones with distinct numbers, in session with the station", timeout: .seconds(20),
                poll: .milliseconds(100)
            ) {
                before = try numbers(drones)
                guard before.count == 5, Set(before.values).count == 5 else { return false }
                return try drones.allSatisfy { d in
                    station.peerState(d.name) == "established" && d.peerState("station") == "established"
                }
                    && (try station.status()).peers.filter { $0.state == "established" }.count == 5
            }
            let recoveries = try await withThrowingTaskGroup(of: Recovery.self) { group in
                for drone in drones {
                    let host = drone.host
                    let seconds = Self.extra(kind)[host]!
                    let number = before[drone.name]!
                    group.addTask {
                        try await Self.outage(
                            kind: kind, lab: lab, station: station, drone: drone, number: number, extra: seconds)
                    }
                }
                var all: [Recovery] = []
                for try await r in group { all.append(r) }
                return all.sorted { $0.host < $1.host }
            }
            for r in recoveries {
                print(
                    "outage \(kind) host \(r.host) (+\(Self.extra(kind)[r.host]!) s after detection): in session \(ms(r.inSession)) ms, "
                        + "command answered \(ms(r.commandAnswered)) ms after the restore")
                if r.inSession > Self.sessionBound || r.commandAnswered > Self.sessionBound {
                    print("host \(r.host), \(kind): attempts before the answer: \(r.attempts)")
                    lab.dumpLogs()
                }
                #expect(
                    r.inSession <= Self.sessionBound,
                    "host \(r.host), \(kind): back in session \(r.inSession) after the restore")
                #expect(
                    r.commandAnswered <= Self.sessionBound,
                    "host \(r.host), \(kind): command answered \(r.commandAnswered) after the restore")
            }
            let session = recoveries.map { ms($0.inSession) }.sorted()
            let command = recoveries.map { ms($0.commandAnswered) }.sorted()
            print(
                "outage \(kind): restore → in session p50 \(session[session.count / 2]) ms, p99 (the max of 5) \(session.last!) ms; "
                    + "→ command answered p50 \(command[command.count / 2]) ms, p99 \(command.last!) ms")
            #expect(try numbers(drones) == before, "UAV numbers changed across the outages")
        }
    }

    static func ms(_ d: Duration) -> Int { Int(d / .milliseconds(1)) }

    /// How soon both sides must show the pair in session again, and a command must be answered: 1.5 s, of which the
    /// kernel may take 1 s. A path that comes back does not carry unicast at once: during the outage the sender's
    /// neighbour entry for the peer failed (ARP or IPv6 neighbour discovery got no answer), and resolution is retried
    /// every RetransTimer (`retrans_time_ms`, 1 s by default, RFC 4861 §10), so the first datagram may wait 0–1 s
    /// after the restore (measured 2026-11-26: packets captured on both hosts started 670 ms after `ip link set up`,
    /// and the session was up 259 ms after the first one; with `retrans_time_ms = 50` in the lab hosts every pair was
    /// back in 12–79 ms, 15 of 15). It happens for every kind: a link outage fails ARP and neighbour discovery, a
    /// firewall (ip6tables) drops neighbour discovery with everything else (ARP passes iptables), and one way the
    /// solicitations of both sides go unanswered (one side's are dropped, the other's answers are). Seen 2026-11-30
    /// with tcpdump on a drone that stopped hearing the station for 10 s: once the station's solicitation for the
    /// drone left just before the rules were removed (dropped), its next one 1.0 s later released the 14 datagrams its
    /// kernel had queued, the command among them (in session 1,001 ms, answered 1,012 ms after the restore); once
    /// the drone's own solicitation did the same, holding its acknowledgements, while the command that reached it
    /// waited behind reliable messages lost in the outage (answered 1,028 ms after the restore). One way, 21 runs:
    /// host 4's command answered 148–1,056 ms after the restore, 8 of them over 900 ms. The lab keeps the kernel's
    /// default, as the field has it.
    static let sessionBound: Duration = .milliseconds(1500)
    func ms(_ d: Duration) -> Int { Self.ms(d) }

    /// Cuts one station–drone pair, waits for both sides to see the loss, keeps it cut `extra` seconds more, restores,
    /// and times the recovery.
    static func outage(kind: Kind, lab: Lab, station: NodeProcess, drone: NodeProcess, number: Int, extra: Int)
        async throws -> Recovery
    {
        let h = String(drone.host)
        // One way: even hosts stop hearing the station, odd hosts are not heard by it.
        let oneWay = drone.host % 2 == 0 ? ("1", h) : (h, "1")
        switch kind {
        case .link: _ = try lab.lab("cut", h)
        case .firewall: _ = try lab.lab("block", "1", h)
        case .oneWay: _ = try lab.lab("drop", oneWay.0, oneWay.1)
        }
        // Both sides see the loss; one way, only the side that no longer hears does (the other still hears data).
        let deafStation = kind != .oneWay || oneWay.1 == "1"
        let deafDrone = kind != .oneWay || oneWay.1 == h
        // (Polls are kept coarse where the time is not measured: six nodes and their daemons share two cores.)
        try await waitUntil("the loss is seen (\(kind), \(drone.name))", timeout: .seconds(5), poll: .milliseconds(50))
        {
            let a = station.peerState(drone.name)
            let b = drone.peerState("station")
            let stationSees = a != "established" && a != "suspect"
            let droneSees = b != "established" && b != "suspect"
            return (!deafStation || stationSees) && (!deafDrone || droneSees)
        }
        // The outage itself: the scenario's time, not a wait for a condition.
        try await Task.sleep(for: .seconds(extra))
        // Timed from just before the restore command (the rules go somewhere inside it): conservative.
        let clock = ContinuousClock()
        let restored = clock.now
        switch kind {
        case .link: _ = try lab.lab("restore", h)
        case .firewall: _ = try lab.lab("unblock", "1", h)
        case .oneWay: _ = try lab.lab("undrop", oneWay.0, oneWay.1)
        }
        // From the restore on, the operator keeps asking: a command to the drone, again as soon as one goes unanswered
        // (1 s) or is refused by the station for want of a route. The drone's own answer (accepted, or rejected for
        // its own reason) means commands flow again. Meanwhile the sessions are watched.
        async let commandFlows: (Duration, [String]) = {
            var attempts: [String] = []
            let deadline = restored + .seconds(10)
            while clock.now < deadline {
                let sent = clock.now
                let r = try ControlClient.request(
                    ControlRequest.send(.init(uav: number, args: ["hover"], timeoutMs: 1000)),
                    socket: station.socketPath, timeout: .seconds(3))
                guard let report = r.command, let first = report.answers.first else {
                    attempts.append("\(ms(sent - restored)) ms: \(r.error ?? "no answer")")
                    continue
                }
                if first.answer == "rejected", let reason = first.reason,
                    reason.contains("unknown UAV number") || reason.contains("no route")
                {
                    attempts.append("\(ms(sent - restored)) ms: rejected (\(reason))")
                    try await Task.sleep(for: .milliseconds(10))
                    continue
                }
                return (sent - restored + .milliseconds(first.afterMs), attempts)
            }
            throw LabError(
                "\(drone.name) answered no command within 10 s of the restore (\(kind), +\(extra) s): \(attempts)")
        }()
        try await waitUntil(
            "station and \(drone.name) back in session (\(kind), +\(extra) s)", timeout: .seconds(10),
            poll: .milliseconds(20)
        ) {
            station.peerState(drone.name) == "established" && drone.peerState("station") == "established"
        }
        // When each side itself saw the peer come back (its own clock, mapped onto ours), not when our poll noticed.
        func backAt(_ node: NodeProcess, _ peer: String) throws -> ContinuousClock.Instant {
            let before = clock.now
            let s = try node.status()
            let asked = before + (clock.now - before) / 2
            let started = asked - .milliseconds(s.node.uptimeMs)
            let since = try #require(s.peers.first { $0.name == peer }?.stateSinceMs)
            return started + .milliseconds(since)
        }
        let inSession = max(try backAt(station, drone.name), try backAt(drone, "station")) - restored
        let (answered, attempts) = try await commandFlows
        return Recovery(
            host: drone.host, kind: kind, inSession: inSession, commandAnswered: answered, attempts: attempts)
    }
}
