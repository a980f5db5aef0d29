import Foundation

/// A drone's UAV number in its state directory (`uav-number`), so that a restart keeps it.
extension NodeShell {
    /// Reads `<directory>/uav-number`: nil if there is none, an error text naming the file if it is unreadable.
    static func readNumber(directory: String) -> Result<UInt8?, NumberFileError> {
        let path = directory + "/" + numberFile
        guard FileManager.default.fileExists(atPath: path) else { return .success(nil) }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            return .failure(NumberFileError(description: "\(path): cannot read the persisted UAV number"))
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let n = Int(trimmed), (1...250).contains(n) else {
            return .failure(
                NumberFileError(description: "\(path): expected a UAV number 1–250, found \"\(trimmed.prefix(20))\""))
        }
        return .success(UInt8(n))
    }

    struct NumberFileError: Error, CustomStringConvertible { let description: String }

    func persist(_ number: UInt8) {
        let path = stateDirectory + "/" + Self.numberFile
        do {
            try "\(number)\n".write(toFile: path, atomically: true, encoding: .utf8)
            logger.debug("UAV number \(number) saved to \(path)")
        } catch {
            logger.error("cannot save UAV number \(number) to \(path): \(NodeConfiguration.reason(error))")
        }
    }
}
