import ArgumentParser
import Dashboard
import Foundation

/// `fleetmesh hash-password`: the bcrypt hash of a dashboard password, for `[[dashboard.accounts]] password_hash`.
struct HashPasswordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hash-password",
        abstract: "Print the bcrypt hash of a dashboard password (for [[dashboard.accounts]] password_hash).",
        discussion: """
            Asks twice on a terminal (nothing is shown); otherwise reads one line from standard input:
              printf '%s\\n' "$PASSWORD" | fleetmesh hash-password
            The password itself is never stored or logged; at least 8 characters.
            """)

    func run() throws {
        let password: String
        if isatty(0) == 1 {
            guard let first = getpass("dashboard password: ").map({ String(cString: $0) }),
                let second = getpass("again: ").map({ String(cString: $0) })
            else { throw failure("error: no password read", code: 66) }
            guard first == second else { throw failure("error: the two passwords differ", code: 65) }
            password = first
        } else {
            guard let line = readLine(strippingNewline: true) else {
                throw failure("error: no password on standard input", code: 66)
            }
            password = line
        }
        guard password.count >= 8 else {
            throw failure("error: the password has \(password.count) characters; at least 8 are required", code: 65)
        }
        print("password_hash = \"\(DashboardPassword.hash(password))\"")
    }
}
