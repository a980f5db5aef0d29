import LabKit
import Testing

/// Expects no node to have logged an error or a warning, naming the node and its first ten such lines otherwise.
func expectQuietLogs(_ nodes: [NodeProcess], sourceLocation: SourceLocation = #_sourceLocation) {
    for node in nodes {
        let lines = node.log.split(separator: "\n").filter {
            $0.contains(" error ") || $0.contains(" warning ")
        }
        #expect(
            lines.isEmpty, "\(node.name) logged:\n\(lines.prefix(10).joined(separator: "\n"))",
            sourceLocation: sourceLocation)
    }
}
