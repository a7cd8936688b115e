/// Small vector helpers over contiguous Float storage.
public enum Vectors {
    /// Dot product of two equal-length vectors (4-way unrolled; exact enough for ranking).
    @inlinable
    public static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, count n: Int) -> Float {
        var s0: Float = 0, s1: Float = 0, s2: Float = 0, s3: Float = 0
        var i = 0
        while i + 4 <= n {
            s0 += a[i] * b[i]; s1 += a[i + 1] * b[i + 1]
            s2 += a[i + 2] * b[i + 2]; s3 += a[i + 3] * b[i + 3]
            i += 4
        }
        while i < n { s0 += a[i] * b[i]; i += 1 }
        return (s0 + s1) + (s2 + s3)
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

    /// Returns v / max(‖v‖, 1e-12).
    public static func normalized(_ v: [Float]) -> [Float] {
        let n = max(norm(v), 1e-12)
        return v.map { $0 / n }
    }

    /// Normalises `count` floats in place.
    public static func normalize(_ v: UnsafeMutablePointer<Float>, count n: Int) {
        var s: Double = 0
        for i in 0..<n { s += Double(v[i]) * Double(v[i]) }
        let inv = 1 / max(Float(s.squareRoot()), 1e-12)
        for i in 0..<n { v[i] *= inv }
    }

    /// True when every component is finite.
    public static func allFinite(_ v: [Float]) -> Bool { v.allSatisfy { $0.isFinite } }
}
