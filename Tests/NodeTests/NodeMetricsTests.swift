import Avoidance
import Coordinator
import Flight
import Foundation
import Membership
import MeshTypes
import Testing

@testable import Node

/// The text exposition parsed back: each family's type and help, and every sample with its labels.
struct Exposition {
    var types: [String: String] = [:]
    var help: [String: String] = [:]
    var samples: [(name: String, labels: [String: String], value: Double)] = []

    init(_ bytes: [UInt8]) throws {
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let words = line.split(separator: " ", maxSplits: 3)
            if line.hasPrefix("# TYPE ") {
                types[String(words[2])] = String(words[3])
            } else if line.hasPrefix("# HELP ") {
                help[String(words[2])] = String(words[3])
            } else {
                let space = try #require(line.lastIndex(of: " "), "\(line)")
                let series = line[..<space]
                let value = try #require(Double(line[line.index(after: space)...]), "\(line)")
                var labels: [String: String] = [:]
                var name = String(series)
                if let brace = series.firstIndex(of: "{") {
                    name = String(series[..<brace])
                    let inside = series[series.index(after: brace)..<series.index(before: series.endIndex)]
                    for pair in inside.split(separator: ",") {
                        let kv = pair.split(separator: "=", maxSplits: 1)
                        labels[String(kv[0])] = String(kv[1].dropFirst().dropLast())
                    }
                }
                samples.append((name, labels, value))
            }
        }
    }

    /// The value of the one sample `name` with exactly `labels`.
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        let matches = samples.filter { $0.name == name && $0.labels == labels }
        return matches.count == 1 ? matches[0].value : nil
    }
}

/// The node's metrics render what the node counts, with Prometheus's names, types, labels and help, and show the counts
/// kept elsewhere as they stand (not added up scrape after scrape).
@Suite struct NodeMetricsTests {
    func snapshot() -> MetricsSnapshot {
        var s = MetricsSnapshot()
        s.uptimeSeconds = 12.5
        s.peers = [.established: 3, .suspect: 1]
        s.sessions = 3
        s.relayedNodes = 2
        s.traffic.received([3] + Array(repeating: 0, count: 99))
        s.traffic.received([3] + Array(repeating: 0, count: 49))
        s.traffic.received([1] + Array(repeating: 0, count: 102))
        s.traffic.received([4] + Array(repeating: 0, count: 59))
        s.traffic.received([0x17, 1, 2])
        s.traffic.sent([4] + Array(repeating: 0, count: 79), copies: 2)
        s.traffic.sent([2] + Array(repeating: 0, count: 98))
        s.rejections = [
            "decryptionFailed": 2, "groupBadTag": 1, "replayedCounter": 4, "groupMalformed": 5,
            "unknownReceiverIndex": 6, "somethingNew": 7, "stale": 8,
        ]
        s.socketRebinds = 1
        s.floodsPruned = 11
        s.unreadByKernel = 9
        s.unreadByQueue = 10
        for ms in [0.05, 0.1, 0.3, 2.0, 2000] { s.roundTrips.record(.microseconds(Int64(ms * 1000))) }
        for ms in [3.0, 30.0] { s.groupWaits.record(.microseconds(Int64(ms * 1000))) }
        s.liveVehicles = 2
        s.staleVehicles = 1
        s.oldestTelemetrySeconds = 0.25
        s.separationNow = 12.5
        s.separationPredicted = 6.25
        s.manualSamples = 40
        s.targetsFromSources = 3
        s.avahiUp = true
        return s
    }

