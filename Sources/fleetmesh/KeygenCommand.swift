import ArgumentParser
import Foundation
import SecureTransport

struct KeygenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Write a new 32-byte mesh key (mode 0600). Every node of one mesh needs the same key file.")

    @Argument(help: "Where to write the key.")
    var path: String

    @Flag(help: "Replace an existing key file.")
    var force = false

    func run() throws {
        if FileManager.default.fileExists(atPath: path), !force {
            throw failure(
                "error: \(path) exists; pass --force to replace it (every node must then get the new key)", code: 73)
        }
        let key = MeshKey.generate()
        guard
            FileManager.default.createFile(
                atPath: path, contents: Data(key.fileContents.utf8), attributes: [.posixPermissions: 0o600])
        else {
            throw failure("error: cannot write \(path)", code: 73)
        }
        print("wrote \(path) (mesh fingerprint \(key.fingerprint))")
    }
}
