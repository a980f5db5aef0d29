import Logging
import ServiceLifecycle

/// A part the node cannot run without (DNS-SD, the control socket, the target-source subscription): if it fails, the
/// log names it and says the node stops, and the group shuts down gracefully (goodbyes go out) and ends with the
/// failure.
struct EssentialService: Service, CustomStringConvertible {
    let part: String
    let service: any Service
    let logger: Logger

    var description: String { part }

    func run() async throws {
        do {
            try await service.run()
        } catch is CancellationError {
        } catch {
            logger.critical("\(part) failed: \(error); stopping the node")
            throw NodeFailure(part: part, underlying: "\(error)")
        }
    }
}

/// A part of the node that stopped with an error; the node stops with it.
public struct NodeFailure: Error, CustomStringConvertible {
    public let part: String
    public let underlying: String
    public var description: String { "\(part) failed: \(underlying)" }
}
