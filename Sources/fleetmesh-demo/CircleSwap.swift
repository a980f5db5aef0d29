import Foundation
import LabKit

/// The demo's collision-avoidance step: the three drones on a circle 40 m across, then each to the opposite point at
/// once, every path through the centre at one altitude. Each drone decides from the shared predictions; the station
/// watches, and the demo reports how long the swap took and the closest pairs it saw.
@MainActor
func flyTheCircleSwap(
    bin: String, station: String, numbers: [Int], nodes: [NodeProcess], map: LabMap, home: (Double, Double)
) async throws {
    say("collision avoidance: three drones on a circle 40 m across at 12 m swap sides through its centre, at once")
    func slot(_ k: Int, _ side: Double) -> (east: Double, north: Double) {
        let a = Double(k) * 2 * .pi / 3
        return (side * 20 * sin(a), side * 20 * cos(a))
    }
    func gotoSlot(_ k: Int, _ side: Double) -> [String] {
        let p = slot(k, side)
        return [
            "goto", String(format: "%.7f", map.point(east: p.east, north: p.north).latitude),
            String(format: "%.7f", map.point(east: p.east, north: p.north).longitude), "12", "4",
        ]
    }
    _ = try await sendAll(
        bin, station, options: ["--timeout", "60"], numbers.enumerated().map { ($1, gotoSlot($0, 1)) })
    let avoidanceLines = nodes.dropFirst().map { $0.log.components(separatedBy: "avoidance: ").count }
    let across = numbers.enumerated().map { ($1, gotoSlot($0, -1)) }
    let swapStart = clock.now
    async let swapped = sendAll(bin, station, options: ["--timeout", "60"], across)
    var closestLevel = Double.infinity
    var closest = (distance: Double.infinity, horizontal: 0.0, vertical: 0.0)
    var arrivedAt: ContinuousClock.Instant?
    while arrivedAt == nil, clock.now - swapStart < .seconds(60), !stopRequested.isSet {
        let placed = try DemoQueries.placedDrones(station, numbers: numbers, home: home)
        for i in placed.indices {
            for j in placed.indices where j > i {
                let (a, b) = (placed[i], placed[j])
                let h = hypot(a.east - b.east, a.north - b.north), v = abs(a.up - b.up)
                if v < 2.9 { closestLevel = min(closestLevel, h) }
                if hypot(h, v) < closest.distance { closest = (hypot(h, v), h, v) }
            }
        }
        let there =
            placed.count == 3
            && placed.allSatisfy { p in
                let s = slot(numbers.firstIndex(of: p.uav)!, -1)
                return hypot(p.east - s.east, p.north - s.north) < 1.5 && abs(p.up - 12) < 1
            }
        if there { arrivedAt = clock.now }
        try await Task.sleep(for: .milliseconds(50))
    }
    for (_, output) in try await swapped {
        for line in output.split(separator: "\n") { say("  " + line) }
    }
    for (node, before) in zip(nodes.dropFirst(), avoidanceLines) {
        let decisions = node.log.components(separatedBy: "avoidance: ").dropFirst(before)
            .map { String($0.prefix { $0 != "\n" }) }
        say(
            "  \(node.name): "
                + (decisions.isEmpty
                    ? "kept its plan (higher priority)"
                    : decisions.prefix(3).joined(separator: "; ") + (decisions.count > 3 ? "; …" : "")))
    }
    let crossing =
        arrivedAt.map { String(format: "all across in %.1f s", ($0 - swapStart).secondsValue) }
        ?? String(format: "not all across after %.0f s", (clock.now - swapStart).secondsValue)
    say(
        crossing
            + String(
                format: " (straight line 10.0 s at 4 m/s); closest level pair %.1f m (minimum 5 m), "
                    + "closest pair %.1f m (%.1f m apart, %.1f m above each other)",
                closestLevel, closest.distance, closest.horizontal, closest.vertical))
    show("")
}
