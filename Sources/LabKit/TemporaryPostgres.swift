import Foundation

/// A PostgreSQL server of the test's own (Debian's postgresql): a cluster made with initdb in a temporary directory,
/// listening only on a Unix socket in that directory (no TCP: nothing reaches the machine's interfaces), user
/// `fleetmesh` trusted, database `fleetlog`. Run as root, the server runs as the `postgres` user (it refuses root).
/// Stopped and removed by `remove()`.
public final class TemporaryPostgres: @unchecked Sendable {
    public let directory: String
    public let binaries: String
    public let database = "fleetlog"
    public let user = "fleetmesh"

    /// Makes the cluster and starts it.
    public init() throws {
        guard let version = Self.installedVersion() else {
            throw LabError(
                "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): run `make setup` (as root)")
        }
        binaries = "/usr/lib/postgresql/\(version)/bin"
        let template = "/tmp/fleetmesh-pg-XXXXXX"
        var bytes = Array(template.utf8CString)
        guard let made = mkdtemp(&bytes) else { throw LabError("mkdtemp: \(String(cString: strerror(errno)))") }
        directory = String(cString: made)
        if getuid() == 0 {
            try check(shell(["chown", "postgres:postgres", directory]), "chown")
        }
        try check(
            shell(asServer(["\(binaries)/initdb", "-D", "\(directory)/data", "-A", "trust", "-U", user, "--no-sync"])),
            "initdb")
        try start()
        try check(
            shell(["psql", "-h", directory, "-U", user, "-d", "postgres", "-c", "CREATE DATABASE \(database)"]),
            "CREATE DATABASE")
    }

    /// `[log] postgres` for this server.
    public var url: String { "postgres://\(user)@/\(database)?host=\(directory)" }

    /// Starts the server (again), waiting until it accepts connections.
    public func start() throws {
        try check(
            shell(
                asServer([
                    "\(binaries)/pg_ctl", "-D", "\(directory)/data", "-l", "\(directory)/server.log", "-w", "-o",
                    "-c listen_addresses='' -k \(directory) -c fsync=off -c full_page_writes=off", "start",
                ])), "pg_ctl start")
    }

    /// Stops the server: `immediate` as if it crashed (open transactions are lost, clients see the connection drop).
    public func stop(immediate: Bool = true) throws {
        try check(
            shell(
                asServer([
                    "\(binaries)/pg_ctl", "-D", "\(directory)/data", "-w", "-m", immediate ? "immediate" : "fast",
                    "stop",
                ])), "pg_ctl stop")
    }

    /// Runs SQL with psql and returns its unaligned rows (`|` between columns), or throws with psql's message.
    public func query(_ sql: String) throws -> [String] {
        let result = try shell([
            "psql", "-h", directory, "-U", user, "-d", database, "-v", "ON_ERROR_STOP=1", "-At", "-c", sql,
        ])
        guard result.status == 0 else { throw LabError("psql: \(result.output)") }
        return result.output.split(separator: "\n").map(String.init)
    }

    /// Runs a file of SQL with psql; returns its output.
    public func run(file: String) throws -> String {
        let result = try shell([
            "psql", "-h", directory, "-U", user, "-d", database, "-v", "ON_ERROR_STOP=1", "-f", file,
        ])
        guard result.status == 0 else { throw LabError("psql -f \(file): \(result.output)") }
        return result.output
    }

    /// Stops the server and removes its directory.
    public func remove() {
        try? stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func asServer(_ arguments: [String]) -> [String] {
        getuid() == 0 ? ["runuser", "-u", "postgres", "--"] + arguments : arguments
    }

    private func check(_ result: (status: Int32, output: String), _ what: String) throws {
        guard result.status == 0 else { throw LabError("\(what) failed: \(result.output)") }
    }

    static func installedVersion() -> String? {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        return versions.filter { FileManager.default.fileExists(atPath: "/usr/lib/postgresql/\($0)/bin/initdb") }
            .max { (Int($0) ?? 0) < (Int($1) ?? 0) }
    }
}
