import Foundation
import MAVLink
import Testing

@Suite struct GeneratorTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The generator's CRC_EXTRA and payload lengths agree with pymavlink for every message of common.xml
    /// (not only the generated subset).
    @Test func crcExtraOfEveryCommonMessageMatchesPymavlink() throws {
        let (status, output) = try Self.runGenerator(["--verify-with-pymavlink"])
        #expect(status == 0, "\(output)")
        #expect(output.contains(" 0 mismatches"), "\(output)")
    }

    static func runGenerator(_ arguments: [String]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", root.appendingPathComponent("Tools/mavgen/mavgen.py").path] + arguments
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = pipe
        try process.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    /// The committed Sources/MAVLink/Generated must be exactly what Tools/mavgen/mavgen.py produces today.
    @Test func committedGeneratedSourcesAreUpToDate() throws {
        let committed = Self.root.appendingPathComponent("Sources/MAVLink/Generated")
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("mavgen-check-\(getpid())")
        defer { try? FileManager.default.removeItem(at: scratch) }

        let (status, output) = try Self.runGenerator(["--out", scratch.path])
        try #require(status == 0, "mavgen failed (needs pymavlink: `python3 -m pip install pymavlink`): \(output)")

        let fm = FileManager.default
        func files(_ base: URL) -> [String] {
            (fm.enumerator(atPath: base.path)?.compactMap { $0 as? String } ?? [])
                .filter { $0.hasSuffix(".swift") }.sorted()
        }
        let fresh = files(scratch)
        #expect(fresh == files(committed), "generated file set differs; re-run the generator (see DOC.md)")
        for name in fresh {
            let a = try Data(contentsOf: scratch.appendingPathComponent(name))
            let b = try? Data(contentsOf: committed.appendingPathComponent(name))
            #expect(
                a == b,
                """
                \(name) is stale: re-run `python3 Tools/mavgen/mavgen.py --out Sources/MAVLink/Generated`. If the \
                "Definitions" line of MAVLinkMessage.swift differs, the installed pymavlink ships other XML than the \
                one the committed code was generated from.
                """)
        }
        #expect(fresh.count == MAVLinkMessage.generatedTypes.count + 1 + fresh.filter { $0.hasPrefix("Enums/") }.count)
    }
}
