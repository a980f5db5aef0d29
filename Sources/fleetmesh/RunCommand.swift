import ArgumentParser
import Foundation
import Logging
import Node
import ServiceLifecycle

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Start a node (stops on SIGINT/SIGTERM).")

    @Option(name: .shortAndLong, help: "The node's TOML config file (see Config/station.toml, Config/drone.toml).")
    var config: String

    @Option(help: "Override the config's log level (trace, debug, info, notice, warning, error).")
    var logLevel: String?

    func run() async throws {
        let configuration: NodeConfiguration
        do {
            configuration = try NodeConfiguration.load(path: config)
        } catch {
            throw failure("error: \(error)", code: 78)
        }
        let level = Logger.Level(rawValue: logLevel ?? configuration.logLevel) ?? .info
        // Under systemd, with standard error going to the journal: structured entries (JournalLogHandler).
        let journal = JournalLogHandler.standardErrorIsJournal() ? JournalSocket() : nil
        LoggingSystem.bootstrap { label in
            if let journal {
                return JournalLogHandler(
                    label: label, level: level, node: configuration.name, role: configuration.role.rawValue,
                    socket: journal)
            }
            return NodeLogHandler(label: label, level: level)
        }
        let logger = Logger(label: "fleetmesh.\(configuration.name)")
        let node: NodeServices
        do {
            node = try NodeServices(configuration: configuration, logger: logger)
        } catch {
            throw failure("error: \(error)", code: 78)
        }
        do {
            let group = ServiceGroup(
                configuration: .init(
                    services: try await node.services(), gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
            try await group.run()
        } catch {
            throw failure("error: \(error)", code: 1)
        }
    }
}

/// Prints `text` to standard error and returns the exit code to throw (sysexits-style codes).
func failure(_ text: String, code: Int32) -> ExitCode {
    FileHandle.standardError.write(Data((text + "\n").utf8))
    return ExitCode(code)
}
