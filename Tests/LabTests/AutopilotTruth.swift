import ControlProtocol
import Foundation
import LabKit

/// A drone node flying the pymavlink autopilot emulator (Tests/mavlink/autopilot_emulator.py) in the lab, with the
/// files the emulator writes: what it received (`events`, JSON lines) and its true state at 10 Hz (`track`).
struct EmulatedAutopilot {
    var name: String
    var flavour: String
    var node: NodeProcess
    var emulator: LabProgram
    var events: String
    var track: String

    /// The emulator's settings for the avoidance scenarios, as a field copter flies: a 0.4 s response lag, 50 ms
    /// transport delay, 2.5 m/s of wind (the same at every drone: one field) with 0.8 m/s gusts, 0.3 m of GPS error on
    /// what it reports; PX4's real OFFBOARD rule (a 0.5 s setpoint stream first); each drone its own seed.
    static func fieldConditions(seed: Int) -> [String] {
        [
            "--lag", "0.4", "--delay", "0.05", "--wind", "2.0,-1.5,0.8", "--gps-noise", "0.3", "--seed", String(seed),
            "--offboard-prestream", "0.5",
        ]
    }

    /// Starts the emulator (`flavour` "ardupilot" or "px4", home at `home` with 300 m above sea level) and a drone
    /// node named `name` flying it over UDP on `host`.
    static func start(
        _ lab: Lab, host: Int, name: String, flavour: String, home: (lat: Double, lon: Double),
        conditions: [String], extraNodeConfig: String = ""
    ) throws -> EmulatedAutopilot {
        let events = lab.directory.appendingPathComponent("\(name)-events.jsonl").path
        let track = lab.directory.appendingPathComponent("\(name)-track.jsonl").path
        let emulator = try lab.start(
            host: host, tag: name,
            [
                "python3", "-u", MAVLinkLabTests.emulator, "--flavour", flavour, "--sysid", "1",
                "--link", "udpout:127.0.0.1:14601", "--home", "\(home.lat),\(home.lon),300", "--events", events,
                "--track", track,
            ] + conditions)
        let node = try lab.startNode(
            host: host, name: name, extra: "[drone]\nvehicle = \"mavlink:udpin:14601\"\n\(extraNodeConfig)",
            logLevel: "info")
        return EmulatedAutopilot(
            name: name, flavour: flavour, node: node, emulator: emulator, events: events, track: track)
    }

    /// With `LAB_KEEP=DIR` in the environment, copies the emulator's event log and track and the node's log into DIR
    /// (the lab's folder goes at teardown), for a look at what the autopilot and the node saw.
    func keep() {
        guard let dir = ProcessInfo.processInfo.environment["LAB_KEEP"] else { return }
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for file in [events, track, node.logPath] {
            let to = URL(fileURLWithPath: dir).appendingPathComponent(URL(fileURLWithPath: file).lastPathComponent)
            try? FileManager.default.removeItem(at: to)
            try? FileManager.default.copyItem(atPath: file, toPath: to.path)
        }
    }

