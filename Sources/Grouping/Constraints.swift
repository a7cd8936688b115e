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
    /// Records kept out of every group (exclude).
    public private(set) var excluded: Set<String> = []
    /// Records a dismissal took out of a group: they join another only on clearer evidence
    /// (`GroupingConfig.dismissedMargin`).
    public private(set) var dismissed: Set<String> = []

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
        a != b && (cannotIndex[a]?.contains(b) == true || (!excluded.isEmpty && (excluded.contains(a) || excluded.contains(b))))
    }

    /// True when `record` is kept out of every group.
    public func isExcluded(_ record: String) -> Bool { !excluded.isEmpty && excluded.contains(record) }

    /// True when `record` must be kept apart from any of `records`.
    func conflicts(_ record: String, with records: Set<String>) -> Bool {
        if !excluded.isEmpty && (excluded.contains(record) || records.contains(where: excluded.contains)) { return true }
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

    /// The record every pair holds (a dismissal stored before its record was): none when unclear.
    static func common(_ pairs: [RecordPair]) -> [String] {
        guard let first = pairs.first else { return [] }
        var shared: Set<String> = [first.a, first.b]
        for p in pairs.dropFirst() { shared.formIntersection([p.a, p.b]) }
        return shared.count == 1 ? Array(shared) : []
    }

    mutating func add(_ correction: Correction) {
        switch correction.kind {
        case .exclude: excluded.formUnion(correction.records)
        case .dismiss: dismissed.formUnion(correction.records.isEmpty ? Self.common(correction.separated) : correction.records)
        default: break
        }
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
