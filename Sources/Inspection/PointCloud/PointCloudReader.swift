/// Reads point clouds from PCD and PLY files.
public enum PointCloudReader {
    /// Reads the file at `path`, choosing the format by its extension (`.pcd` or `.ply`, any case).
    /// Errors name the file by its last path component.
    public static func read(path: String) throws(PointCloudError) -> PointCloud {
        let name = FileIO.name(path)
        let ext = name.split(separator: ".", omittingEmptySubsequences: false).dropFirst().last.map {
            $0.lowercased()
        }
        switch ext {
        case "pcd": return try readPCD(FileIO.readAll(path), file: name)
        case "ply": return try readPLY(FileIO.readAll(path), file: name)
        case let other:
            let shown = other.map { "'.\($0)'" } ?? "none"
            throw PointCloudError(
                file: name, location: .file,
                reason: "unknown point cloud extension \(shown) (expected .pcd or .ply)")
        }
    }

    /// Parses PCD data (`ascii`, `binary` or `binary_compressed`); `file` labels errors.
    public static func readPCD(_ bytes: [UInt8], file: String) throws(PointCloudError) -> PointCloud {
        let result = bytes.withUnsafeBufferPointer { buf in
            Result { () throws(PointCloudError) in try PCDReader.read(buf, file: file) }
        }
        return try result.get()
    }

    /// Parses PLY data (`ascii`, `binary_little_endian` or `binary_big_endian`); `file` labels errors.
    public static func readPLY(_ bytes: [UInt8], file: String) throws(PointCloudError) -> PointCloud {
        let result = bytes.withUnsafeBufferPointer { buf in
            Result { () throws(PointCloudError) in try PLYReader.read(buf, file: file) }
        }
        return try result.get()
    }
}
