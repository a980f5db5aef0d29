import Flight
import TOMLFields
import TOMLKit

/// A scenario file's table; errors name the dotted key (`events[2].altitude`).
typealias ScenarioFields = TOMLFields<ScenarioError>

extension TOMLFields<ScenarioError> {
    /// The root table of scenario text from `file`.
    static func scenario(_ text: String, file: String?) throws(ScenarioError) -> ScenarioFields {
        try parse(text) { field, problem in
            ScenarioError(file: file, key: field.dotted.isEmpty ? "(syntax)" : field.dotted, problem: problem)
        }
    }

    /// A vector written `[east, north]` or `[east, north, up]` (`allowTwo: false`: the three only).
    func vector(_ key: String, allowTwo: Bool = true) throws(ScenarioError) -> Vector3? {
        let shape = allowTwo ? "[east, north[, up]]" : "[east, north, up]"
        guard let array = try array(key, expected: "an array \(shape)") else { return nil }
        return try vector(array, key: key, allowTwo: allowTwo)
    }

    /// The vector in `array`, found at `key`.
    func vector(_ array: TOMLArray, key: String, allowTwo: Bool) throws(ScenarioError) -> Vector3 {
        guard array.count == 3 || (allowTwo && array.count == 2) else {
            let shape = allowTwo ? "2 or 3 numbers [east, north[, up]]" : "3 numbers [east, north, up]"
            throw error(key, "expected \(shape), found \(array.count)")
        }
        let values = try numbers(array, key: key)
        return Vector3(values[0], values[1], values.count == 3 ? values[2] : 0)
    }

    /// A list of 3-D points `[[e, n, u], …]`, or nil when absent.
    func points(_ key: String) throws(ScenarioError) -> [Vector3]? {
        guard let array = try array(key, expected: "an array of [east, north, up] points") else { return nil }
        var out: [Vector3] = []
        for i in 0..<array.count {
            guard let inner = array[i].array else { throw error("\(key)[\(i)]", "expected [east, north, up]") }
            out.append(try vector(inner, key: "\(key)[\(i)]", allowTwo: false))
        }
        return out
    }
}
