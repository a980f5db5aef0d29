import Foundation
import Testing

@testable import Dashboard

/// The table of paths and methods behind 405 answers matches the OpenAPI document the station serves.
@Suite struct RoutesTests {
    @Test func theRoutesTableListsWhatTheOpenAPIDocumentDescribes() throws {
        let document = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/Dashboard/Web/openapi.yaml")
        let text = try String(contentsOf: document, encoding: .utf8)
        var described: [String: Set<String>] = [:]
        var path: String?
        for line in text.split(separator: "\n") {
            if line.hasPrefix("  /"), line.hasSuffix(":") {
                path = String(line.dropFirst(2).dropLast())
            } else if let p = path, line.hasPrefix("    "), !line.hasPrefix("     "),
                let method = ["get", "post", "put", "patch", "delete"].first(where: { line == "    \($0):" })
            {
                described[p, default: []].insert(method.uppercased())
            } else if !line.hasPrefix(" ") {
                path = nil
            }
        }
        let served = Dictionary(
            uniqueKeysWithValues: DashboardService.routes.filter {
                !["/api/openapi.yaml", "/api/v1/live"].contains($0.path)
            }
            .map { ($0.path, Set($0.methods.map(\.rawValue))) })
        #expect(!described.isEmpty)
        #expect(served == described)
    }

    @Test func aKnownPathWithAnotherMethodIsFoundAndAnUnknownOneIsNot() {
        #expect(DashboardService.methods(for: "/api/v1/uavs/7/commands") == [.post])
        #expect(DashboardService.methods(for: "/api/v1/status") == [.get])
        #expect(DashboardService.methods(for: "/api/v1/uavs//commands") == nil)
        #expect(DashboardService.methods(for: "/api/v1/nothing") == nil)
    }
}
