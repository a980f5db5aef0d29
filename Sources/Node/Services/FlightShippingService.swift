import ControlProtocol
import FlightLog
import FlightLogShipping
import Foundation
import Logging
import ServiceLifecycle

/// Ships the flight log to PostgreSQL (`[log] postgres`): the local log is the outbox, read in batches of rows the
/// server has not stored; each batch is one transaction there and is marked shipped here only after its commit. While
/// the server is down or unreachable the node records locally as ever, reports it (status, an event, the log) and
/// tries again with a growing pause (1 s to 10 s); once back it catches up at full speed. On graceful shutdown it
/// ships what it can in one last pass and stops.
struct FlightShippingService: Service, CustomStringConvertible {
    let target: PostgresTarget
    let file: String
    let shell: NodeShell
    let logger: Logger

    /// How often an idle shipper looks for new rows.
    static let pollInterval: Duration = .milliseconds(500)
    static let maximumPause: Duration = .seconds(10)

    var description: String { "FlightShippingService(\(target.display))" }

    func run() async throws {
        var connection: FlightLogShipper.Session?
        var shipper: FlightLogShipper?
        var pause: Duration = .seconds(1)
        var shipped = 0
        var lagMs: Int64?
        var problem: String?
        func report(_ store: FlightLogStore?) async {
            let backlog = (try? store?.outboxBacklog(target: target.display)) ?? 0
            await shell.setFlightShippingReport(
                FlightLogShippingReport(
                    target: target.display, connected: connection != nil && problem == nil, problem: problem,
                    shipped: shipped, backlog: backlog, lagMs: lagMs))
        }
        func fail(_ error: any Error) async {
            let text = "\(error)"
            if text != problem {
                problem = text
                logger.warning("\(text)")
                await shell.flightShippingProblem(text, target: target.display)
            }
            await connection?.close()
            connection = nil
        }
        while true {
            let stopping = Task.isShuttingDownGracefully || Task.isCancelled
            do {
                if shipper == nil {
                    // The recorder makes and migrates the log; until it exists there is nothing to ship.
                    guard FileManager.default.fileExists(atPath: file) else { throw WaitForLog() }
                    shipper = FlightLogShipper(
                        target: target, store: try FlightLogStore(path: file, mustExist: true), logger: logger)
                }
                guard let shipper else { throw WaitForLog() }
                if connection == nil {
                    connection = try await shipper.connect()
                    logger.info("flight log: shipping to \(target.display)")
                }
                guard let c = connection else { continue }
                // Catch up: batch after batch while the server is behind.
                while true {
                    let batch = try await shipper.shipNext(on: c)
                    if batch.rowCount == 0 { break }
                    shipped += batch.rowCount
                    if let newest = batch.newestTelemetryMs {
                        lagMs = FlightRecorderService.nowMs() - newest
                    }
                    if Task.isCancelled { break }
                }
                if problem != nil {
                    problem = nil
                    await shell.flightShippingProblem(nil, target: target.display)
                }
                pause = .seconds(1)
                await report(shipper.store)
                if stopping {
                    await connection?.close()
                    return
                }
                try? await Task.sleep(for: Self.pollInterval)
            } catch is WaitForLog {
                if stopping {
                    await connection?.close()
                    return
                }
                try? await Task.sleep(for: Self.pollInterval)
            } catch {
                await fail(error)
                await report(shipper?.store)
                if stopping {
                    await connection?.close()
                    return
                }
                try? await Task.sleep(for: pause)
                pause = min(pause * 2, Self.maximumPause)
            }
        }
    }

    private struct WaitForLog: Error {}
}
