import ArgumentParser
import Node

@main
struct FleetMesh: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleetmesh",
        abstract: "Peer-to-peer mesh coordinator for multi-drone field missions.",
        discussion:
            "Run a node with `fleetmesh run --config FILE`; the other commands talk to a running node on this machine.",
        version: FleetMeshVersion.current,
        subcommands: [
            RunCommand.self, KeygenCommand.self, StatusCommand.self, PeersCommand.self, VehiclesCommand.self,
            AirspaceCommand.self, SendCommand.self, TargetCommand.self, OriginCommand.self, SourcesCommand.self,
            ManualCommand.self, EventsCommand.self, GeofenceCommand.self, GeoCommand.self, SimulateCommand.self,
            HashPasswordCommand.self, LogCommand.self, PlanCommand.self, DoctorCommand.self,
        ])
}
