import Dashboard
import Foundation
import Testing

@testable import Node

/// `[dashboard] tls_certificate` and `tls_key`: read and checked with the configuration, each refusal naming the field
/// and the file. The certificates are made by the openssl tool, as an operator would make them.
@Suite struct DashboardTLSConfigTests {
    let folder: String

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("fm-tls-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", "station.key", "-out", "station.crt", "-days", "2", "-subj", "/CN=station",
        ])
        try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "other.key"])
        try openssl(["pkey", "-in", "station.key", "-out", "locked.key", "-aes256", "-passout", "pass:secret"])
        try "not a certificate\n".write(toFile: folder + "/junk.pem", atomically: true, encoding: .utf8)
    }

    func openssl(_ arguments: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        p.arguments = arguments
        p.currentDirectoryURL = URL(fileURLWithPath: folder)
        p.standardError = FileHandle.nullDevice
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "openssl \(arguments.joined(separator: " "))")
    }

    func parse(_ dashboard: String) throws(ConfigError) -> DashboardConfiguration? {
        try NodeConfiguration.parse(
            "[node]\nname = \"station\"\nrole = \"station\"\nkey_file = \"k\"\n[dashboard]\n" + dashboard,
            file: folder + "/station.toml", baseDirectory: folder
        ).dashboard
    }

    @Test func aCertificateAndItsKeyServeHTTPSAndSecureCookies() throws {
        let c = try #require(try parse("tls_certificate = \"station.crt\"\ntls_key = \"\(folder)/station.key\""))
        let tls = try #require(c.tls)
        #expect(tls.certificateFile == folder + "/station.crt" && tls.keyFile == folder + "/station.key")
        #expect(c.scheme == "https")
        #expect(tls.notValidAfter > Date() && tls.notValidAfter < Date() + 3 * 86_400)
        #expect(try parse("")?.tls == nil && (try parse("")?.scheme == "http"))
    }

    @Test func eachRefusalNamesTheFieldAndTheFile() {
        let cases: [(String, String)] = [
            (
                "tls_certificate = \"station.crt\"",
                "[dashboard] tls_key: missing (tls_certificate needs its private key"
            ),
            ("tls_key = \"station.key\"", "[dashboard] tls_certificate: missing (tls_key needs the certificate's"),
            (
                "tls_certificate = \"gone.crt\"\ntls_key = \"station.key\"",
                "[dashboard] tls_certificate: cannot read \(folder)/gone.crt (no such file, or not readable)"
            ),
            (
                "tls_certificate = \"station.crt\"\ntls_key = \"gone.key\"",
                "[dashboard] tls_key: cannot read \(folder)/gone.key"
            ),
            (
                "tls_certificate = \"junk.pem\"\ntls_key = \"station.key\"",
                "[dashboard] tls_certificate: \(folder)/junk.pem holds no PEM certificate"
            ),
            (
                "tls_certificate = \"station.crt\"\ntls_key = \"junk.pem\"",
                "[dashboard] tls_key: \(folder)/junk.pem holds no PEM private key"
            ),
            (
                "tls_certificate = \"station.key\"\ntls_key = \"station.key\"",
                "[dashboard] tls_certificate: \(folder)/station.key holds no PEM certificate"
            ),
            (
                "tls_certificate = \"station.crt\"\ntls_key = \"locked.key\"",
                "[dashboard] tls_key: \(folder)/locked.key is encrypted with a passphrase"
            ),
            (
                "tls_certificate = \"station.crt\"\ntls_key = \"other.key\"",
                "[dashboard] tls_key: \(folder)/other.key is not the private key of the certificate in \(folder)/station.crt"
            ),
        ]
        for (text, expected) in cases {
            do {
                _ = try parse(text)
                Issue.record("accepted: \(text)")
            } catch {
                #expect(error.description.contains(expected), "\(text) → \(error.description)")
            }
        }
    }
}
