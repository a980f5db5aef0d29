import CAvahi

/// Conversions between Avahi's string lists and Swift dictionaries of TXT key/value pairs (RFC 6763 §6).
enum TXTRecord {
    /// Copies an `AvahiStringList` into a dictionary. Entries without '=' map to "" (boolean attributes);
    /// the first occurrence of a key wins (RFC 6763 §6.4).
    static func dictionary(from list: UnsafeMutablePointer<AvahiStringList>?) -> [String: String] {
        var result: [String: String] = [:]
        var node = list
        while let n = node {
            let text = avahi_string_list_get_text(n)
            let size = avahi_string_list_get_size(n)
            if let text, size > 0 {
                let bytes = UnsafeBufferPointer(start: text, count: Int(size))
                let entry = String(decoding: bytes, as: UTF8.self)
                let key: String
                let value: String
                if let eq = entry.firstIndex(of: "=") {
                    key = String(entry[..<eq]).lowercased()
                    value = String(entry[entry.index(after: eq)...])
                } else {
                    key = entry.lowercased()
                    value = ""
                }
                if !key.isEmpty, result[key] == nil { result[key] = value }
            }
            node = avahi_string_list_get_next(n)
        }
        return result
    }

    /// Builds an `AvahiStringList` (caller frees with `avahi_string_list_free`), keys in sorted order.
    static func list(from txt: [String: String]) -> UnsafeMutablePointer<AvahiStringList>? {
        var list: UnsafeMutablePointer<AvahiStringList>? = nil
        // avahi_string_list_add prepends, so add in reverse to keep sorted order on the wire.
        for key in txt.keys.sorted().reversed() {
            list = avahi_string_list_add_pair(list, key, txt[key])
        }
        return list
    }
}
