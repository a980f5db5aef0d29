import MeshTypes
import Testing

@testable import Node

/// The station's watch over its fleet: an autopilot falling silent and back, and a predicted loss of separation
/// raised once it lasted 1 s and cleared only after it stayed away for 2 s.
@Suite struct FleetWatchTests {
    let a = NodeID(high: 0, low: 1)
    let b = NodeID(high: 0, low: 2)
    func t(_ ms: UInt64) -> MeshInstant { MeshInstant(nanoseconds: ms * 1_000_000) }

    func vehicle(_ node: NodeID, _ label: String, quality: Int, stale: Bool = false) -> FleetWatch.Vehicle {
        FleetWatch.Vehicle(node: node, label: label, linkQuality: quality, stale: stale)
    }

    @Test func anAutopilotFallingSilentAndBackIsReportedOnceEach() {
        var w = FleetWatch()
        #expect(w.observe(vehicles: [vehicle(a, "UAV 3 (d)", quality: 100)], conflicts: [], now: t(0)).isEmpty)
        let silent = w.observe(vehicles: [vehicle(a, "UAV 3 (d)", quality: 0)], conflicts: [], now: t(500))
        #expect(silent.map(\.text) == ["UAV 3 (d): its flight controller is silent (no MAVLink from the autopilot)"])
        #expect(silent.first?.level == .warning && silent.first?.about == a)
        #expect(w.observe(vehicles: [vehicle(a, "UAV 3 (d)", quality: 0)], conflicts: [], now: t(1000)).isEmpty)
        // A stale sample says nothing about the autopilot.
        #expect(
            w.observe(vehicles: [vehicle(a, "UAV 3 (d)", quality: 80, stale: true)], conflicts: [], now: t(1500))
                .isEmpty)
        let back = w.observe(vehicles: [vehicle(a, "UAV 3 (d)", quality: 80)], conflicts: [], now: t(2000))
        #expect(back.map(\.text) == ["UAV 3 (d): flight controller heard again"])
    }

    @Test func aPredictedLossOfSeparationThatLastsIsRaisedOnceAndClearedAfterTwoSeconds() {
        var w = FleetWatch()
        let vehicles = [vehicle(a, "UAV 3 (d3)", quality: 100), vehicle(b, "UAV 4 (d4)", quality: 100)]
        let conflict = FleetWatch.Conflict(
            first: b, second: a, label: "UAV 4 (d4) and UAV 3 (d3)", inSeconds: 4.62, closest: 0.71)
        // A moment's conflict (avoiding drones replanning) says nothing; the count starts over after a clear check.
        #expect(w.observe(vehicles: vehicles, conflicts: [conflict], now: t(0)).isEmpty)
        #expect(w.observe(vehicles: vehicles, conflicts: [conflict], now: t(500)).isEmpty)
        #expect(w.observe(vehicles: vehicles, conflicts: [], now: t(1000)).isEmpty)
        #expect(w.observe(vehicles: vehicles, conflicts: [conflict], now: t(1500)).isEmpty)
        #expect(w.observe(vehicles: vehicles, conflicts: [conflict], now: t(2000)).isEmpty)
        let raised = w.observe(vehicles: vehicles, conflicts: [conflict], now: t(2500))
        #expect(
            raised.map(\.text) == [
                "UAV 4 (d4) and UAV 3 (d3): predicted closer than the separation in 4.6 s (closest 0.7 m)"
            ])
        // Seen again, and flickering away for less than 2 s: nothing new.
        #expect(w.observe(vehicles: vehicles, conflicts: [conflict], now: t(3000)).isEmpty)
        #expect(w.observe(vehicles: vehicles, conflicts: [], now: t(3500)).isEmpty)
        #expect(w.observe(vehicles: vehicles, conflicts: [], now: t(4500)).isEmpty)
        // The same pair the other way round is the same conflict.
        var swapped = conflict
        (swapped.first, swapped.second) = (a, b)
        #expect(w.observe(vehicles: vehicles, conflicts: [swapped], now: t(4900)).isEmpty)
        #expect(w.observe(vehicles: vehicles, conflicts: [], now: t(6500)).isEmpty)
        #expect(
            w.observe(vehicles: vehicles, conflicts: [], now: t(6900)).map(\.text) == [
                "UAV 3 (d3) and UAV 4 (d4): separated again"
            ])
        // Back for good: raised again after another second.
        #expect(w.observe(vehicles: vehicles, conflicts: [conflict], now: t(7000)).isEmpty)
        #expect(w.observe(vehicles: vehicles, conflicts: [conflict], now: t(8000)).count == 1)
    }
}
