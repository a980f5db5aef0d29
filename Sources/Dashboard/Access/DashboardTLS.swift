import Foundation
import NIOSSL

/// `tls_certificate` and `tls_key`: the certificate chain and private key the dashboard serves HTTPS with, read and
/// checked when the configuration is (a station must not find out at its first visitor that its key is wrong).
public struct DashboardTLS: Sendable, Equatable {
    /// The PEM file with the server certificate first, then any intermediates.
    public let certificateFile: String
    /// The PEM file with the certificate's (unencrypted) private key.
    public let keyFile: String
    /// The chain as read.
    let chain: [NIOSSLCertificate]
    /// The key as read.
    let key: NIOSSLPrivateKey

    /// Why the files cannot serve TLS, and which of the two fields it concerns.
    public struct Refusal: Error, CustomStringConvertible {
        /// `tls_certificate` or `tls_key`.
        public let field: String
        /// What is wrong, naming the file.
        public let problem: String
        public var description: String { problem }
    }

    /// Reads both files and checks that the key belongs to the first certificate.
    public static func read(certificate: String, key keyPath: String) throws(Refusal) -> DashboardTLS {
        for (field, path) in [("tls_certificate", certificate), ("tls_key", keyPath)] {
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw Refusal(field: field, problem: "cannot read \(path) (no such file, or not readable)")
            }
        }
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificate)
        } catch {
            throw Refusal(
                field: "tls_certificate",
                problem: "\(certificate) holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
        guard !chain.isEmpty else {
            throw Refusal(
                field: "tls_certificate",
                problem: "\(certificate) holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
        } catch {
            let text = (try? String(contentsOfFile: keyPath, encoding: .utf8)) ?? ""
            let why =
                text.contains("ENCRYPTED")
                ? "is encrypted with a passphrase, which the station cannot type at start (write it without one: openssl pkey -in KEY -out KEY.plain)"
                : "holds no PEM private key (-----BEGIN PRIVATE KEY-----)"
            throw Refusal(field: "tls_key", problem: "\(keyPath) \(why)")
        }
        let tls = DashboardTLS(certificateFile: certificate, keyFile: keyPath, chain: chain, key: key)
        do {
            // BoringSSL checks that the key matches the certificate when both are set on a context.
            _ = try NIOSSLContext(configuration: tls.serverConfiguration)
        } catch {
            throw Refusal(
                field: "tls_key", problem: "\(keyPath) is not the private key of the certificate in \(certificate)")
        }
        return tls
    }

    /// The server's TLS settings (TLS 1.2 or later; no client certificates).
    var serverConfiguration: TLSConfiguration {
        var c = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        c.minimumTLSVersion = .tlsv12
        return c
    }

    /// When the first certificate stops being valid.
    public var notValidAfter: Date {
        Date(timeIntervalSince1970: TimeInterval(chain[0].notValidAfter))
    }

    public static func == (a: DashboardTLS, b: DashboardTLS) -> Bool {
        a.certificateFile == b.certificateFile && a.keyFile == b.keyFile && a.chain == b.chain && a.key == b.key
    }
}
