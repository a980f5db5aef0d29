import Coordinator
import Logging
import MAVLink
import MAVLinkBridge
import MeshTypes

/// A drone's real autopilot: the `AutopilotSession` core with its link. Frames the core produces are queued on the
/// link; its reports become vehicle events for the coordinator shell or log lines.
struct AutopilotVehicle {
    var session: AutopilotSession
    let link: AutopilotLink
    let logger: Logger
    /// The drone's UAV number, to log how it maps to the autopilot's system id.
    var uavNumber: UInt8?
    /// Command descriptions, for the verdict's log line.
    private var labels: [CommandID: String] = [:]

    init(link: AutopilotLink, autopilotSystemID: UInt8?, logger: Logger) {
        var configuration = AutopilotSession.Configuration()
        configuration.autopilotSystemID = autopilotSystemID
        session = AutopilotSession(configuration: configuration)
        self.link = link
        self.logger = logger
    }

    mutating func receive(_ bytes: [UInt8], endOfDatagram: Bool, now: MeshInstant) -> [DroneVehicle.Event] {
        carry(session.receive(bytes, endOfDatagram: endOfDatagram, now: now))
    }

    mutating func advance(to now: MeshInstant) -> [DroneVehicle.Event] {
        carry(session.tick(now: now))
    }

    mutating func execute(_ id: CommandID, _ command: Command, now: MeshInstant) -> [DroneVehicle.Event] {
        labels[id] = FleetCommandParser.describe(command)
        return carry(session.execute(id, command, now: now))
    }

    mutating func applyTarget(_ target: Target, now: MeshInstant) -> [DroneVehicle.Event] {
        carry(session.applyTarget(target.location, now: now))
    }

    mutating func applyManualControl(_ sample: Coordinator.ManualControl, now: MeshInstant) -> [DroneVehicle.Event] {
        carry(session.applyManualControl(sample, now: now))
    }

    mutating func failsafe(_ action: FailsafeAction, now: MeshInstant) -> [DroneVehicle.Event] {
        carry(session.failsafe(action, now: now))
    }

    var coordinatorState: Coordinator.VehicleState? { session.vehicleState }

    var prediction: TrajectoryPrediction? { session.prediction() }

    /// The drone's UAV number changed: logged against the autopilot's system id.
    mutating func setUAVNumber(_ n: UInt8?) {
        uavNumber = n
        if let n, let id = session.identity { logMapping(n, id) }
    }

    private func logMapping(_ n: UInt8, _ id: AutopilotSession.Identity) {
        if id.systemID == n {
            logger.info("autopilot system id \(id.systemID) is the UAV number")
        } else {
            logger.notice(
                "autopilot system id \(id.systemID) differs from UAV number \(n): the mesh and ground-control software see UAV \(n); the bridge addresses system \(id.systemID) on the autopilot link"
            )
        }
    }

    private mutating func carry(_ directives: [AutopilotSession.Directive]) -> [DroneVehicle.Event] {
        var events: [DroneVehicle.Event] = []
        for d in directives {
            switch d {
            case .send(let bytes):
                link.send(bytes)
            case .verdict(let id, let verdict):
                events.append(.verdict(id, verdict, label: labels.removeValue(forKey: id) ?? "command"))
            case .completion(let id, .completed):
                events.append(.completed(id))
            case .completion(let id, .failed(let why)):
                events.append(.failed(id, why))
            case .flyingChanged(let flying):
                events.append(.flyingChanged(flying))
            case .connected(let identity):
                logger.notice("autopilot connected: \(identity) on \(link.endpoint)")
                if let n = uavNumber { logMapping(n, identity) }
            case .silent(let since):
                logger.warning(
                    "autopilot silent: no HEARTBEAT for \(since); commands are refused until it is heard again")
            case .modeChanged(let mode):
                logger.info("autopilot mode \(mode)")
            case .statusText(let severity, let text):
                let line = "autopilot says: \(text)"
                switch severity.rawValue {
                case 0...3: logger.error("\(line)")
                case 4: logger.warning("\(line)")
                case 5: logger.notice("\(line)")
                default: logger.info("\(line)")
                }
            case .note(let text):
                logger.notice("autopilot: \(text)")
            }
        }
        return events
    }
}
