import Foundation
import MeshTypes

/// What a node keeps between runs, in its state directory: its permanent id (file `node-id`, 32 hex digits).
public struct NodeState: Sendable {
    public let directory: String
    public let nodeID: NodeID

    /// Opens (creating if needed, mode 0700) the state directory and loads or makes the node id.
    public static func open(directory: String) throws -> NodeState {
        let fm = FileManager.default
        do {
            try fm.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw NodeStateError(
                path: directory, problem: "cannot create the state directory (\(NodeConfiguration.reason(error)))")
        }
        let idPath = directory + "/node-id"
        if fm.fileExists(atPath: idPath) {
            let text =
                (try? String(contentsOfFile: idPath, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
                ?? ""
            guard let id = NodeID(hex: text) else {
                throw NodeStateError(
                    path: idPath,
                    problem:
                        "expected 32 hexadecimal digits, found \"\(text.prefix(40))\"; delete the file to make a new identity"
                )
            }
            return NodeState(directory: directory, nodeID: id)
        }
        let id = NodeID.random()
        do {
            try (id.hex + "\n").write(toFile: idPath, atomically: true, encoding: .utf8)
        } catch {
            throw NodeStateError(path: idPath, problem: "cannot write the node id (\(NodeConfiguration.reason(error)))")
        }
        return NodeState(directory: directory, nodeID: id)
    }
}

/// A state-directory problem, naming the path.
public struct NodeStateError: Error, CustomStringConvertible {
    public let path: String
    public let problem: String
    public var description: String { "\(path): \(problem)" }
}
