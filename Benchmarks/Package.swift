// swift-tools-version:6.1
// The secure transport's hot path, measured apart from the main package so that neither `swift build`, `make test` nor
// CI builds these (ordo-one/benchmark and its malloc interposer are needed here only). From the repository root:
//
//   make bench-mallocs   # swift package --package-path Benchmarks benchmark: wall clock and mallocs per datagram
//   make bench-count     # secure-transport-count under valgrind's callgrind: instructions per datagram
//
// docs/BENCHMARKS.md (Secure transport) records the figures and how they were taken.
import PackageDescription

let package = Package(
    name: "FleetMeshBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "FleetMesh", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // ordo-one/benchmark: wall-clock and malloc counts of seal+open, buffers and arrays, sessions and group.
        .executableTarget(
            name: "SecureTransportAllocations",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "FleetMeshSecureTransport", package: "FleetMesh"),
            ],
            path: "SecureTransportAllocations",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
        // A fixed number of seal+open, synchronous and single-threaded: what callgrind counts instructions of. (Not
        // directly in Benchmarks/: the benchmark plugin runs every executable target there as a benchmark.)
        .executableTarget(
            name: "secure-transport-count",
            dependencies: [.product(name: "FleetMeshSecureTransport", package: "FleetMesh")],
            path: "Tools/SecureTransportCount"),
    ],
    swiftLanguageModes: [.v6]
)
