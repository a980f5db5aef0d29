import ArgumentParser
import FlightLog
import Foundation

/// `fleetmesh log replay`: the recorded fleet to ground-control software as if it were flying.
struct LogReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Play recorded flights to QGroundControl or MAVProxy over MAVLink, as if the fleet were flying.",
        discussion: """
            Sends what the station's ground-control endpoint sent for each vehicle (HEARTBEAT, GLOBAL_POSITION_INT, \
            ATTITUDE, SYS_STATUS, VFR_HUD, …) with each UAV number as its system id, at the recorded pace (or \
            --speed times faster), every vehicle aligned on the mission's one clock. A FLIGHT replays every vehicle \
            recorded over that flight's time; --uav keeps one.
            Examples:
              fleetmesh log replay 3 --speed 4                   (to QGroundControl on this machine, UDP 14550)
              fleetmesh log replay --since 2026-11-26T20:00:00Z --until 2026-11-26T20:30:00Z --to 10.0.0.5:14550
            """)

    @OptionGroup var source: LogSource
    @OptionGroup var selection: LogSelection
    @Option(help: "How many times faster than recorded (0.1–100).")
    var speed = 1.0
    @Option(help: "Where ground-control software listens: IPv4 or [IPv6] address and UDP port.")
    var to = "127.0.0.1:14550"

    func run() async throws {
        guard (0.1...100).contains(speed) else {
            throw failure("error: --speed must be 0.1–100, found \(speed)", code: 64)
        }
        let store = try source.open()
        let (chosen, what) = try selection.resolve(in: store, wholeFleet: true)
        let samples: [TelemetryRecord]
        do { samples = try store.telemetry(chosen) } catch { throw failure("error: \(error)", code: 1) }
        let tracks = ExportTrack.tracks(samples).filter { $0.uavNumber != nil }
        guard !tracks.isEmpty else {
            throw failure("error: no telemetry with a UAV number recorded for \(what) (\(store.path))", code: 1)
        }
        let home = LogSelection.homeAltitude(store)
        let frames = tracks.flatMap { TelemetryLogExport.frames($0, homeAltitude: home) }.sorted {
            $0.micros < $1.micros
        }
        let socket = try UDPSender(to)
        let first = frames[0].micros
        let span = Double(frames.last!.micros - first) / 1e6
        let uavs = tracks.compactMap(\.uavNumber).map(String.init).joined(separator: ", ")
        FileHandle.standardError.write(
            Data(
                String(
                    format: "replaying %@: UAV %@, %.1f s recorded, at %.1f× to %@\n", what, uavs, span, speed, to
                ).utf8))
        let clock = ContinuousClock()
        let start = clock.now
        var reported = 0.0
        for (micros, frame) in frames {
            let due = start + .microseconds(Int64(Double(micros - first) / speed))
            if due > clock.now { try await Task.sleep(until: due, clock: clock) }
            try socket.send(frame)
            let played = Double(micros - first) / 1e6
            if played - reported >= 10 {
                reported = played
                FileHandle.standardError.write(Data(String(format: "  %.0f of %.0f s\n", played, span).utf8))
            }
        }
        print(
            String(
                format: "replayed %d frames of %d UAVs (%.1f s recorded) to %@", frames.count, tracks.count, span, to))
    }
}

/// A flight, a UAV and times, as `log export` and `log replay` take them.
struct LogSelection: ParsableArguments {
    @Argument(help: "A flight's number (FLIGHT in `fleetmesh log flights`).")
    var flight: Int64?
    @Option(help: "Only this UAV number.")
    var uav: Int?
    @Option(help: "From this time (ISO 8601, UTC unless an offset is given, or milliseconds since 1970).")
    var since: String?
    @Option(help: "Until this time.")
    var until: String?

    /// The telemetry to read and its name in messages. A flight's own vehicle only, or with `wholeFleet` every
    /// vehicle over its time.
    func resolve(in store: FlightLogStore, wholeFleet: Bool) throws -> (TelemetrySelection, String) {
        if let uav, !(1...250).contains(uav) { throw failure("error: --uav must be 1–250, found \(uav)", code: 64) }
        var selection = TelemetrySelection(uavNumber: uav)
        selection.fromMs = try since.map { try LogTime.parse($0, option: "--since") }
        selection.toMs = try until.map { try LogTime.parse($0, option: "--until") }
        var what = uav.map { "UAV \($0)" } ?? "the fleet"
        if let flight {
            let row: FlightRow?
            do { row = try store.flight(flight) } catch { throw failure("error: \(error)", code: 1) }
            guard let row else {
                throw failure("error: no flight \(flight) in \(store.path) (see `fleetmesh log flights`)", code: 1)
            }
            if !wholeFleet { selection.node = row.node }
            selection.fromMs = max(selection.fromMs ?? .min, row.startMs)
            selection.toMs = min(selection.toMs ?? .max, row.endMs ?? row.lastMs)
            what = "flight \(flight)"
        }
        return (selection, what)
    }

    /// The mission's map origin altitude, from the newest run that recorded one.
    static func homeAltitude(_ store: FlightLogStore) -> Double? {
        ((try? store.runs()) ?? []).compactMap { $0.run.mapOriginAltitude }.last
    }
}

/// A UDP socket sending to one address.
struct UDPSender {
    let fd: Int32
    let address: [UInt8]

    init(_ endpoint: String) throws {
        var host = Substring(endpoint)
        var port = ""
        if endpoint.hasPrefix("["), let close = endpoint.firstIndex(of: "]") {
            host = endpoint[endpoint.index(after: endpoint.startIndex)..<close]
            port = String(endpoint[endpoint.index(after: close)...].dropFirst())
        } else if let colon = endpoint.lastIndex(of: ":") {
            host = endpoint[..<colon]
            port = String(endpoint[endpoint.index(after: colon)...])
        }
        guard let number = Int(port), (1...65535).contains(number), !host.isEmpty else {
            throw failure(
                "error: --to expects ADDRESS:PORT, such as 127.0.0.1:14550 or [::1]:14550, found \"\(endpoint)\"",
                code: 64)
        }
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(String(host), String(number), &hints, &result) == 0, let info = result else {
            throw failure("error: --to: \"\(host)\" is not a numeric IPv4 or IPv6 address", code: 64)
        }
        defer { freeaddrinfo(result) }
        fd = socket(info.pointee.ai_family, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else {
            throw failure("error: cannot open a UDP socket: \(String(cString: strerror(errno)))", code: 71)
        }
        address = Array(UnsafeRawBufferPointer(start: info.pointee.ai_addr, count: Int(info.pointee.ai_addrlen)))
    }

    func send(_ bytes: [UInt8]) throws {
        let sent = address.withUnsafeBytes { a in
            bytes.withUnsafeBytes { b in
                sendto(
                    fd, b.baseAddress, b.count, 0, a.baseAddress!.assumingMemoryBound(to: sockaddr.self),
                    socklen_t(a.count))
            }
        }
        // Nobody listening (ECONNREFUSED from an earlier datagram) is not an error for a stream like this.
        if sent < 0, errno != ECONNREFUSED {
            throw failure(
                "error: cannot send to the ground-control address: \(String(cString: strerror(errno)))", code: 74)
        }
    }
}
