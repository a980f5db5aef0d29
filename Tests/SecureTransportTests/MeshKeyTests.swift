import Testing

@testable import SecureTransport

@Suite("MeshKey")
struct MeshKeyTests {
    @Test func fileFormatRoundTrips() throws {
        let key = MeshKey.generate()
        let text = key.fileContents
        #expect(text.count == 65 && text.hasSuffix("\n"))
        #expect(text.dropLast().allSatisfy { "0123456789abcdef".contains($0) })
        #expect(try MeshKey(fileContents: text, path: "/k") == key)
        #expect(try MeshKey(fileContents: String(text.dropLast()), path: "/k") == key)
        #expect(try MeshKey(fileContents: text.dropLast().uppercased() + "\r\n", path: "/k") == key)
        #expect(MeshKey.generate() != key)
    }

    @Test func preciseErrors() {
        #expect(throws: MeshKeyError.wrongFileLength(path: "/x", found: 12)) {
            try MeshKey(fileContents: "0123456789ab\n", path: "/x")
        }
        let bad = "0123456g" + String(repeating: "0", count: 56)
        #expect(throws: MeshKeyError.nonHexadecimalCharacter(path: "/x", position: 7, character: "g")) {
            try MeshKey(fileContents: bad, path: "/x")
        }
        #expect(
            MeshKeyError.wrongFileLength(path: "/x", found: 12).description
                == "key file /x: expected 64 hexadecimal digits, found 12 characters")
        #expect(
            MeshKeyError.nonHexadecimalCharacter(path: "/x", position: 7, character: "g").description
                .hasPrefix("key file /x contains a non-hexadecimal character at position 7"))
        #expect(throws: MeshKeyError.wrongLength(found: 31)) { try MeshKey(bytes: Array(repeating: 0, count: 31)) }
        // Full-width digits are not hexadecimal on the wire.
        let unicode = "０" + String(repeating: "0", count: 63)
        #expect(throws: MeshKeyError.nonHexadecimalCharacter(path: "/u", position: 0, character: "０")) {
            try MeshKey(fileContents: unicode, path: "/u")
        }
    }

    @Test func fingerprintIsStableShortAndOneWay() throws {
        let key = try MeshKey(bytes: Array(0..<32))
        let fp = key.fingerprint
        #expect(fp.count == 16)
        #expect(fp == key.fingerprint)
        #expect(fp.allSatisfy { "0123456789abcdef".contains($0) })
        #expect(!key.fileContents.contains(fp))
        #expect(try MeshKey(bytes: Array(1...32)).fingerprint != fp)
        #expect(!String(describing: key).contains(key.fileContents.dropLast()))
        // Pinned so other implementations can check theirs (HKDF-SHA256, empty salt, info "fleetmesh v1 fingerprint").
        #expect(fp == MeshKeyTests.pinnedFingerprint)
    }

    static let pinnedFingerprint = "ba6ac6c4bb1abbb2"
}
