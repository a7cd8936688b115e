import KindredCore
import JSONRPC

/// A vector sent as base64 (`records[i].vector`, `search/query` `vector`): the float32 values,
/// little-endian, 4 bytes each, as OpenAI's `encoding_format: "base64"` answers them. A client that
/// holds its vectors as float32 sends them without formatting or parsing a decimal number per
/// component.
enum VectorParam {
    /// The floats of `text`, which must hold exactly `dimension` finite float32 values. Errors name
    /// `field` (a wrong length, bad base64) and say which value is NaN or infinite.
    static func floats(base64 text: String, dimension: Int, field: String) throws(ResponseError) -> [Float] {
        let bytes: [UInt8]
        do throws(Base64.Problem) {
            bytes = try Base64.decode(text)
        } catch {
            throw .invalidParams(field: field, reason: "as a string must be base64 of little-endian float32: it \(error.reason)")
        }
        guard bytes.count % 4 == 0 else {
            throw .invalidParams(field: field, reason: "as base64 holds \(bytes.count) bytes, not a whole number of float32 values (4 bytes each)")
        }
        guard bytes.count == dimension * 4 else {
            throw .invalidParams(field: field, reason: "must have \(dimension) dimensions, got \(bytes.count / 4) (\(bytes.count) bytes of base64; \(dimension * 4) expected)")
        }
        var out = [Float](repeating: 0, count: dimension)
        for i in 0..<dimension {
            let b = UInt32(bytes[4 * i]) | UInt32(bytes[4 * i + 1]) << 8 | UInt32(bytes[4 * i + 2]) << 16 | UInt32(bytes[4 * i + 3]) << 24
            out[i] = Float(bitPattern: b)
        }
        if let bad = out.firstIndex(where: { !$0.isFinite }) {
            throw .invalidParams(field: field, reason: "must be finite (no NaN or Infinity): value \(bad) (bytes \(4 * bad)–\(4 * bad + 3)) is \(out[bad].isNaN ? "NaN" : "infinite")")
        }
        return out
    }
}