    @Test func aKnownSnapshotRendersAsItsNamesTypesLabelsAndValues() throws {
        let metrics = NodeMetrics(role: "drone", name: "drone-2", node: "00ff")
        let e = try Exposition(metrics.render(snapshot()))
        #expect(e.value("fleetmesh_node_info", ["role": "drone", "name": "drone-2", "node": "00ff"]) == 1)
        #expect(e.value("fleetmesh_uptime_seconds") == 12.5)
        #expect(e.types["fleetmesh_peers"] == "gauge")
        for state in PeerState.allCases {
            let expected: Double = state == .established ? 3 : state == .suspect ? 1 : 0
            #expect(e.value("fleetmesh_peers", ["state": state.rawValue]) == expected, "\(state)")
        }
        #expect(e.value("fleetmesh_sessions") == 3 && e.value("fleetmesh_relayed_nodes") == 2)

        #expect(e.types["fleetmesh_datagrams_total"] == "counter" && e.types["fleetmesh_bytes_total"] == "counter")
        let inbound: [(String, Double, Double)] = [
            ("unicast", 2, 150), ("handshake", 1, 103), ("group", 1, 60), ("other", 1, 3),
        ]
        for (kind, datagrams, bytes) in inbound {
            #expect(e.value("fleetmesh_datagrams_total", ["direction": "in", "kind": kind]) == datagrams, "\(kind)")
            #expect(e.value("fleetmesh_bytes_total", ["direction": "in", "kind": kind]) == bytes, "\(kind)")
        }
        #expect(e.value("fleetmesh_datagrams_total", ["direction": "out", "kind": "group"]) == 2)
        #expect(e.value("fleetmesh_bytes_total", ["direction": "out", "kind": "group"]) == 160)
        #expect(e.value("fleetmesh_datagrams_total", ["direction": "out", "kind": "handshake"]) == 1)
        #expect(e.value("fleetmesh_datagrams_total", ["direction": "out", "kind": "unicast"]) == 0)

        let drops: [String: Double] = [
            "bad_tag": 3, "replay": 4, "malformed": 5, "unknown_peer": 6, "other": 7, "wrong_mesh_key": 0,
            "session_expired": 0, "unsupported_version": 0, "node_id_mismatch": 0, "stale": 8, "receive_buffer": 9,
            "receive_queue": 10,
        ]
        for (reason, n) in drops {
            #expect(e.value("fleetmesh_datagrams_dropped_total", ["reason": reason]) == n, "\(reason)")
        }
        #expect(e.samples.filter { $0.name == "fleetmesh_datagrams_dropped_total" }.count == drops.count)
        #expect(e.value("fleetmesh_socket_rebinds_total") == 1)
        #expect(e.value("fleetmesh_floods_pruned_total") == 11 && e.types["fleetmesh_floods_pruned_total"] == "counter")

        // The round trips: 0.05 and 0.1 ms in the first bucket (its bound inclusive), 0.3 ms under 0.5 ms, 2 ms under
        // 2.5 ms, 2 s only in +Inf.
        #expect(e.types["fleetmesh_rtt_seconds"] == "histogram")
        let buckets: [(String, Double)] = [
            ("0.0001", 2), ("0.00025", 2), ("0.0005", 3), ("0.001", 3), ("0.0025", 4), ("1.0", 4), ("+Inf", 5),
        ]
        for (le, n) in buckets { #expect(e.value("fleetmesh_rtt_seconds_bucket", ["le": le]) == n, "\(le)") }
        #expect(e.samples.filter { $0.name == "fleetmesh_rtt_seconds_bucket" }.count == 14)
        #expect(e.value("fleetmesh_rtt_seconds_count") == 5)
        #expect(abs((e.value("fleetmesh_rtt_seconds_sum") ?? 0) - 2.00245) < 1e-9)
        // The group datagrams' waits: 3 ms under 5 ms, 30 ms under 50 ms.
        #expect(e.types["fleetmesh_group_wait_seconds"] == "histogram")
        #expect(e.value("fleetmesh_group_wait_seconds_bucket", ["le": "0.0025"]) == 0)
        #expect(e.value("fleetmesh_group_wait_seconds_bucket", ["le": "0.005"]) == 1)
        #expect(e.value("fleetmesh_group_wait_seconds_bucket", ["le": "0.05"]) == 2)
        #expect(e.value("fleetmesh_group_wait_seconds_count") == 2)

        #expect(e.value("fleetmesh_vehicles", ["state": "live"]) == 2)
        #expect(e.value("fleetmesh_vehicles", ["state": "stale"]) == 1)
        #expect(e.value("fleetmesh_telemetry_age_max_seconds") == 0.25)
        #expect(e.value("fleetmesh_separation_min_metres") == 12.5)
        #expect(e.value("fleetmesh_separation_predicted_min_metres") == 6.25)
        #expect(e.value("fleetmesh_manual_control_samples_total") == 40)
        #expect(e.value("fleetmesh_source_targets_total") == 3)
        #expect(e.value("fleetmesh_avahi_up") == 1)

        // Every family has help text, and every name says its unit or is a count.
        for name in e.types.keys {
            #expect(e.help[name]?.isEmpty == false, "\(name) has no help")
            #expect(name.hasPrefix("fleetmesh_"), "\(name)")
        }
        #expect(e.types.count == 25, "\(e.types.keys.sorted())")
    }

    @Test func countsKeptElsewhereShowAsTheyStandAndEventsAddUp() throws {
        let metrics = NodeMetrics(role: "station", name: "s", node: "01")
        var s = snapshot()
        _ = metrics.render(s)
        metrics.commandAnswered(.accepted)
        metrics.commandAnswered(.completed)
        metrics.commandAnswered(.rejected(.unknownUAVNumber(3)))
        metrics.commandTimedOut()
        metrics.vehicleCommand("failed")
        metrics.failsafe(.returnHome)
        metrics.failsafe(.returnHome)
        metrics.failsafeReported()
        metrics.avahiLost()
        metrics.malformedMessage()
        s.traffic.received([3, 0, 0, 0])
        s.rejections["decryptionFailed"] = 10
        let e = try Exposition(metrics.render(s))
        // Set to the node's own totals each scrape, not added to the last scrape's.
        #expect(e.value("fleetmesh_datagrams_total", ["direction": "in", "kind": "unicast"]) == 3)
        #expect(e.value("fleetmesh_bytes_total", ["direction": "in", "kind": "unicast"]) == 154)
        #expect(e.value("fleetmesh_datagrams_dropped_total", ["reason": "bad_tag"]) == 11)
        #expect(e.value("fleetmesh_rtt_seconds_count") == 5)
        for (outcome, n) in [("accepted", 1.0), ("completed", 1), ("rejected", 1), ("failed", 0), ("timed_out", 1)] {
            #expect(e.value("fleetmesh_commands_total", ["outcome": outcome]) == n, "\(outcome)")
        }
        #expect(e.value("fleetmesh_vehicle_commands_total", ["outcome": "failed"]) == 1)
        #expect(e.value("fleetmesh_vehicle_commands_total", ["outcome": "timed_out"]) == nil)
        #expect(e.value("fleetmesh_failsafes_total", ["action": "return_home"]) == 2)
        #expect(e.value("fleetmesh_failsafes_total", ["action": "land"]) == 0)
        #expect(e.value("fleetmesh_failsafe_reports_total") == 1)
        #expect(e.value("fleetmesh_avahi_restarts_total") == 1)
        #expect(e.value("fleetmesh_coordinator_messages_malformed_total") == 1)
    }

    @Test func aFigureWithNothingToMeasureIsAbsentNotZero() throws {
        let metrics = NodeMetrics(role: "station", name: "s", node: "01")
        var s = snapshot()
        s.separationNow = nil
        s.separationPredicted = nil
        s.oldestTelemetrySeconds = nil
        s.avahiUp = nil
        let e = try Exposition(metrics.render(s))
        for name in [
            "fleetmesh_separation_min_metres", "fleetmesh_separation_predicted_min_metres",
            "fleetmesh_telemetry_age_max_seconds", "fleetmesh_avahi_up",
        ] {
            #expect(e.types[name] == nil && !e.samples.contains { $0.name == name }, "\(name)")
        }
        // Back when there is something, and gone again.
        s.separationNow = 4
        #expect(try Exposition(metrics.render(s)).value("fleetmesh_separation_min_metres") == 4)
        s.separationNow = nil
        #expect(try Exposition(metrics.render(s)).types["fleetmesh_separation_min_metres"] == nil)
    }

    /// Separation is measured between drones level with each other (within the vertical minimum), now and over the
    /// prediction horizon.
    @Test func separationIsTheClosestLevelPairNowAndAhead() {
        func track(_ uav: Int, from start: Vector3, velocity: Vector3) -> AirspaceTrack {
            let points = (1...40).map { i -> PredictedTrajectory.Point in
                let t = Double(i) * 0.2
                return .init(offset: t, position: start + velocity * t)
            }
            return AirspaceTrack(
                uavNumber: uav, avoiding: true, prediction: PredictedTrajectory(time: 0, origin: start, points: points))
        }
        let hovering = track(1, from: Vector3(0, 0, 10), velocity: .zero)
        // 30 m east, closing at 2 m/s: 14 m apart at the horizon (8 s).
        let closing = track(2, from: Vector3(30, 0, 11), velocity: Vector3(-2, 0, 0))
        // 5 m away but 20 m above: another layer, not a loss of separation.
        let above = track(3, from: Vector3(0, 5, 30), velocity: .zero)
        let snapshot = AirspaceSnapshot(tracks: [hovering, closing, above], now: 0, configuration: .init())
        let (now, ahead) = snapshot.levelSeparation()
        #expect(
            abs((now ?? 0) - 30) < 1e-6 && abs((ahead ?? 0) - 14) < 1e-6,
            "\(String(describing: now)) \(String(describing: ahead))")
        let apart = AirspaceSnapshot(tracks: [hovering, above], now: 0, configuration: .init()).levelSeparation()
        #expect(apart.now == nil && apart.predicted == nil)
    }

