import HummingbirdBcrypt

/// What an account may do on the dashboard.
public enum DashboardRole: String, Sendable, Codable, CaseIterable {
    /// Sees everything; commands nothing.
    case viewer
    /// Also commands drones and places targets.
    case `operator`
}

/// One `[[dashboard.accounts]]` entry: a name, a role and the bcrypt hash of its password (never the password).
public struct DashboardAccount: Sendable, Equatable {
    public var name: String
    public var role: DashboardRole
    /// A bcrypt hash (`$2b$…`, 60 characters), as `fleetmesh hash-password` prints it.
    public var passwordHash: String

    public init(name: String, role: DashboardRole, passwordHash: String) {
        self.name = name
        self.role = role
        self.passwordHash = passwordHash
    }

    /// Whether `hash` has the shape of a bcrypt hash: `$2a$`, `$2b$` or `$2y$`, a two-digit cost 4–31, then 53
    /// characters of bcrypt's base-64 alphabet.
    public static func isBcryptHash(_ hash: String) -> Bool {
        let b = Array(hash.utf8)
        guard b.count == 60, b[0] == UInt8(ascii: "$"), b[1] == UInt8(ascii: "2"), b[3] == UInt8(ascii: "$"),
            b[6] == UInt8(ascii: "$"), [UInt8(ascii: "a"), UInt8(ascii: "b"), UInt8(ascii: "y")].contains(b[2]),
            let cost = Int(String(decoding: b[4...5], as: UTF8.self)), (4...31).contains(cost)
        else { return false }
        return b[7...].allSatisfy { c in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(c) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(c)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c) || c == UInt8(ascii: ".")
                || c == UInt8(ascii: "/")
        }
    }
}

/// Password hashing for `[[dashboard.accounts]]` (bcrypt, from hummingbird-auth).
public enum DashboardPassword {
    /// bcrypt's cost: 2^12 rounds, about a quarter of a second per check on a field laptop.
    public static let cost: UInt8 = 12

    /// The bcrypt hash of `password`, for `password_hash`.
    public static func hash(_ password: String, cost: UInt8 = cost) -> String {
        Bcrypt.hash(password, cost: cost)
    }

    /// Whether `password` matches `hash`.
    public static func verify(_ password: String, hash: String) -> Bool {
        Bcrypt.verify(password, hash: hash)
    }
}
