import Determinism
import Foundation
import MAVLink
import Testing

enum TestData {
    static let key = try! MAVLinkSigningKey(bytes: (0..<32).map { UInt8($0 &* 7 &+ 3) })
    static let keyHex = key.bytes.map { String(format: "%02x", $0) }.joined()

    /// A full-length payload with random values in every field: ASCII strings of random length, finite floats,
    /// any bit pattern for integers.
    static func randomPayload(for type: any MAVLinkMessageType.Type, using rng: inout SeededRandom) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: type.maxPayloadLength)
        for field in type.fields {
            let count = max(1, field.arrayLength)
            switch field.type {
            case .char:
                let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-".utf8)
                let n = Int.random(in: 0...field.arrayLength, using: &rng)
                for i in 0..<n { bytes[field.offset + i] = letters.randomElement(using: &rng)! }
            case .float:
                for i in 0..<count {
                    let v = Float.random(in: -1e6...1e6, using: &rng).bitPattern
                    for b in 0..<4 { bytes[field.offset + i * 4 + b] = UInt8(truncatingIfNeeded: v >> (8 * UInt32(b))) }
                }
            case .double:
                for i in 0..<count {
                    let v = Double.random(in: -1e12...1e12, using: &rng).bitPattern
                    for b in 0..<8 { bytes[field.offset + i * 8 + b] = UInt8(truncatingIfNeeded: v >> (8 * UInt64(b))) }
                }
            default:
                for i in 0..<field.size { bytes[field.offset + i] = UInt8.random(in: 0...255, using: &rng) }
            }
        }
        return bytes
    }

    /// camelCase property name the generator uses for a MAVLink field name.
    static func propertyName(_ mavlinkName: String) -> String {
        let parts = mavlinkName.split(separator: "_").map { $0.lowercased() }
        return parts[0] + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// The struct's stored properties by MAVLink field name (via reflection, so the test does not trust the
    /// generated field table for names).
    static func fieldValues(_ message: any MAVLinkMessageType) -> [String: Any] {
        var byProperty: [String: Any] = [:]
        for child in Mirror(reflecting: message).children {
            if let label = child.label { byProperty[label] = child.value }
        }
        var out: [String: Any] = [:]
        for field in type(of: message).fields {
            out[field.name] = byProperty[propertyName(field.name)]
        }
        return out
    }

    private static func rawText<E: MAVLinkEnum>(_ e: E) -> String { "\(e.rawValue)" }

    /// Whether a Swift field value equals pymavlink's textual value (decimal integers, float reprs, strings).
    static func matches(_ swift: Any, _ python: Any) -> Bool {
        if let list = python as? [Any] {
            switch swift {
            case let a as [Float]: return a.count == list.count && zip(a, list).allSatisfy { matches($0, $1) }
            case let a as [Double]: return a.count == list.count && zip(a, list).allSatisfy { matches($0, $1) }
            case let a as [any BinaryInteger]:
                return a.count == list.count && zip(a, list).allSatisfy { matches($0, $1) }
            default: return false
            }
        }
        guard let text = python as? String else { return false }
        switch swift {
        case let v as Float: return Double(text).map { Float($0) == v } ?? false
        case let v as Double: return Double(text) == v
        case let v as String: return v == text
        case let v as any BinaryInteger: return "\(v)" == text
        case let v as any MAVLinkEnum: return rawText(v) == text
        default: return false
        }
    }
}

/// Runs Tests/MAVLinkTests/pymav_vectors.py; fails the test loudly when python3 or pymavlink is missing.
enum Pymavlink {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("pymav_vectors.py").path

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func run(_ arguments: [String]) throws -> [[String: Any]] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script] + arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        do { try process.run() } catch {
            throw Failure(
                description: "cannot start python3 (\(error)); install Python 3 and `python3 -m pip install pymavlink`")
        }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errText = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            if process.terminationStatus == 3 || errText.contains("No module named") {
                throw Failure(description: "pymavlink is missing: run `python3 -m pip install pymavlink` (\(errText))")
            }
            throw Failure(description: "pymav_vectors.py failed (\(process.terminationStatus)): \(errText)")
        }
        return try String(decoding: data, as: UTF8.self).split(separator: "\n").map { line in
            guard let obj = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw Failure(description: "bad JSON line from helper: \(line)")
            }
            return obj
        }
    }
}

func hexBytes(_ hex: String) -> [UInt8] {
    var out: [UInt8] = []
    var it = hex.utf8.makeIterator()
    func nibble(_ c: UInt8) -> UInt8 { c <= 57 ? c - 48 : (c | 0x20) - 87 }
    while let a = it.next(), let b = it.next() { out.append(nibble(a) << 4 | nibble(b)) }
    return out
}

func hexString(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

/// Parses a complete byte string and returns the frames and drop reasons.
func parseAll(_ bytes: [UInt8], configuration: MAVLinkParser.Configuration = .init())
    -> (frames: [MAVLinkFrame], drops: [MAVLinkParser.DropReason], parser: MAVLinkParser)
{
    var parser = MAVLinkParser(configuration: configuration)
    var frames: [MAVLinkFrame] = []
    var drops: [MAVLinkParser.DropReason] = []
    for event in parser.feed(bytes) + parser.finish() {
        switch event {
        case .frame(let f): frames.append(f)
        case .dropped(let r): drops.append(r)
        }
    }
    return (frames, drops, parser)
}
