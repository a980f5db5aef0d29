#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whole-file reads and writes with POSIX calls, reporting failures as `PointCloudError`.
enum FileIO {
    static func errorText() -> String {
        String(cString: strerror(errno))
    }

    /// The last path component, used to label errors.
    static func name(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    static func readAll(_ path: String) throws(PointCloudError) -> [UInt8] {
        let label = name(path)
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            throw PointCloudError(file: label, location: .file, reason: "cannot read: \(errorText())")
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            throw PointCloudError(file: label, location: .file, reason: "cannot read: \(errorText())")
        }
        let size = Int(st.st_size)
        var failure: String?
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buf, count in
            var done = 0
            while done < size {
                let n = read(fd, buf.baseAddress! + done, size - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errorText()
                    break
                }
                if n == 0 { break }  // the file shrank meanwhile
                done += n
            }
            count = done
        }
        if let failure {
            throw PointCloudError(file: label, location: .file, reason: "cannot read: \(failure)")
        }
        return bytes
    }

    static func writeAll(_ bytes: [UInt8], to path: String) throws(PointCloudError) {
        let label = name(path)
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else {
            throw PointCloudError(file: label, location: .file, reason: "cannot write: \(errorText())")
        }
        var failure: String?
        bytes.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = write(fd, raw.baseAddress! + done, raw.count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errorText()
                    return
                }
                done += n
            }
        }
        if close(fd) != 0 && failure == nil { failure = errorText() }
        if let failure {
            throw PointCloudError(file: label, location: .file, reason: "cannot write: \(failure)")
        }
    }
}
