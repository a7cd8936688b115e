/// Small vector helpers over contiguous Float storage.
public enum Vectors {
    /// Dot product of two equal-length vectors: two 8-lane accumulators over 16 floats at a time,
    /// then the rest one by one. Plain multiply and add in a fixed order (no fused or
    /// CPU-dependent paths), so the result is the same on every x86-64 and ARM machine.
    @inlinable
    public static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, count n: Int) -> Float {
        var acc0 = SIMD8<Float>(), acc1 = SIMD8<Float>()
        let ra = UnsafeRawPointer(a), rb = UnsafeRawPointer(b)
        var i = 0
        while i + 16 <= n {
            let o = i * MemoryLayout<Float>.stride
            acc0 += ra.loadUnaligned(fromByteOffset: o, as: SIMD8<Float>.self) * rb.loadUnaligned(fromByteOffset: o, as: SIMD8<Float>.self)
            acc1 += ra.loadUnaligned(fromByteOffset: o + 32, as: SIMD8<Float>.self) * rb.loadUnaligned(fromByteOffset: o + 32, as: SIMD8<Float>.self)
            i += 16
        }
        let lanes = acc0 + acc1
        var s: Float = 0
        for k in 0..<8 { s += lanes[k] }
        while i < n { s += a[i] * b[i]; i += 1 }
        return s
    }

    public static func dot(_ a: [Float], _ b: [Float]) -> Float {
        precondition(a.count == b.count, "dimension mismatch")
        return a.withUnsafeBufferPointer { pa in
            b.withUnsafeBufferPointer { pb in dot(pa.baseAddress!, pb.baseAddress!, count: a.count) }
        }
    }

    /// Euclidean norm.
    public static func norm(_ v: [Float]) -> Float {
        var s: Double = 0
        for x in v { s += Double(x) * Double(x) }
        return Float(s.squareRoot())
    }

    /// The smallest length `normalize` scales to unit length; shorter vectors are scaled by 1/minimumNorm.
    public static let minimumNorm: Float = 1e-12

    /// True when `v` becomes a unit vector under `normalize`: its length is finite and at least `minimumNorm`.
    public static func hasDirection(_ v: [Float]) -> Bool {
        let n = norm(v)
        return n.isFinite && n >= minimumNorm
    }

    /// Returns v / max(‖v‖, minimumNorm).
    public static func normalized(_ v: [Float]) -> [Float] {
        let n = max(norm(v), minimumNorm)
        return v.map { $0 / n }
    }

    /// Normalises `count` floats in place.
    public static func normalize(_ v: UnsafeMutablePointer<Float>, count n: Int) {
        var s: Double = 0
        for i in 0..<n { s += Double(v[i]) * Double(v[i]) }
        let inv = 1 / max(Float(s.squareRoot()), minimumNorm)
        for i in 0..<n { v[i] *= inv }
    }

    /// True when every component is finite.
    public static func allFinite(_ v: [Float]) -> Bool { v.allSatisfy { $0.isFinite } }
}
