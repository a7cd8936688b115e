/// Vectors are stored as little-endian float32 BLOBs.
public enum VectorBlob {
    public static func encode(_ v: [Float]) -> [UInt8] {
        #if _endian(little)
        return v.withUnsafeBytes { Array($0.bindMemory(to: UInt8.self)) }
        #else
        var out = [UInt8](repeating: 0, count: v.count * 4)
        for (i, x) in v.enumerated() {
            let b = x.bitPattern.littleEndian
            out[i * 4] = UInt8(truncatingIfNeeded: b)
            out[i * 4 + 1] = UInt8(truncatingIfNeeded: b >> 8)
            out[i * 4 + 2] = UInt8(truncatingIfNeeded: b >> 16)
            out[i * 4 + 3] = UInt8(truncatingIfNeeded: b >> 24)
        }
        return out
        #endif
    }

    /// Calls `body` with the blob bytes of `v`: the vector's own memory on a little-endian host (no copy).
    public static func withBytes<T>(_ v: [Float], _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        #if _endian(little)
        return try v.withUnsafeBytes(body)
        #else
        return try encode(v).withUnsafeBytes(body)
        #endif
    }

    /// Decodes into `out` (appending); returns false when the size is not `dimension` floats.
    public static func decode(_ bytes: UnsafeRawBufferPointer, dimension: Int, into out: inout [Float]) -> Bool {
        guard bytes.count == dimension * 4 else { return false }
        guard dimension > 0 else { return true }
        #if _endian(little)
        // The stored bytes are the host's floats: one copy.
        let start = out.count
        out.append(contentsOf: repeatElement(0, count: dimension))
        out.withUnsafeMutableBytes { dst in (dst.baseAddress! + start * 4).copyMemory(from: bytes.baseAddress!, byteCount: dimension * 4) }
        #else
        for i in 0..<dimension {
            let bits = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self))
            out.append(Float(bitPattern: bits))
        }
        #endif
        return true
    }

    /// Decodes every whole float of `bytes` into `out` (appending), whatever their count.
    static func decodeRaw(_ bytes: UnsafeRawBufferPointer, into out: inout [Float]) -> Bool {
        decode(UnsafeRawBufferPointer(rebasing: bytes.prefix(bytes.count / 4 * 4)), dimension: bytes.count / 4, into: &out)
    }
}
