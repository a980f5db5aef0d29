// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "FleetMesh",
    products: [
        .executable(name: "fleetmesh", targets: ["fleetmesh"]),
        .library(name: "FleetMeshNode", targets: ["Node"]),
        // For the allocation-counting benchmarks in Benchmarks/ (a package of their own, outside `make test`).
        .library(name: "FleetMeshSecureTransport", targets: ["SecureTransport", "MeshTypes"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // The runtime of the dashboard's generated server (Sources/Dashboard/Generated; the generator itself is built
        // apart, in Tools/openapi, by `make openapi`) and its Hummingbird transport.
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird", from: "2.1.0"),
        // The node's runtime figures as Prometheus metrics (Sources/Node/Metrics): swift-prometheus's registry and its
        // text exposition (it brings swift-metrics' CoreMetrics, whose handlers its types implement).
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // The flight log (Sources/FlightLog): SQLite in WAL mode, the schema migrated by version.
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // Shipping the flight log to a PostgreSQL server (Sources/FlightLogShipping).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // `fleetmesh log bundle`'s archive (zip: opens on every reviewer's machine).
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
    ],
    targets: [
        // C shim over libavahi-client (apt: libavahi-client-dev).
        .systemLibrary(name: "CAvahi", pkgConfig: "avahi-client", providers: [.apt(["libavahi-client-dev"])]),

        // Pure cores: no sockets, no clocks, no NIOPosix.
        .target(name: "MeshTypes"),
        // The seeded random generator every simulation, benchmark and randomized test shares.
        .target(name: "Determinism"),
        .target(
            name: "SecureTransport",
            dependencies: [
                "MeshTypes",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]),
        .target(name: "Membership", dependencies: ["MeshTypes", .product(name: "NIOCore", package: "swift-nio")]),
        // The mesh layer of a node, pure: secure endpoint + membership + reliable channels and the rules between them.
        .target(
            name: "MeshCore",
            dependencies: [
                "MeshTypes", "SecureTransport", "Membership", .product(name: "NIOCore", package: "swift-nio"),
            ]),
        .target(name: "Coordinator", dependencies: ["MeshTypes", "Geodesy", "Flight"]),
        // A whole node, pure: the mesh layer and the coordinator with the rules between them.
        .target(
            name: "NodeCore",
            dependencies: [
                "MeshTypes", "SecureTransport", "Membership", "MeshCore", "Coordinator",
                .product(name: "NIOCore", package: "swift-nio"),
            ]),
        .target(name: "Geodesy"),
        .target(name: "Flight", dependencies: ["Determinism", "Geodesy"]),
        .target(name: "MAVLink", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        // Target sources (`_loc-broadcaster._udp`): datagram format, subscriber and source state machines.
        .target(
            name: "LocBroadcaster",
            dependencies: [
                "Coordinator", "MeshTypes", .product(name: "Crypto", package: "swift-crypto"),
            ]),
        // Deterministic simulation of many coordinators on a virtual clock and network.
        .target(
            name: "MeshSimulation",
            dependencies: [
                "Determinism", "Coordinator", "MeshTypes", "MeshCore", "Membership", "NodeCore", "SecureTransport",
            ]),
        // Collision avoidance between drones from shared predictions: detection, resolution, multi-drone simulation.
        .target(name: "Avoidance", dependencies: ["Determinism", "Flight", "Geodesy"]),
        // Inspection missions: point clouds (PCD, PLY), a sparse occupancy map, routes through snapshot points.
        .target(name: "Inspection", dependencies: ["Avoidance", "Flight", "Geodesy"]),
        // Typed reading of TOML tables with errors that name the field: the config and scenario files share it.
        .target(name: "TOMLFields", dependencies: [.product(name: "TOMLKit", package: "TOMLKit")]),
        // Scenario files (TOML) for the flight simulator, with or without collision avoidance.
        .target(
            name: "Scenarios",
            dependencies: [
                "Flight", "Geodesy", "Avoidance", "Inspection", "TOMLFields",
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]),
        // The MAVLink bridge: an autopilot driven from the mesh (drones), the fleet shown to ground-control software (stations).
        .target(name: "MAVLinkBridge", dependencies: ["MAVLink", "Coordinator", "Flight", "Geodesy", "MeshTypes"]),
        // One vehicle protocol: the simulator and an autopilot session behind it, collision avoidance above it.
        .target(
            name: "Vehicles",
            dependencies: [
                "Avoidance", "ControlProtocol", "Coordinator", "Flight", "Geodesy", "MAVLink", "MAVLinkBridge",
                "MeshTypes",
            ]),
        // An in-process multirotor autopilot speaking MAVLink (ArduPilot Copter and PX4 conventions) for tests.
        .target(name: "AutopilotEmulation", dependencies: ["Determinism", "MAVLink", "Flight", "Geodesy"]),

        // Crossing scenarios of N drones of any mix (simulated, emulated ArduPilot / PX4) behind the vehicle protocol,
        // on one virtual clock: shared by the tests and the benchmarks.
        .target(
            name: "AvoidanceScenarios",
            dependencies: [
                "AutopilotEmulation", "Avoidance", "Coordinator", "Flight", "Geodesy", "MeshTypes", "Vehicles",
            ]),

        // The flight log: what a node recorded (SQLite through GRDB), its flights and their figures, and the exports
        // (CSV, GeoJSON, KML, GPX, MAVLink telemetry logs).
        .target(
            name: "FlightLog",
            dependencies: [
                "Coordinator", "Flight", "MAVLinkBridge", "MeshTypes", .product(name: "GRDB", package: "GRDB.swift"),
            ]),

        // Ships a node's flight log to PostgreSQL: the local SQLite log is the outbox, every row keyed so it arrives
        // exactly once however often the connection drops.
        .target(
            name: "FlightLogShipping",
            dependencies: [
                "FlightLog", .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]),

        // The control socket's typed requests and answers, and a client: all a CLI, script or test needs to talk to a node.
        .target(name: "ControlProtocol"),

        // I/O shells.
        .target(
            name: "Discovery",
            dependencies: [
                "CAvahi", "MeshTypes",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        // The station dashboard: HTTP API (server code generated from Web/openapi.yaml), live WebSocket picture and the
        // page (Hummingbird), over typed control requests.
        .target(
            name: "Dashboard",
            dependencies: [
                "ControlProtocol", "Flight", "FlightLog", "Geodesy", "Inspection",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            resources: [.copy("Web")]),
        .target(
            name: "Node",
            dependencies: [
                "ControlProtocol", "Dashboard", "MeshTypes", "SecureTransport", "Membership", "MeshCore", "NodeCore",
                "Discovery",
                "Coordinator", "Flight", "Geodesy", "LocBroadcaster", "Avoidance",
                "MAVLink", "MAVLinkBridge", "Vehicles",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                "TOMLFields", "FlightLog", "FlightLogShipping",
            ]),

        // Drives scripts/lab and `fleetmesh run` processes: used by the lab tests, the benchmarks and the demo.
        // `fleetmesh doctor`: why a node is not in the mesh (the machine, Avahi, the firewall, the running node).
        .target(
            name: "Doctor",
            dependencies: [
                "ControlProtocol", "Discovery", "Node", "SecureTransport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        .target(name: "LabKit", dependencies: ["ControlProtocol", "Geodesy", "Node"]),

        // Executables only compose.
        .executableTarget(
            name: "fleetmesh",
            dependencies: [
                "ControlProtocol", "Dashboard", "Node", "FlightLog", "Geodesy", "Flight", "Scenarios", "Avoidance",
                "Inspection", "Doctor", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]),
        .executableTarget(name: "fleetmesh-demo", dependencies: ["ControlProtocol", "LabKit"]),
        // The deterministic whole-node simulations at scale (release-built by `make soak`, with the field's own timings).
        .executableTarget(name: "fleetmesh-sim", dependencies: ["MeshSimulation", "MeshTypes", "NodeCore"]),
        .executableTarget(
            name: "fleetmesh-bench",
            dependencies: [
                "Inspection",
                "ControlProtocol", "Determinism", "Node", "LabKit", "SecureTransport", "Membership", "MeshTypes",
                "Coordinator", "MeshSimulation", "NodeCore", "Geodesy", "Flight", "MAVLink", "Avoidance",
                "AvoidanceScenarios",
                "AutopilotEmulation", "Vehicles", "FlightLog", "FlightLogShipping",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]),

        // Counts the test thread's heap allocations (a malloc that forwards to glibc's): the zero-allocation checks.
        .target(name: "AllocationCounter", path: "Tests/AllocationCounter"),
        .testTarget(
            name: "SecureTransportTests",
            dependencies: ["AllocationCounter", "Determinism", "SecureTransport", "MeshTypes"],
            exclude: ["verify-secure-transport-vector.py"]),
        .testTarget(name: "MembershipTests", dependencies: ["Membership"]),
        .testTarget(
            name: "FlightLogTests",
            dependencies: [
                "FlightLog", "FlightLogShipping", "LabKit", "Coordinator", "Flight",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(name: "LocBroadcasterTests", dependencies: ["LocBroadcaster", "Coordinator", "MeshTypes"]),
        .testTarget(
            name: "CoordinatorTests", dependencies: ["Coordinator", "Determinism", "MeshTypes"],
            exclude: ["decode-prediction-path.py"]),
        .testTarget(
            name: "MeshSimulationTests",
            dependencies: [
                "Determinism", "MeshSimulation", "MeshCore", "Membership", "Coordinator", "MeshTypes", "NodeCore",
                "SecureTransport",
            ]),
        .testTarget(
            name: "GeodesyTests", dependencies: ["Geodesy"], exclude: ["make-vectors.sh"],
            resources: [.copy("Resources")]),
        .testTarget(
            name: "InspectionTests", dependencies: ["Inspection", "Avoidance", "Flight", "Geodesy", "Determinism"]),
        .testTarget(name: "FlightTests", dependencies: ["Determinism", "Flight", "Geodesy", "Scenarios"]),
        .testTarget(
            name: "AvoidanceTests", dependencies: ["Determinism", "Avoidance", "Flight", "Geodesy", "Scenarios"]),
        .testTarget(name: "MAVLinkTests", dependencies: ["Determinism", "MAVLink"], exclude: ["pymav_vectors.py"]),
        .testTarget(
            name: "MAVLinkBridgeTests",
            dependencies: ["Determinism", "MAVLinkBridge", "MAVLink", "Coordinator", "Flight", "MeshTypes"]),
        .testTarget(
            name: "NodeTests",
            dependencies: [
                "Node", "Dashboard", "MeshCore", "Membership", "Coordinator", "MeshTypes", "SecureTransport",
                "Avoidance", "Discovery", "Flight", "FlightLog", "LabKit",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "VehiclesTests",
            dependencies: [
                "Vehicles", "AutopilotEmulation", "Avoidance", "AvoidanceScenarios", "Coordinator", "Flight", "Geodesy",
                "MAVLink", "MAVLinkBridge", "MeshTypes",
            ]),
        .testTarget(
            name: "AutopilotEmulationTests", dependencies: ["AutopilotEmulation", "MAVLink", "Flight", "Geodesy"]),
        .testTarget(name: "ControlProtocolTests", dependencies: ["ControlProtocol"]),
        .testTarget(name: "DoctorTests", dependencies: ["Doctor", "ControlProtocol", "Node"]),
        .testTarget(
            name: "DashboardTests",
            dependencies: [
                "ControlProtocol", "Coordinator", "Dashboard", "Flight", "FlightLog", "Geodesy", "Inspection",
                "MeshTypes",
                "Vehicles", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]),
        .testTarget(
            name: "LabTests",
            dependencies: [
                "ControlProtocol", "Dashboard", "Node", "LabKit", "FlightLog", "Geodesy", "Inspection", "Doctor",
            ],
            exclude: [
                "udp_tool.py", "journal_receiver.py", "dashboard_browser.py", "dashboard_live.py", "lab_browser.py",
                "dashboard_tiles.py",
                "flight_review_browser.py", "inspection_browser.py",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
