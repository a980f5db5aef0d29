import Foundation
import Logging
import Node
import ServiceLifecycle

/// `fleetmesh-bench emulate-drones N STATION KEY DIR SECONDS [--group-namespaces PREFIX FIRST]`: N real drone nodes
/// (NodeShell, simulated vehicle, UDP socket each) in one process, dialling STATION ("host:port") as their only static
/// peer, with mDNS off. Used on a lab host to put a station under the load of a large fleet without N processes.
///
/// With `--group-namespaces`, drone i makes its socket in the network namespace PREFIX(FIRST + i) (`scripts/lab bare`
/// makes them, one veth each on the lab's bridge, its port isolated from the other bare ones) on the mesh port, and uses
/// the group channel there: the drones share the station's link as in the field, each hearing the station (and the
/// lab's hosts) but not the other emulated drones, as drones spread around their station out of one another's range.
/// (Every drone hearing every other would cost this one process N² datagrams, which N computers share in the field.)
enum DroneEmulator {
    static func run(_ args: [String]) async throws {
        var args = args
        var namespaces: (prefix: String, first: Int)?
        if args.count == 8, args[5] == "--group-namespaces", let first = Int(args[7]) {
            namespaces = (args[6], first)
            args.removeLast(3)
        }
        guard args.count == 5, let n = Int(args[0]), n > 0, let seconds = Double(args[4]) else {
            FileHandle.standardError.write(
                Data(
                    "usage: fleetmesh-bench emulate-drones N STATION_HOST:PORT KEY_FILE DIR SECONDS [--group-namespaces PREFIX FIRST]\n"
                        .utf8))
            exit(64)
        }
        LoggingSystem.bootstrap { label in
            var h = StreamLogHandler.standardError(label: label)
            h.logLevel = .warning
            return h
        }
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        for i in 0..<n {
            var c = NodeConfiguration(
                name: "emu-\(i)", role: .drone, keyFile: args[2], stateDirectory: "\(args[3])/emu-\(i)",
                controlSocket: "\(args[3])/emu-\(i).sock", port: 0, advertise: false, discover: false,
                staticPeers: [args[1]])
            c.subscribeToTargetSources = false
            if let namespaces {
                c.networkNamespace = namespaces.prefix + String(namespaces.first + i)
                c.groupWithoutDiscovery = true
                c.port = NodeConfiguration.defaultPort
            }
            services += try await NodeServices(configuration: c, logger: Logger(label: "emu-\(i)")).services()
        }
        FileHandle.standardError.write(Data("emulating \(n) drones for \(seconds) s\n".utf8))
        let group = ServiceGroup(
            configuration: .init(
                services: services,
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: Logger(label: "emulator")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            tasks.addTask {
                try await Task.sleep(for: .seconds(seconds))
                await group.triggerGracefulShutdown()
            }
            try await tasks.waitForAll()
        }
        exit(0)
    }
}