    /// The emulator's event log, one JSON object per line.
    func eventLog() -> [[String: Any]] {
        let text = (try? String(contentsOfFile: events, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }
}

/// The drones' true positions over time, to measure separation on: autopilot drones from their emulators' `--track`
/// files (free of GPS error and telemetry latency), simulated drones (exact positions) from the station's picture.
/// Times are the machine's wall clock, which every lab host shares.
struct TruthTracks {
    struct Sample {
        var t: Double
        var e: Double
        var n: Double
        var u: Double
    }

    /// One instant two drones were inside both minima.
    struct Violation: CustomStringConvertible {
        /// When, wall-clock seconds.
        var at: Double
        var horizontal: Double
        /// Vertical distance, metres.
        var vertical: Double
        var description: String
    }

    /// The closest level approach of one pair.
    struct Pair: CustomStringConvertible {
        var a: String
        var b: String
        /// Smallest horizontal distance while both were airborne and vertically closer than the minimum, metres
        /// (infinity: never level).
        var closest: Double
        /// Instants horizontally and vertically inside the minima.
        var violations: [Violation]

        var description: String { String(format: "%@–%@ %.2f m", a, b, closest) }
    }

    let map: LabMap
    private(set) var samples: [String: [Sample]] = [:]

    init(home: (lat: Double, lon: Double)) { map = LabMap(home: (home.lat, home.lon)) }

    /// Adds a sample of a drone (a simulated one, from the picture).
    mutating func record(_ name: String, t: Double, e: Double, n: Double, u: Double) {
        samples[name, default: []].append(Sample(t: t, e: e, n: n, u: u))
    }

    /// Replaces a drone's samples with its emulator's track file (JSON lines: t, lat, lon, alt).
    mutating func load(_ autopilot: EmulatedAutopilot) {
        let text = (try? String(contentsOfFile: autopilot.track, encoding: .utf8)) ?? ""
        samples[autopilot.name] = text.split(separator: "\n").compactMap { line in
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let t = o["t"] as? Double, let lat = o["lat"] as? Double, let lon = o["lon"] as? Double,
                let alt = o["alt"] as? Double
            else { return nil }
            let p = map.local(latitude: lat, longitude: lon)
            return Sample(t: t, e: p.east, n: p.north, u: alt)
        }
    }

    /// A drone's last sample.
    func last(_ name: String) -> Sample? { samples[name]?.last }

    /// A drone's position at `t`, interpolated between its two nearest samples (nil outside them, or across a gap
    /// longer than a second).
    func position(_ name: String, at t: Double) -> Sample? {
        guard let s = samples[name], let first = s.first, let last = s.last, t >= first.t, t <= last.t else {
            return nil
        }
        var lo = 0
        var hi = s.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if s[mid].t <= t { lo = mid } else { hi = mid }
        }
        let (a, b) = (s[lo], s[hi])
        guard b.t - a.t <= 1 else { return nil }
        let f = b.t > a.t ? (t - a.t) / (b.t - a.t) : 0
        return Sample(t: t, e: a.e + (b.e - a.e) * f, n: a.n + (b.n - a.n) * f, u: a.u + (b.u - a.u) * f)
    }

    /// Every pair's closest level approach between `from` and `to` (wall-clock seconds) on a 0.1 s grid: both
    /// airborne (above 1.5 m), vertically closer than `vertical`; a violation is horizontally closer than `horizontal`
    /// too (AvoidanceConfiguration's minima: 5 m, 2.9 m).
    func separation(
        _ pairs: [(String, String)], from: Double, to: Double, horizontal: Double = 5, vertical: Double = 2.9
    ) -> [Pair] {
        pairs.map { (a, b) in
            var pair = Pair(a: a, b: b, closest: .infinity, violations: [])
            var t = from
            while t <= to {
                defer { t += 0.1 }
                guard let p = position(a, at: t), let q = position(b, at: t), p.u > 1.5, q.u > 1.5,
                    abs(p.u - q.u) < vertical
                else { continue }
                let d = hypot(p.e - q.e, p.n - q.n)
                pair.closest = min(pair.closest, d)
                if d < horizontal {
                    let text = String(
                        format: "%@–%@ %.2f m apart at %.1f / %.1f m up, t %.1f", a, b, d, p.u, q.u, t - from)
                    pair.violations.append(Violation(at: t, horizontal: d, vertical: abs(p.u - q.u), description: text))
                }
            }
            return pair
        }
    }
}

/// Every unordered pair of `names`.
func allPairs(_ names: [String]) -> [(String, String)] {
    names.indices.flatMap { i in names.indices.filter { $0 > i }.map { (names[i], names[$0]) } }
}

/// Wall-clock seconds, the time base of the emulators' tracks.
func wallClock() -> Double { Date().timeIntervalSince1970 }

extension TruthTracks {
    /// The two drones of `pair` around its first violation: their true positions every half second from `before`
    /// seconds ahead of it to a second after, and the avoidance decisions their nodes logged then (`logs` by drone
    /// name). What a failed run prints, so that a loss of separation seen once in CI can be explained from its output.
    func explain(_ pair: Pair, logs: [String: NodeProcess], before: Double = 6) -> String {
        guard let first = pair.violations.first else { return "" }
        var lines = ["\(pair.a) and \(pair.b) around their first violation (t = 0; east, north, up in metres):"]
        var t = first.at - before
        while t <= first.at + 1 {
            defer { t += 0.5 }
            guard let p = position(pair.a, at: t), let q = position(pair.b, at: t) else { continue }
            lines.append(
                String(
                    format: "  t %+5.1f  %@ (%6.1f, %6.1f, %5.1f)  %@ (%6.1f, %6.1f, %5.1f)  apart %5.2f m, %4.2f m up",
                    t - first.at, pair.a, p.e, p.n, p.u, pair.b, q.e, q.n, q.u, hypot(p.e - q.e, p.n - q.n),
                    abs(p.u - q.u)))
        }
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for name in [pair.a, pair.b] {
            guard let node = logs[name] else { continue }
            let decisions = node.log.split(separator: "\n").filter { line in
                guard line.contains("avoidance") || line.contains("autopilot"),
                    let stamp = line.split(separator: " ").first, let date = iso.date(from: String(stamp))
                else { return false }
                return abs(date.timeIntervalSince1970 - first.at + before / 2) <= before / 2 + 1
            }
            lines.append("  \(name)'s decisions:")
            lines += decisions.suffix(30).map { line in
                let stamp = line.split(separator: " ").first.flatMap { iso.date(from: String($0)) }
                let rel = stamp.map { String(format: "%+5.1f", $0.timeIntervalSince1970 - first.at) } ?? "?"
                let text = line.range(of: "[Node] ").map { line[$0.upperBound...] } ?? line
                return "    t \(rel)  \(text)"
            }
        }
        return lines.joined(separator: "\n")
    }
}
