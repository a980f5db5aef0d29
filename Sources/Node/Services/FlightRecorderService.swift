import ControlProtocol
import FlightLog
import Foundation
import Logging
import ServiceLifecycle

/// Writes the node's flight log off the mesh's path: every 200 ms it takes what the node queued (`FlightRecordQueue`)
/// and writes it in one transaction, so a node killed with SIGKILL loses at most the last interval. Retention runs at
/// start and hourly. A log that cannot be opened or written (a full or slow disk, a broken file) is reported — the
/// node's status, an event, the log — and retried every 10 s; the node flies on, and what could not be written is
/// counted as dropped. On graceful shutdown it writes what is left and stops.
struct FlightRecorderService: Service, CustomStringConvertible {
    let settings: FlightLogSettings
    let file: String
    let queue: FlightRecordQueue
    let shell: NodeShell
    let runRecord: RunRecord
    let logger: Logger

    static let flushInterval: Duration = .milliseconds(200)
    static let reopenInterval: Duration = .seconds(10)
    static let retentionInterval: Duration = .seconds(3600)

    var description: String { "FlightRecorderService(\(file))" }

    func run() async throws {
        let clock = ContinuousClock()
        var store: FlightLogStore?
        var runID: Int64 = 0
        var written = 0
        var nextOpen = clock.now
        var nextRetention = clock.now
        var problem: String?
        func fail(_ text: String) async {
            guard text != problem else { return }
            problem = text
            await shell.flightLogProblem(
                "\(text); the node flies on without recording, \(queue.counts.dropped) records dropped so far")
        }
        while true {
            let stopping = Task.isShuttingDownGracefully || Task.isCancelled
            if store == nil, clock.now >= nextOpen {
                nextOpen = clock.now + Self.reopenInterval
                do {
                    let opened = try FlightLogStore(path: file)
                    runID = try opened.beginRun(runRecord)
                    store = opened
                    if problem != nil {
                        problem = nil
                        await shell.flightLogProblem(nil)
                    }
                    logger.info("flight log: recording to \(file)")
                } catch {
                    await fail("\(error)")
                }
            }
            let batch = queue.drain()
            if let s = store {
                if !batch.isEmpty {
                    do {
                        try await s.append(batch, run: runID, dropped: queue.counts.dropped, nowMs: Self.nowMs())
                        written += batch.count
                        if problem != nil {
                            problem = nil
                            await shell.flightLogProblem(nil)
                        }
                    } catch {
                        queue.countLost(batch.count)
                        await fail("\(error)")
                    }
                }
                if clock.now >= nextRetention {
                    nextRetention = clock.now + Self.retentionInterval
                    let keepAfter = Self.nowMs() - Int64(settings.retentionDays * 86_400_000)
                    do {
                        let pruned = try await s.prune(
                            keepAfterMs: keepAfter, maxBytes: Int64(settings.maxMegabytes * 1_048_576))
                        if pruned.telemetry + pruned.events > 0 {
                            logger.info(
                                "flight log: retention removed \(pruned.telemetry) samples and \(pruned.events) events; \(pruned.bytes / 1_048_576) MB kept"
                            )
                        }
                    } catch {
                        logger.warning("flight log: retention failed: \(error)")
                    }
                }
            } else {
                queue.countLost(batch.count)
            }
            let counts = queue.counts
            await shell.setFlightLogReport(
                FlightLogReport(
                    path: file, recording: store != nil && problem == nil, problem: problem, written: written,
                    dropped: counts.dropped, bytes: store?.fileBytes ?? 0))
            if stopping { return }
            try? await Task.sleep(for: Self.flushInterval)
        }
    }

    static func nowMs() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }
}
