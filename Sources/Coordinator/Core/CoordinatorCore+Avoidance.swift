import MeshTypes

extension CoordinatorCore {
    /// Stations hear of a drone's avoidance decisions at most this often (the newest goes; those between are dropped).
    static let avoidanceReportInterval = Duration.seconds(1)

    /// Drone: the local vehicle's collision avoidance chose a new plan (`summary`, in words). It goes to every
    /// reachable station at once, or — after another report within the last second — when that second is over.
    public mutating func onLocalAvoidanceDecision(_ summary: String, now: MeshInstant) -> [Directive] {
        guard role == .drone else { return [] }
        pendingAvoidanceReport = summary
        return reportAvoidanceIfDue(now: now)
    }

    mutating func reportAvoidanceIfDue(now: MeshInstant) -> [Directive] {
        guard role == .drone, let summary = pendingAvoidanceReport, now >= nextAvoidanceReportAt else { return [] }
        refreshRoutes()
        let stations = database.values.filter { $0.role == .station && $0.origin != nodeID }.map(\.origin).sorted()
            .filter { routesStore[$0] != nil }
        // With no station reachable the decision waits for one (only the newest is kept).
        guard !stations.isEmpty else { return [] }
        pendingAvoidanceReport = nil
        nextAvoidanceReportAt = now + Self.avoidanceReportInterval
        let report = MeshPayload.avoidanceReport(AvoidanceReport(uavNumber: uavNumber ?? 0, summary: summary))
        return stations.flatMap { sendRouted(report, to: .node($0), now: now) }
    }
}
