import Foundation

/// Rows of the GeographicLib CSVs under Resources/ (comment lines start with '#', then a header line).
enum ReferenceVectors {
    static func rows(_ name: String) throws -> [[String]] {
        guard let url = Bundle.module.url(forResource: name, withExtension: "csv", subdirectory: "Resources") else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: name])
        }
        let text = try String(contentsOf: url, encoding: .utf8)
        return text.split(separator: "\n")
            .filter { !$0.hasPrefix("#") }
            .dropFirst()
            .map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    }
}
