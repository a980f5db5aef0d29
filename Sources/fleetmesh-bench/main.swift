// `make bench`: every benchmark group in one run; `fleetmesh-bench GROUP…` runs only the named groups.
if CommandLine.arguments.dropFirst().first == "emulate-drones" {
    try await DroneEmulator.run(Array(CommandLine.arguments.dropFirst(2)))
}
let out = BenchOutput()
let all: [(String, (BenchOutput) async throws -> Void)] = [
    ("lab", MeshLabBenchmarks.run),
    ("airtime", AirtimeBenchmarks.run),
    ("airtime-sim", AirtimeSimulationBenchmarks.run),
    ("commands", FleetLabBenchmarks.commands),
    ("manual", FleetLabBenchmarks.manual),
    ("manual-fleet", FleetLabBenchmarks.manualUnderFleet),
    ("manual-fleet-link", FleetLabBenchmarks.manualUnderFleetOnTheLink),
    ("station", FleetLabBenchmarks.station),
    ("secure", SecureTransportBenchmarks.run),
    ("datagram", DatagramBenchmarks.run),
    ("coordinator", CoordinatorBenchmarks.run),
    ("flight", FlightBenchmarks.run),
    ("avoidance", AvoidanceBenchmarks.run),
    ("autopilot-avoidance", AutopilotAvoidanceBenchmarks.run),
    ("mavlink", MAVLinkBenchmarks.run),
    ("gcs", GroundControlBenchmarks.run),
    ("dashboard", DashboardBenchmarks.run),
    ("flightlog", FlightLogBenchmarks.run),
    ("inspection", InspectionBenchmarks.run),
    ("deploy", DeploymentBenchmarks.run),
]
let wanted = Set(CommandLine.arguments.dropFirst())
for (name, run) in all where wanted.isEmpty || wanted.contains(name) {
    try await run(out)
}
