/// Dot products of one query against many contiguous rows, written for the auto-vectoriser:
/// four rows at a time, SIMD accumulators, no bounds checks.
enum Kernels {
    /// scores[i] = query · rows[i] for `count` rows of dimension `d`.
    @inline(__always)
    static func dots(query q: UnsafePointer<Float>, rows base: UnsafePointer<Float>, count: Int, d: Int, into scores: UnsafeMutablePointer<Float>) {
        if d % 16 == 0 {
            dots16(query: q, rows: base, count: count, d: d, into: scores)
            return
        }
        for i in 0..<count {
            let r = base + i * d
            var s: Float = 0
            for j in 0..<d { s += q[j] * r[j] }
            scores[i] = s
        }
    }

    private static func dots16(query q: UnsafePointer<Float>, rows base: UnsafePointer<Float>, count: Int, d: Int, into scores: UnsafeMutablePointer<Float>) {
        let qv = UnsafeRawPointer(q)
        var i = 0
        while i + 4 <= count {
            let r0 = UnsafeRawPointer(base + i * d), r1 = UnsafeRawPointer(base + (i + 1) * d)
            let r2 = UnsafeRawPointer(base + (i + 2) * d), r3 = UnsafeRawPointer(base + (i + 3) * d)
            var a0 = SIMD16<Float>(), a1 = SIMD16<Float>(), a2 = SIMD16<Float>(), a3 = SIMD16<Float>()
            var off = 0
            let bytes = d * 4
            while off < bytes {
                let x = qv.loadUnaligned(fromByteOffset: off, as: SIMD16<Float>.self)
                a0 += x * r0.loadUnaligned(fromByteOffset: off, as: SIMD16<Float>.self)
                a1 += x * r1.loadUnaligned(fromByteOffset: off, as: SIMD16<Float>.self)
                a2 += x * r2.loadUnaligned(fromByteOffset: off, as: SIMD16<Float>.self)
                a3 += x * r3.loadUnaligned(fromByteOffset: off, as: SIMD16<Float>.self)
                off += 64
            }
            scores[i] = a0.sum()
            scores[i + 1] = a1.sum()
            scores[i + 2] = a2.sum()
            scores[i + 3] = a3.sum()
            i += 4
        }
        while i < count {
            let r = UnsafeRawPointer(base + i * d)
            var a = SIMD16<Float>()
            var off = 0
            while off < d * 4 {
                a += qv.loadUnaligned(fromByteOffset: off, as: SIMD16<Float>.self) * r.loadUnaligned(fromByteOffset: off, as: SIMD16<Float>.self)
                off += 64
            }
            scores[i] = a.sum()
            i += 1
        }
    }
}
