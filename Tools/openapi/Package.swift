// swift-tools-version:6.2
// The OpenAPI generator, apart from the main package (building it costs minutes, and every fresh clone would pay them
// if the main package used the build plugin): `make openapi` runs it over Sources/Dashboard/Web/openapi.yaml and
// writes Sources/Dashboard/Generated, which is committed.
import PackageDescription

let package = Package(
    name: "fleetmesh-openapi",
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", exact: "1.14.3")
    ]
)
