/// Why a mesh key could not be made or read.
public enum MeshKeyError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `init(bytes:)` was given the wrong number of bytes.
    case wrongLength(found: Int)
    /// The key file does not hold exactly 64 hexadecimal digits (an optional trailing newline aside).
    case wrongFileLength(path: String, found: Int)
    /// The key file holds a character that is not a hexadecimal digit at `position` (0-based, in characters).
    case nonHexadecimalCharacter(path: String, position: Int, character: Character)

    /// A one-line human-readable explanation.

    public var description: String {
        switch self {
        case .wrongLength(let n):
            return "mesh key: expected 32 bytes, found \(n)"
        case .wrongFileLength(let path, let n):
            return "key file \(path): expected 64 hexadecimal digits, found \(n) characters"
        case .nonHexadecimalCharacter(let path, let position, let c):
            return
                "key file \(path) contains a non-hexadecimal character at position \(position) (\(c.debugDescription))"
        }
    }
}
