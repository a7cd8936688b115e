/// An order-independent summary of a set of occurrence ids: count, largest id and two 64-bit set
/// checksums. Two sets with equal digests are, for all practical purposes, equal; `reconcile` uses
/// this to see that the known ids are still all there without a look-up per id.
public struct IDDigest: Sendable, Hashable, Codable {
    public var count = 0
    public var max = Int64.min
    public var sum: UInt64 = 0
    public var xor: UInt64 = 0

    public init() {}

    init<S: Sequence>(_ ids: S) where S.Element == Int64 {
        for id in ids { add(id) }
    }

    @inline(__always)
    mutating func add(_ id: Int64) {
        count += 1
        if id > max { max = id }
        sum &+= Self.mix(id, 0x9E37_79B9_7F4A_7C15)
        xor ^= Self.mix(id, 0xD1B5_4A32_D192_ED03)
    }

    mutating func add(_ other: IDDigest) {
        count += other.count
        if other.max > max { max = other.max }
        sum &+= other.sum
        xor ^= other.xor
    }

    /// Stored as `[count, max, "sum hex", "xor hex"]` (64-bit checksums as text, exact in any JSON reader).
    public init(from decoder: Decoder) throws {
        var c = try decoder.unkeyedContainer()
        count = try c.decode(Int.self)
        max = try c.decode(Int64.self)
        guard let s = UInt64(try c.decode(String.self), radix: 16), let x = UInt64(try c.decode(String.self), radix: 16) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "bad id digest checksum"))
        }
        sum = s
        xor = x
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.unkeyedContainer()
        try c.encode(count)
        try c.encode(max)
        try c.encode(String(sum, radix: 16))
        try c.encode(String(xor, radix: 16))
    }

    @inline(__always)
    static func mix(_ x: Int64, _ salt: UInt64) -> UInt64 {
        var z = UInt64(bitPattern: x) &+ salt
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
