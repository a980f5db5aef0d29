// `make bench`: every benchmark group in one run; `fleetmesh-bench GROUP…` runs only the named groups.
let out = BenchOutput()
let all: [(String, (BenchOutput) async throws -> Void)] = [
    ("lab", MeshLabBenchmarks.run),
    ("secure", SecureTransportBenchmarks.run),
    ("coordinator", CoordinatorBenchmarks.run),
    ("flight", FlightBenchmarks.run),
    ("mavlink", MAVLinkBenchmarks.run),
    ("gcs", GroundControlBenchmarks.run),
]
let wanted = Set(CommandLine.arguments.dropFirst())
for (name, run) in all where wanted.isEmpty || wanted.contains(name) {
    try await run(out)
}
