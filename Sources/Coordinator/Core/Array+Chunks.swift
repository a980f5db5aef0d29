extension Array {
    /// The elements in consecutive slices of at most `size`, in order (none when empty): summaries and requests in
    /// parts that each fit one datagram.
    func chunks(of size: Int) -> [[Element]] {
        stride(from: 0, to: count, by: size).map { Array(self[$0..<Swift.min($0 + size, count)]) }
    }
}
