import Foundation

/// A float32 vector stored compactly: encoded as the base64 of its little-endian float32 bytes
/// (exact, and a quarter of the size of a JSON number list).
public struct PackedVector: Sendable, Hashable, Codable {
    public var values: [Float]

    public init(_ values: [Float]) { self.values = values }

    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let data = Data(base64Encoded: text), data.count % 4 == 0 else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not base64 float32 data"))
        }
        var out = [Float](repeating: 0, count: data.count / 4)
        data.withUnsafeBytes { raw in
            for i in out.indices { out[i] = Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self))) }
        }
        values = out
    }

    public func encode(to encoder: Encoder) throws {
        var data = Data(capacity: values.count * 4)
        for v in values { withUnsafeBytes(of: v.bitPattern.littleEndian) { data.append(contentsOf: $0) } }
        var c = encoder.singleValueContainer()
        try c.encode(data.base64EncodedString())
    }
}
