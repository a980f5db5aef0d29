/// The software's version, as `fleetmesh --version` prints it and the flight log records it with each run.
public enum FleetMeshVersion {
    public static let current = "0.9.0"
}