    /// What a scrape costs: the render (no series per peer, so its cost does not grow with the fleet) and the one part
    /// of a scrape that grows faster than the fleet, the separation of 100 airborne drones (n² pairs × 41
    /// instants, worked out off the node's actor). Printed for docs/DASHBOARD.md; the bounds are loose (a debug build
    /// on a shared machine).
    @Test func aScrapeOfAHundredDroneFleetCostsLittle() throws {
        let metrics = NodeMetrics(role: "station", name: "s", node: "01")
        var s = snapshot()
        s.peers = [.established: 95, .suspect: 3, .lost: 2]
        s.sessions = 95
        for i in 0..<100_000 { s.roundTrips.record(.microseconds(Int64(100 + i % 5000))) }
        let clock = ContinuousClock()
        var bytes = 0
        let renders = 200
        let render = clock.measure { for _ in 0..<renders { bytes = metrics.render(s).count } }
        // A 10 × 10 grid of hovering drones 20 m apart, all at 10 m.
        var tracks: [AirspaceTrack] = []
        for i in 0..<100 {
            let spot = Vector3(Double(i % 10) * 20, Double(i / 10) * 20, 10)
            let points = (1...40).map { PredictedTrajectory.Point(offset: Double($0) * 0.2, position: spot) }
            tracks.append(
                AirspaceTrack(
                    uavNumber: i + 1, avoiding: true,
                    prediction: PredictedTrajectory(time: 0, origin: spot, points: points)))
        }
        var separation: Double?
        let airspace = clock.measure {
            let snapshot = AirspaceSnapshot(tracks: tracks, now: 0, configuration: .init())
            separation = snapshot.levelSeparation().now
        }
        let perRender = render / renders
        print(
            "metrics scrape: render \(bytes) bytes in \(perRender); separation of 100 drones (snapshot and pairs) in \(airspace)"
        )
        #expect(bytes > 5000 && separation == 20)
        #expect(perRender < .milliseconds(20) && airspace < .seconds(2))
    }

    @Test func roundTripBucketsIncludeTheirBoundAndNegativeSamplesCountAsZero() {
        var h = LatencyHistogram(bounds: [.milliseconds(1), .milliseconds(10)])
        h.record(.milliseconds(-3))
        h.record(.milliseconds(1))
        h.record(.nanoseconds(1_000_001))
        h.record(.seconds(5))
        #expect(h.counts == [2, 1, 1] && h.cumulativeCounts == [2, 3, 4])
        #expect(h.count == 4 && h.sumNanoseconds == 1_000_000 + 1_000_001 + 5_000_000_000)
    }

    @Test func datagramsAreTalliedByTheirMessageType() {
        var t = DatagramTally()
        for first: UInt8 in [1, 2, 3, 4, 0, 5, 255] { t.received([first]) }
        t.received([])
        #expect(t.datagramsIn == [2, 1, 1, 4])
        #expect(t.bytesIn == [2, 1, 1, 3])
    }
}
