/// A generated MAVLink message struct: its id, checksum seed, payload sizes and field codec.
public protocol MAVLinkMessageType: Sendable, Hashable {
    /// The 24-bit MAVLink message id.
    static var id: UInt32 { get }
    /// The MAVLink message name, e.g. `"HEARTBEAT"`.
    static var messageName: String { get }
    /// The CRC_EXTRA byte folded into every frame checksum of this message.
    static var crcExtra: UInt8 { get }
    /// Payload length without extension fields (what MAVLink 1 carries).
    static var minPayloadLength: Int { get }
    /// Payload length including all extension fields.
    static var maxPayloadLength: Int { get }
    /// The fields in XML order with their wire offsets.
    static var fields: [MAVLinkFieldInfo] { get }
    /// Decodes the fields; bytes missing from a truncated payload read as zero.
    init(from reader: MAVLinkPayloadReader)
    /// Encodes every field at its wire offset into a `maxPayloadLength` buffer.
    func encode(into writer: inout MAVLinkPayloadWriter)
    /// This message as a ``MAVLinkMessage`` case.
    var wrapped: MAVLinkMessage { get }
}

extension MAVLinkMessageType {
    /// The table entry describing this message type.
    public static var info: MAVLinkMessageInfo {
        MAVLinkMessageInfo(
            id: id, name: messageName, crcExtra: crcExtra,
            minPayloadLength: minPayloadLength, maxPayloadLength: maxPayloadLength)
    }

    /// Decodes a payload as received (truncated or not); extra trailing bytes are ignored.
    public init(payload: [UInt8]) {
        self = payload.withUnsafeBytes { Self(from: MAVLinkPayloadReader($0)) }
    }

    /// The full, untruncated payload (`maxPayloadLength` bytes). Framing truncates it for MAVLink 2.
    public func encodedPayload() -> [UInt8] {
        var writer = MAVLinkPayloadWriter(length: Self.maxPayloadLength)
        encode(into: &writer)
        return writer.bytes
    }
}

/// A MAVLink enum value: an open set of named wire values (or a bitmask), any raw value accepted.
public protocol MAVLinkEnum: RawRepresentable, Hashable, Sendable, CustomStringConvertible
where RawValue: FixedWidthInteger & UnsignedInteger & Sendable {
    /// Wraps any wire value.
    init(rawValue: RawValue)
    /// The MAVLink entry name when `rawValue` is a listed entry.
    var entryName: String? { get }
}

extension MAVLinkEnum {
    /// The entry name, or the raw number for unlisted values.
    public var description: String { entryName ?? "\(rawValue)" }
}

/// Static facts about one message id, enough to check a frame's checksum without decoding it.
public struct MAVLinkMessageInfo: Sendable, Hashable {
    /// The 24-bit message id.
    public var id: UInt32
    /// The MAVLink name.
    public var name: String
    /// CRC_EXTRA seed byte.
    public var crcExtra: UInt8
    /// Payload length without extensions.
    public var minPayloadLength: Int
    /// Payload length with extensions.
    public var maxPayloadLength: Int

    /// Describes a message id (for example one from a dialect this package did not generate).
    public init(id: UInt32, name: String, crcExtra: UInt8, minPayloadLength: Int, maxPayloadLength: Int) {
        self.id = id
        self.name = name
        self.crcExtra = crcExtra
        self.minPayloadLength = minPayloadLength
        self.maxPayloadLength = maxPayloadLength
    }
}

/// The set of message ids a parser can checksum-verify: id → ``MAVLinkMessageInfo``.
public struct MAVLinkDialect: Sendable {
    private var table: [UInt32: MAVLinkMessageInfo]
    /// CRC_EXTRA for ids below `denseLimit`, or -1: the parser's per-frame lookup without hashing.
    private var denseCRCExtra: [Int16]
    private static let denseLimit: UInt32 = 1024

    /// A dialect made of the given messages (a later duplicate id replaces an earlier one).
    public init(messages: [MAVLinkMessageInfo]) {
        table = [:]
        denseCRCExtra = [Int16](repeating: -1, count: Int(Self.denseLimit))
        for info in messages { insert(info) }
    }

    private mutating func insert(_ info: MAVLinkMessageInfo) {
        table[info.id] = info
        if info.id < Self.denseLimit { denseCRCExtra[Int(info.id)] = Int16(info.crcExtra) }
    }

    /// The info for `id`, or nil if this dialect does not know it.
    public func info(for id: UInt32) -> MAVLinkMessageInfo? { table[id] }

    /// The CRC_EXTRA for `id`, or nil if this dialect does not know it.
    @inlinable public func crcExtra(for id: UInt32) -> UInt8? { lookupCRCExtra(id) }

    @usableFromInline func lookupCRCExtra(_ id: UInt32) -> UInt8? {
        if id < Self.denseLimit {
            let v = denseCRCExtra[Int(id)]
            return v < 0 ? nil : UInt8(v)
        }
        return table[id]?.crcExtra
    }

    /// This dialect plus `messages` (for custom or vendor messages decoded as `.unknown`).
    public func adding(_ messages: [MAVLinkMessageInfo]) -> MAVLinkDialect {
        var copy = self
        for info in messages { copy.insert(info) }
        return copy
    }

    /// All known message infos, in id order.
    public var messages: [MAVLinkMessageInfo] { table.values.sorted { $0.id < $1.id } }
}

/// The wire type of one message field.
public enum MAVLinkFieldType: String, Sendable, Hashable, CaseIterable {
    /// `char` (arrays of it are strings).
    case char
    /// `int8_t`.
    case int8
    /// `uint8_t`.
    case uint8
    /// `int16_t`.
    case int16
    /// `uint16_t`.
    case uint16
    /// `int32_t`.
    case int32
    /// `uint32_t`.
    case uint32
    /// `int64_t`.
    case int64
    /// `uint64_t`.
    case uint64
    /// `float` (IEEE 754 binary32).
    case float
    /// `double` (IEEE 754 binary64).
    case double

    /// Size of one element in bytes.
    public var size: Int {
        switch self {
        case .char, .int8, .uint8: return 1
        case .int16, .uint16: return 2
        case .int32, .uint32, .float: return 4
        case .int64, .uint64, .double: return 8
        }
    }
}

/// Where one field of a message sits on the wire.
public struct MAVLinkFieldInfo: Sendable, Hashable {
    /// The MAVLink field name (snake_case, as in the XML).
    public var name: String
    /// Element type.
    public var type: MAVLinkFieldType
    /// Byte offset in the untruncated payload.
    public var offset: Int
    /// Element count for arrays (0 for scalars).
    public var arrayLength: Int
    /// Whether the field is a MAVLink 2 extension (not covered by CRC_EXTRA, absent in MAVLink 1).
    public var isExtension: Bool

    /// Describes a field.
    public init(name: String, type: MAVLinkFieldType, offset: Int, arrayLength: Int = 0, isExtension: Bool = false) {
        self.name = name
        self.type = type
        self.offset = offset
        self.arrayLength = arrayLength
        self.isExtension = isExtension
    }

    /// Bytes the field occupies.
    public var size: Int { type.size * max(1, arrayLength) }
}
