import Foundation
import Testing

/// Runs independent tools (PCL's command-line converters, Python with Open3D) for cross-checks.
enum ExternalTools {
    struct Output {
        var status: Int32
        var text: String
    }

    /// The executable's full path if it is on PATH.
    static func find(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let candidate = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Runs `tool` (a name on PATH or a path) and returns its exit status and combined output.
    static func run(_ tool: String, _ arguments: [String]) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool.contains("/") ? tool : (find(tool) ?? tool))
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(status: process.terminationStatus, text: String(decoding: data, as: UTF8.self))
    }

    static let hasPCL = find("pcl_convert_pcd_ascii_binary") != nil
    static let hasPCLPLY = find("pcl_pcd2ply") != nil && find("pcl_ply2pcd") != nil
    static let hasOpen3D: Bool = {
        guard find("python3") != nil else { return false }
        return (try? run("python3", ["-c", "import open3d"]).status) == 0
    }()

    /// A fresh empty directory under /tmp.
    static func temporaryDirectory(_ label: String) throws -> String {
        let path = NSTemporaryDirectory() + "inspection-\(label)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Point-by-point comparison; text formats written by other tools may round (relative `tolerance`).
func expectSamePoints(
    _ got: [SIMD3<Float>], _ want: [SIMD3<Float>], tolerance: Float = 0, _ what: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    guard got.count == want.count else {
        Issue.record(
            "\(what): \(got.count) points, expected \(want.count)", sourceLocation: sourceLocation)
        return
    }
    for i in got.indices {
        let a = got[i]
        let b = want[i]
        let close = (0..<3).allSatisfy { k in
            a[k] == b[k] || abs(a[k] - b[k]) <= tolerance * abs(b[k])
        }
        if !close {
            Issue.record("\(what): point \(i) is \(a), expected \(b)", sourceLocation: sourceLocation)
            return
        }
    }
}
