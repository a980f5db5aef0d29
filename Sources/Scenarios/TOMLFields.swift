import Flight
import TOMLKit

/// Typed access to one TOML table with errors that name the full key and the problem.
struct TOMLFields {
    let table: TOMLTable
    /// Key path of this table, like `events[2]` (empty at the root).
    let path: String
    let file: String?

    func key(_ name: String) -> String { path.isEmpty ? name : "\(path).\(name)" }

    func error(_ name: String, _ problem: String) -> ScenarioError {
        ScenarioError(file: file, key: key(name), problem: problem)
    }

    /// Throws if the table has keys other than `allowed` (catches typos such as `altitdue`).
    func rejectUnknownKeys(_ allowed: Set<String>) throws(ScenarioError) {
        for k in table.keys.sorted() where !allowed.contains(k) {
            throw error(k, "unknown key (expected one of: \(allowed.sorted().joined(separator: ", ")))")
        }
    }

    func has(_ name: String) -> Bool { table[name] != nil }

    func number(_ name: String) throws(ScenarioError) -> Double? {
        guard let v = table[name] else { return nil }
        if let d = v.double {
            guard d.isFinite else { throw error(name, "must be a finite number") }
            return d
        }
        if let i = v.int { return Double(i) }
        throw error(name, "expected a number, found \(v.type)")
    }

    func number(_ name: String, default value: Double) throws(ScenarioError) -> Double {
        try number(name) ?? value
    }

    func requiredNumber(_ name: String) throws(ScenarioError) -> Double {
        guard let v = try number(name) else { throw error(name, "missing (a number is required)") }
        return v
    }

    func string(_ name: String) throws(ScenarioError) -> String? {
        guard let v = table[name] else { return nil }
        guard let s = v.string else { throw error(name, "expected a string, found \(v.type)") }
        return s
    }

    func requiredString(_ name: String) throws(ScenarioError) -> String {
        guard let s = try string(name) else { throw error(name, "missing (a string is required)") }
        return s
    }

    func bool(_ name: String, default value: Bool) throws(ScenarioError) -> Bool {
        guard let v = table[name] else { return value }
        guard let b = v.bool else { throw error(name, "expected true or false, found \(v.type)") }
        return b
    }

    func integer(_ name: String) throws(ScenarioError) -> Int? {
        guard let v = table[name] else { return nil }
        guard let i = v.int else { throw error(name, "expected an integer, found \(v.type)") }
        return i
    }

    /// A vector written `[east, north]` or `[east, north, up]`.
    func vector(_ name: String, allowTwo: Bool = true) throws(ScenarioError) -> Vector3? {
        guard let v = table[name] else { return nil }
        guard let array = v.array else {
            throw error(name, "expected an array [east, north\(allowTwo ? "" : ", up")\(allowTwo ? "[, up]" : "")]")
        }
        return try vector(array, key: name, allowTwo: allowTwo)
    }

    func vector(_ array: TOMLArray, key name: String, allowTwo: Bool) throws(ScenarioError) -> Vector3 {
        let count = array.count
        guard count == 3 || (allowTwo && count == 2) else {
            throw error(
                name,
                "expected \(allowTwo ? "2 or 3" : "3") numbers [east, north\(allowTwo ? "[, up]" : ", up")], found \(count)"
            )
        }
        var values: [Double] = []
        for i in 0..<count {
            let item = array[i]
            if let d = item.double, d.isFinite {
                values.append(d)
            } else if let n = item.int {
                values.append(Double(n))
            } else {
                throw error("\(name)[\(i)]", "expected a number, found \(item.type)")
            }
        }
        return Vector3(values[0], values[1], count == 3 ? values[2] : 0)
    }

    /// A list of 3-D points `[[e, n, u], …]`.
    func points(_ name: String) throws(ScenarioError) -> [Vector3]? {
        guard let v = table[name] else { return nil }
        guard let array = v.array else { throw error(name, "expected an array of [east, north, up] points") }
        var out: [Vector3] = []
        for i in 0..<array.count {
            guard let inner = array[i].array else { throw error("\(name)[\(i)]", "expected [east, north, up]") }
            out.append(try vector(inner, key: "\(name)[\(i)]", allowTwo: false))
        }
        return out
    }

    /// The sub-tables of an array of tables (`[[drones]]`).
    func tables(_ name: String) throws(ScenarioError) -> [TOMLFields] {
        guard let v = table[name] else { return [] }
        guard let array = v.array else { throw error(name, "expected an array of tables ([[\(name)]])") }
        var out: [TOMLFields] = []
        for i in 0..<array.count {
            guard let t = array[i].table else { throw error("\(name)[\(i)]", "expected a table") }
            out.append(TOMLFields(table: t, path: key("\(name)[\(i)]"), file: file))
        }
        return out
    }

    func subtable(_ name: String) throws(ScenarioError) -> TOMLFields? {
        guard let v = table[name] else { return nil }
        guard let t = v.table else { throw error(name, "expected a table ([\(name)])") }
        return TOMLFields(table: t, path: key(name), file: file)
    }
}
