import TOMLKit

/// Where a value sits in a TOML document: the path of its table (`""` at the root, `drone`, `events[2]`) and its
/// key (`""` for the table itself). Each file format renders it its own way in its errors.
public struct TOMLFieldPath: Sendable, Equatable {
    /// The table's path, dotted, with array indexes (`events[2].wind`).
    public var table: String
    /// The key within the table, or `""` for the whole table.
    public var key: String

    /// `table.key`, or whichever of the two is not empty.
    public var dotted: String {
        table.isEmpty ? key : key.isEmpty ? table : "\(table).\(key)"
    }
}

/// Typed, validated access to one TOML table. Every error names the field and the problem, and is built by the
/// caller's `failure`, so each file format keeps its own error type and field notation.
public struct TOMLFields<Failure: Error> {
    /// The table read.
    public let table: TOMLTable
    /// This table's path (`""` at the root).
    public let path: String
    /// Builds the error for a field and a problem.
    public let failure: (TOMLFieldPath, String) -> Failure

    /// Reads `table`, found at `path`; errors come from `failure`.
    public init(
        table: TOMLTable, path: String = "", failure: @escaping (_ field: TOMLFieldPath, _ problem: String) -> Failure
    ) {
        self.table = table
        self.path = path
        self.failure = failure
    }

    /// Parses TOML text into the root table's fields; a syntax error becomes `failure` at the root, naming the line
    /// and column.
    public static func parse(
        _ text: String, failure: @escaping (_ field: TOMLFieldPath, _ problem: String) -> Failure
    ) throws(Failure) -> TOMLFields {
        do {
            return TOMLFields(table: try TOMLTable(string: text), failure: failure)
        } catch let e as TOMLParseError {
            throw failure(
                TOMLFieldPath(table: "", key: ""),
                "line \(e.source.begin.line), column \(e.source.begin.column): \(e.description)")
        } catch {
            throw failure(TOMLFieldPath(table: "", key: ""), "not valid TOML (\(error))")
        }
    }

    /// The error for `key` of this table (`""`: the table itself).
    public func error(_ key: String, _ problem: String) -> Failure {
        failure(TOMLFieldPath(table: path, key: key), problem)
    }

    /// Throws for the first key (in sorted order) not in `known`; catches typos such as `altitdue`.
    public func rejectUnknownKeys(_ known: some Collection<String>) throws(Failure) {
        for key in table.keys.sorted() where !known.contains(key) {
            throw error(key, "unknown field (known: \(known.sorted().joined(separator: ", ")))")
        }
    }

    /// Whether the table has `key`.
    public func has(_ key: String) -> Bool { table[key] != nil }

    // MARK: Scalars

    /// A string, or nil when absent.
    public func string(_ key: String) throws(Failure) -> String? {
        guard let v = table[key] else { return nil }
        guard let s = v.string else { throw error(key, "expected a string, found \(v.type)") }
        return s
    }

    /// A string that must be present.
    public func requiredString(_ key: String) throws(Failure) -> String {
        guard let s = try string(key) else { throw error(key, "missing (a string is required)") }
        return s
    }

    /// A finite number (integer or floating point), or nil when absent.
    public func number(_ key: String) throws(Failure) -> Double? {
        guard let v = table[key] else { return nil }
        return try number(v, key: key)
    }

    /// A finite number, `value` when absent.
    public func number(_ key: String, default value: Double) throws(Failure) -> Double {
        try number(key) ?? value
    }

    /// A finite number that must be present.
    public func requiredNumber(_ key: String) throws(Failure) -> Double {
        guard let v = try number(key) else { throw error(key, "missing (a number is required)") }
        return v
    }

    /// An integer, or nil when absent (a floating-point value is an error).
    public func integer(_ key: String) throws(Failure) -> Int? {
        guard let v = table[key] else { return nil }
        guard v.type == .int, let i = v.int else { throw error(key, "expected an integer, found \(v.type)") }
        return i
    }

