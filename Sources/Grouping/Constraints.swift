/// Hard constraints derived from corrections by a pure function.
///
/// - cannot-link: record pairs that may never share a group created or joined later
///   (groups the two already share are left alone);
/// - must-link: record sets the user put together (merge, pin), used to refuse contradictions;
/// - pins: occurrence → group, re-established by a rebuild.
public struct Constraints: Sendable, Hashable {
    public private(set) var cannotLink: Set<RecordPair> = []
    private var cannotIndex: [String: Set<String>] = [:]
    private var mustLink = UnionFind()
    public private(set) var pins: [Int64: Int64] = [:]

    public init() {}

    /// Derives the constraints of `corrections` (applied in id order). Pins of occurrences that no
    /// longer exist are dropped.
    public static func derive(from corrections: [Correction], occurrences: [Int64: Occurrence]) -> Constraints {
        var c = Constraints()
        for correction in corrections.sorted(by: { $0.id < $1.id }) {
            c.add(correction)
            if case let .pin(o, g) = correction.kind, occurrences.has(o) { c.pins[o] = g }
        }
        return c
    }

    /// True when records `a` and `b` must be kept apart.
    public func cannotLink(_ a: String, _ b: String) -> Bool {
        a != b && cannotIndex[a]?.contains(b) == true
    }

    /// True when `record` must be kept apart from any of `records`.
    func conflicts(_ record: String, with records: Set<String>) -> Bool {
        guard let apart = cannotIndex[record] else { return false }
        return apart.count < records.count ? apart.contains(where: records.contains) : records.contains(where: apart.contains)
    }

    /// The records `record` must be kept apart from, if any.
    func apart(from record: String) -> Set<String>? { cannotIndex[record] }

    /// True when the two records were put together by a correction.
    public func mustLink(_ a: String, _ b: String) -> Bool { mustLink.connected(a, b) }

    /// Refuses `correction` if, together with the existing constraints, some pair of records would
    /// be both must-link and cannot-link. The error names both records.
    public func validate(_ correction: Correction) throws {
        var merged = self
        merged.add(correction)
        let pairs = (correction.joined.isEmpty ? correction.separated : merged.cannotLink.sorted())
        for pair in pairs.sorted() where merged.mustLink.connected(pair.a, pair.b) {
            throw GroupingError.contradiction(recordA: pair.a, recordB: pair.b, occurrences: correction.occurrences)
        }
    }

    mutating func add(_ correction: Correction) {
        for pair in correction.separated {
            cannotLink.insert(pair)
            cannotIndex[pair.a, default: []].insert(pair.b)
            cannotIndex[pair.b, default: []].insert(pair.a)
        }
        if let first = correction.joined.first {
            for r in correction.joined.dropFirst() { mustLink.union(first, r) }
        }
    }
}
