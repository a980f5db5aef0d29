import ServiceLifecycle

/// A drone's link to its autopilot as a `Service`: what arrives goes to the coordinator's vehicle; it keeps trying to
/// open the link until the node stops.
struct AutopilotLinkService: Service, CustomStringConvertible {
    let link: AutopilotLink
    let coordinator: NodeShell

    var description: String { "AutopilotLinkService(\(link.endpoint))" }

    func run() async throws {
        let (link, coordinator) = (self.link, self.coordinator)
        await cancelWhenGracefulShutdown {
            await link.run { bytes, end in await coordinator.autopilotReceived(bytes, endOfDatagram: end) }
        }
    }
}
