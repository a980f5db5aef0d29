import Discovery
import Logging
import Node
import ServiceLifecycle

/// What a few seconds of DNS-SD showed: whether avahi-daemon answered over D-Bus, and the FleetMesh records resolved.
struct DNSSDBrowse: Sendable {
    /// The daemon answered (its client reached the running state).
    var daemonAvailable = false
    /// Why not, in Avahi's words, when it did not.
    var unavailableReason: String?
    /// Resolved `_fleetmesh._udp` records, by service key (the latest of each).
    var records: [ServiceKey: ServiceRecord] = [:]
    /// Lookups that failed (a resolver timing out on a half-gone record).
    var lookupFailures: [String] = []

    /// Browses `_fleetmesh._udp` through this machine's avahi-daemon for `time`. Never publishes anything.
    static func run(for time: Duration) async -> DNSSDBrowse {
        var logger = Logger(label: "fleetmesh.doctor")
        logger.logLevel = .critical
        let discovery: AvahiDiscovery
        do {
            discovery = try AvahiDiscovery(logger: logger)
        } catch {
            return DNSSDBrowse(unavailableReason: "\(error)")
        }
        let events = discovery.subscribe(browsing: [NodeConfiguration.serviceType])
        let collector = Collector(events: events, time: time)
        let group = ServiceGroup(
            configuration: .init(
                services: [
                    .init(service: discovery),
                    .init(service: collector, successTerminationBehavior: .gracefullyShutdownGroup),
                ], logger: logger))
        try? await group.run()
        return await collector.result.value
    }

    /// Reads the events until `time` has passed.
    final class Collector: Service, @unchecked Sendable {
        let events: AsyncStream<DiscoveryEvent>
        let time: Duration
        let result = Box()

        init(events: AsyncStream<DiscoveryEvent>, time: Duration) {
            self.events = events
            self.time = time
        }

        func run() async throws {
            let box = result
            let events = self.events
            await withTaskGroup(of: Void.self) { tasks in
                tasks.addTask {
                    for await event in events {
                        await box.apply(event)
                    }
                }
                tasks.addTask { [time] in try? await Task.sleep(for: time) }
                await tasks.next()
                tasks.cancelAll()
            }
        }
    }

    actor Box {
        var value = DNSSDBrowse()
        func apply(_ event: DiscoveryEvent) {
            switch event {
            case .daemonAvailable:
                value.daemonAvailable = true
                value.unavailableReason = nil
            case .daemonUnavailable(let reason):
                if !value.daemonAvailable { value.unavailableReason = reason }
            case .resolved(let record):
                value.records[record.key] = record
            case .removed(let key):
                value.records[key] = nil
            case .lookupFailed(let reason):
                value.lookupFailures.append(reason)
            case .found, .published, .renamed, .publishFailed:
                break
            }
        }
    }
}