    /// An integer within `range`, in `unit` (for the message: "milliseconds"), or nil when absent.
    public func integer(_ key: String, in range: ClosedRange<Int>, _ unit: String = "") throws(Failure) -> Int? {
        guard let v = try integer(key) else { return nil }
        guard range.contains(v) else {
            let bounds = "\(range.lowerBound)–\(range.upperBound)" + (unit.isEmpty ? "" : " \(unit)")
            throw error(key, "must be \(bounds), found \(v)")
        }
        return v
    }

    /// `true` or `false`, or nil when absent.
    public func bool(_ key: String) throws(Failure) -> Bool? {
        guard let v = table[key] else { return nil }
        guard let b = v.bool else { throw error(key, "expected true or false, found \(v.type)") }
        return b
    }

    /// `true` or `false`, `value` when absent.
    public func bool(_ key: String, default value: Bool) throws(Failure) -> Bool {
        try bool(key) ?? value
    }

    // MARK: Arrays and tables

    /// An array of finite numbers, or nil when absent; a bad element is named `key[i]`.
    public func numbers(_ key: String) throws(Failure) -> [Double]? {
        guard let v = table[key] else { return nil }
        guard let array = v.array else { throw error(key, "expected an array of numbers, found \(v.type)") }
        return try numbers(array, key: key)
    }

    /// The finite numbers of `array`, found at `key` (for the messages).
    public func numbers(_ array: TOMLArray, key: String) throws(Failure) -> [Double] {
        var out: [Double] = []
        for i in 0..<array.count { out.append(try number(array[i], key: "\(key)[\(i)]")) }
        return out
    }

    /// An array of strings, or nil when absent.
    public func strings(_ key: String) throws(Failure) -> [String]? {
        guard let v = table[key] else { return nil }
        guard let array = v.array else { throw error(key, "expected an array of strings, found \(v.type)") }
        var out: [String] = []
        for i in 0..<array.count {
            let item = array[i]
            guard let s = item.string else { throw error("\(key)[\(i)]", "expected a string, found \(item.type)") }
            out.append(s)
        }
        return out
    }

    /// An array, or nil when absent.
    public func array(_ key: String, expected: String) throws(Failure) -> TOMLArray? {
        guard let v = table[key] else { return nil }
        guard let array = v.array else { throw error(key, "expected \(expected), found \(v.type)") }
        return array
    }

    /// A sub-table (`[name]` or `name = { … }`), or nil when absent.
    public func subtable(_ key: String) throws(Failure) -> TOMLFields? {
        guard let v = table[key] else { return nil }
        guard let t = v.table else { throw error(key, "expected a table, found \(v.type)") }
        return TOMLFields(table: t, path: child(key), failure: failure)
    }

    /// A sub-table that must be present.
    public func requiredSubtable(_ key: String) throws(Failure) -> TOMLFields {
        guard let t = try subtable(key) else {
            throw failure(TOMLFieldPath(table: child(key), key: ""), "missing table")
        }
        return t
    }

    /// The tables of an array of tables (`[[name]]`), empty when absent; each is found at `name[i]`.
    public func tables(_ key: String) throws(Failure) -> [TOMLFields] {
        guard let array = try array(key, expected: "an array of tables ([[\(key)]])") else { return [] }
        var out: [TOMLFields] = []
        for i in 0..<array.count {
            let item = array[i]
            guard let t = item.table else { throw error("\(key)[\(i)]", "expected a table, found \(item.type)") }
            out.append(TOMLFields(table: t, path: child("\(key)[\(i)]"), failure: failure))
        }
        return out
    }

    private func child(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    private func number(_ v: any TOMLValueConvertible, key: String) throws(Failure) -> Double {
        switch v.type {
        case .int:
            if let i = v.int { return Double(i) }
        case .double:
            if let d = v.double {
                guard d.isFinite else { throw error(key, "must be a finite number, found \(d)") }
                return d
            }
        default: break
        }
        throw error(key, "expected a number, found \(v.type)")
    }
}
