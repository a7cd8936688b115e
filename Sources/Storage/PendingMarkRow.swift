/// One pending mark of the grouping engine as the columns of `pattern_pending` (migration 22):
/// the occurrence, when it was last evaluated, its scope's category and the certificate of its last
/// evaluation. The scope's owner is the row's.
public struct PendingMarkRow: Sendable, Hashable {
    /// What the mark's last evaluation looked at (the engine's `PendingCertificate`).
    public struct Certificate: Sendable, Hashable {
        public var at: Int64
        /// Ascending group ids; stored as little-endian int64, 8 bytes each.
        public var candidates: [Int64]
        public var kthScore: Int64?
        public var kthGroup: Int64?
        public var stamp: Int64

        public init(at: Int64, candidates: [Int64], kthScore: Int64?, kthGroup: Int64?, stamp: Int64) {
            self.at = at; self.candidates = candidates; self.kthScore = kthScore; self.kthGroup = kthGroup; self.stamp = stamp
        }
    }

    public var occurrence: Int64
    /// nil: fresh (never evaluated, or evicted).
    public var evaluatedAt: Int64?
    /// The category of the occurrence's scope; nil when the mark does not say.
    public var category: String?
    public var certificate: Certificate?

    public init(occurrence: Int64, evaluatedAt: Int64?, category: String?, certificate: Certificate?) {
        self.occurrence = occurrence; self.evaluatedAt = evaluatedAt; self.category = category; self.certificate = certificate
    }

    static let columns = "occurrence, evaluated_at, category, checked_at, candidates, kth_score, kth_group, stamp"

    /// The values of `columns`, in their order.
    var values: [SQLValue] {
        [.int(occurrence), evaluatedAt.map { .int($0) } ?? .null, category.map { .text($0) } ?? .null,
         certificate.map { .int($0.at) } ?? .null, certificate.map { .blob(Self.blob($0.candidates)) } ?? .null,
         certificate?.kthScore.map { .int($0) } ?? .null, certificate?.kthGroup.map { .int($0) } ?? .null,
         certificate.map { .int($0.stamp) } ?? .null]
    }

    /// The row whose columns, in the order of `columns`, start at `first`.
    init(_ s: Statement, from first: Int) {
        func int(_ i: Int) -> Int64? { s.isNull(first + i) ? nil : s.int(first + i) }
        occurrence = s.int(first)
        evaluatedAt = int(1)
        category = s.text(first + 2)
        certificate = int(3).map { at in
            Certificate(at: at, candidates: s.withBlob(first + 4, Self.ids), kthScore: int(5), kthGroup: int(6), stamp: int(7) ?? 0)
        }
    }

    static func blob(_ ids: [Int64]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(ids.count * 8)
        for id in ids {
            let bits = UInt64(bitPattern: id)
            for k in 0..<8 { out.append(UInt8(truncatingIfNeeded: bits >> (8 * k))) }
        }
        return out
    }

    static func ids(_ bytes: UnsafeRawBufferPointer) -> [Int64] {
        (0..<bytes.count / 8).map { Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: $0 * 8, as: Int64.self)) }
    }
}
