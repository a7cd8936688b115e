import Grouping
import KindredTestSupport
import LinearAlgebra
import Testing

/// The real engine against `ReferenceEngine` on random histories: occurrences arriving over
/// several refreshes, edits (a new revision's occurrences replace the old ones), deletions,
/// dismissals, splits, merges, pins, undos and client labels. After every call both must hold the
/// same groups (ids, members and their sources, representative, examples, state, version, label)
/// and the same pending marks. The real engine's marks, kept one by one from what each call says it
/// changed (`changedPending`), must also be its whole map: a store that writes only those is whole.
/// Two refreshes in three are told what changed in the occurrences (`OccurrenceChanges`, with one
/// unchanged id more); the third compares every occurrence with the state.
@Suite struct EquivalenceTests {
    /// A small configuration exercises the speed paths of the real engine (GEMM blocks, pending
    /// rows, top-K certificates, running out of passes) on a small history.
    static let configs: [(String, GroupingConfig)] = [
        ("defaults", GroupingConfig()),
        ("small blocks, K = 3, 3 passes", GroupingConfig(delta: 0.04, candidateK: 3, maxPasses: 3, blockSize: 4)),
        // Every category's background is below 0.6 and measured on its first 24 occurrences once it
        // has 8: the thresholds move while the categories grow, then stay.
        ("adapted to the background", GroupingConfig(calibratedBackground: 0.6, backgroundSample: 24, backgroundMinimum: 8)),
        // Groups combined whenever one link joins them (three neighbours, no share or resolution
        // asked; links counted two members at a time), so that combinations, their members'
        // `.combined` place and what follows them (edits, corrections, undos) are compared too.
        ("combining often", GroupingConfig(tauSeed: 0.6, combineLink: 0, linkNeighbours: 3, combineResolution: 0, blockSize: 2)),
        // Every category above the limit: groups combined by similarity.
        ("combining by similarity", GroupingConfig(linkScopeLimit: 0, tauCombine: 0.4)),
        // No pair is close enough to seed (τ_seed above 1): every group is a loose seed of three
        // records or more, and what joins it.
        ("loose seeds only", GroupingConfig(tauSeed: 1.01, tauLooseSeed: 0.5, looseSeedRecords: 3)),
        // Descriptions of two words from twelve (`History.words`): a join or a seed below
        // `evidenceAbove` needs a word shared with the representative and an example.
        ("shared words asked", GroupingConfig(tauSeed: 0.6, evidenceMaxShare: 0.3, evidenceMinimum: 8, evidenceAbove: 0.9, evidenceMinTerms: 1)),
    ]

    @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6])
    func realAndReferenceEnginesAgreeAfterEveryCall(seed: UInt64) throws {
        for (name, config) in Self.configs {
            var h = History(seed: seed, config: config)
            try h.run(steps: 30, context: "seed \(seed), \(name)")
            if config.combineLink == 0 { #expect(h.combined > 0, "seed \(seed), \(name): the history combined no groups") }
            if config.tauSeed > 1 { #expect(h.created > 0, "seed \(seed), \(name): the history seeded no groups") }
        }
    }

    /// Records of three kinds (dream, note, none), by record number: every group the engines make
    /// holds one kind, and the two engines agree on how the kind rule (`KindRule.swift`) shapes them.
    @Test(arguments: [UInt64(1), 2, 3])
    func theEnginesAgreeWithRecordsOfSeveralKinds(seed: UInt64) throws {
        for (name, config) in Self.configs where ["defaults", "combining often", "combining by similarity"].contains(name) {
            var h = History(seed: seed, config: config, kinds: ["dream", "note", ""])
            try h.run(steps: 30, context: "seed \(seed), \(name), three kinds")
            #expect(h.groupsChecked > 0, "seed \(seed), \(name): no group of automatic members to check")
        }
    }
}

/// One random history driven through both engines.
struct History {
    var rng: SeededGenerator
    let config: GroupingConfig
    let spread: Float
    var occ: [Int64: Occurrence] = [:]
    var corrections: [Correction] = []
    var real = PatternState()
    /// The real engine's cache, handed to every refresh as the service does (corrections, undos and
    /// removals change the state between refreshes: the cache must notice).
    var cache = EngineCache()
    /// The real engine's pending marks as a store keeps them: only the changed ones written.
    var stored: [Int64: PendingMark] = [:]
    /// The occurrence ids the real engine's last call was given, and how many refreshes ran.
    var lastIDs = Set<Int64>()
    var refreshes = 0
    /// Groups the real engine combined over the history, and created in refreshes (not splits).
    var combined = 0
    var created = 0
    var ref: ReferenceEngine
    var nextID: Int64 = 1
    var nextRecord = 0
    var nextCorrection: Int64 = 1
    var batch: UInt64
    /// Record "r<n>" is of kind `kinds[n % kinds.count]` (empty: every record without a kind).
    let kinds: [String]
    /// Groups seen holding one record kind, after every call until a merge or a pin (a person's
    /// hand may put two kinds together, and what follows from it is theirs).
    var groupsChecked = 0
    var kindsCrossedByHand = false

    init(seed: UInt64, config: GroupingConfig, kinds: [String] = []) {
        self.kinds = kinds
        rng = SeededGenerator(seed: seed &* 7919)
        self.config = config
        ref = ReferenceEngine(config: config)
        spread = 0.6 + 0.1 * Float(seed % 5)
        batch = seed &* 1000
    }

    var constraints: Constraints { Constraints.derive(from: corrections, occurrences: occ) }

    static let words = ["harbour", "lantern", "violin", "orchard", "ferry", "attic", "comet", "saddle", "meadow", "kettle", "glacier", "pepper"]

    /// Keeps the real engine's outcome: its state, and its changed marks in `stored`.
    mutating func keep(_ o: RefreshOutcome, _ context: String) {
        combined += o.stats.groupsCombined
        if o.pendingReplaced { stored = o.state.pending } else { for id in o.changedPending { stored[id] = o.state.pending[id] } }
        #expect(stored == o.state.pending, "\(context): marks written one by one differ from the state's")
        real = o.state
        lastIDs = Set(occ.keys)
        guard !kinds.isEmpty, !kindsCrossedByHand else { return }
        for g in o.state.sortedGroups where !g.members.isEmpty {
            let held = Set(g.members.compactMap { occ[$0.occurrenceID]?.recordKind })
            #expect(held.count == 1, "\(context): group \(g.id) holds records of kinds \(held.sorted())")
            groupsChecked += 1
        }
    }

    /// The ids added or removed since the real engine's last call, with one unchanged id more
    /// (any superset will do); nil every third refresh.
    mutating func changes() -> OccurrenceChanges? {
        refreshes += 1
        guard refreshes % 3 != 0 else { return nil }
        let now = Set(occ.keys)
        return OccurrenceChanges(now.symmetricDifference(lastIDs).union(now.intersection(lastIDs).min().map { [$0] } ?? []))
    }

    /// New occurrences for `records` records (ids "r<n>" from `firstRecord`, revision `revision`).
    mutating func arrive(records: Int, firstRecord: Int, revision: Int = 1) -> [Occurrence] {
        batch &+= 1
        let xs = SyntheticData.history(seed: batch, records: records, perRecord: 2, clusters: 5, dimension: 24,
                                       spread: spread, noiseShare: 0.2, firstID: nextID, firstRecord: firstRecord)
        nextID += Int64(xs.count)
        let worded = config.evidenceMaxShare > 0
        return xs.map {
            let description = worded ? "\(Self.words[Int($0.id % 12)]) \(Self.words[Int(rng.next() % 12)])" : $0.description
            let kind = kinds.isEmpty ? "" : kinds[Int($0.recordID.dropFirst())! % kinds.count]
            return Occurrence(id: $0.id, owner: $0.owner, category: $0.category, description: description, excerpt: worded ? description : $0.excerpt,
                       recordID: $0.recordID, recordRevision: revision, recordDate: $0.recordDate, recordKind: kind, tags: $0.tags,
                       vector: $0.vector)
        }
    }

    mutating func refresh(_ context: String) throws {
        let c = constraints
        let changes = changes()
        let outcome = try PatternEngine.refresh(state: real, occurrences: occ, changes: changes, constraints: c, config: config, cache: &cache)
        created += outcome.stats.groupsCreated
        keep(outcome, context)
        ref.refresh(occ, c)
        try compare(context + " (refresh)")
    }

    func compare(_ context: String) throws {
        let a = ReferenceEngine.describe(real), b = ref.description
        if a != b {
            let diff = zip(a, b).first { $0 != $1 }.map { "real: \($0.0)\nref:  \($0.1)" } ?? "real \(a.count) lines, reference \(b.count)"
            Issue.record("\(context): engines differ\n\(diff)")
            throw GroupingError.invalidCorrection("engines differ")
        }
    }

    mutating func pick<T>(_ xs: [T]) -> T? { xs.isEmpty ? nil : xs[Int.random(in: 0..<xs.count, using: &rng)] }

    /// Applies `request` to both engines when the real engine accepts it.
    mutating func correct(_ kind: CorrectionKind, _ context: String) throws {
        let request = CorrectionRequest(kind: kind, note: nil, createdAt: "t")
        guard let c = try? PatternEngine.prepare(request, id: nextCorrection, state: real, occurrences: occ, constraints: constraints)
        else { return }
        nextCorrection += 1
        corrections.append(c)
        switch kind {
        case .merge, .pin: kindsCrossedByHand = true
        case .dismiss, .split, .exclude: break
        }
        let after = constraints
        keep(try PatternEngine.apply(c, to: real, occurrences: occ, constraints: after, config: config), context)
        ref.apply(c, occ, after)
        try compare("\(context) (\(kind))")
    }

    mutating func run(steps: Int, context: String) throws {
        for o in arrive(records: 24, firstRecord: 0) { occ[o.id] = o }
        nextRecord = 24
        try refresh("\(context) start")
        for step in 0..<steps {
            let here = "\(context), step \(step)"
            let groups = real.sortedGroups.filter { !$0.members.isEmpty }
            switch Int.random(in: 0..<10, using: &rng) {
            case 0, 1:
                let n = Int.random(in: 1...5, using: &rng)
                for o in arrive(records: n, firstRecord: nextRecord) { occ[o.id] = o }
                nextRecord += n
            case 2:
                // A new revision: the old occurrences leave at once, new ones arrive.
                guard let r = pick(Set(occ.values.map(\.recordID)).sorted()) else { break }
                let old = Set(occ.values.filter { $0.recordID == r }.map(\.id))
                for id in old { occ[id] = nil }
                keep(PatternEngine.removeOccurrences(old, from: real, occurrences: occ, config: config), here)
                ref.removeOccurrences(old, occ)
                try compare("\(here) (edit \(r))")
                let n = Int(r.dropFirst())!
                for o in arrive(records: 1, firstRecord: n, revision: 2) { occ[o.id] = o }
            case 3:
                // A deletion the next refresh finds (reconcile), or one reported at once.
                guard let r = pick(Set(occ.values.map(\.recordID)).sorted()) else { break }
                let gone = Set(occ.values.filter { $0.recordID == r }.map(\.id))
                for id in gone { occ[id] = nil }
                if Bool.random(using: &rng) {
                    keep(PatternEngine.removeOccurrences(gone, from: real, occurrences: occ, config: config), here)
                    ref.removeOccurrences(gone, occ)
                    try compare("\(here) (delete \(r))")
                }
            case 4:
                guard let g = pick(groups), let o = pick(g.memberIDs) else { break }
                // One in four: the entry belongs to no pattern at all.
                let exclude = Int.random(in: 0..<4, using: &rng) == 0
                try correct(exclude ? .exclude(occurrence: o, group: g.id) : .dismiss(occurrence: o, group: g.id), here)
            case 5:
                guard let g = pick(groups.filter { $0.members.count >= 3 }) else { break }
                let out = g.memberIDs.filter { _ in Bool.random(using: &rng) }
                try correct(.split(group: g.id, moveOut: out), here)
            case 6:
                guard let a = pick(groups), let b = pick(groups.filter { $0.scope == a.scope && $0.id != a.id }) else { break }
                try correct(.merge(into: a.id, from: b.id), here)
            case 7:
                guard let g = pick(groups), let o = pick(occ.values.filter { $0.scope == g.scope }.map(\.id).sorted()) else { break }
                try correct(.pin(occurrence: o, group: g.id), here)
            case 8:
                guard let c = pick(corrections) else { break }
                corrections.removeAll { $0.id == c.id }
                let rest = constraints
                keep(PatternEngine.undo(c, state: real, occurrences: occ, constraints: rest, config: config), here)
                ref.undo(c, occ, rest)
                try compare("\(here) (undo \(c.kind))")
            default:
                guard let g = pick(groups) else { break }
                let version = Bool.random(using: &rng) ? g.version : g.version - 1
                let accepted = ref.setLabel(g.id, version: version, "label \(step)")
                if let s = try? PatternEngine.setLabel(real, groupID: g.id, version: version, label: "label \(step)") {
                    real = s
                    #expect(accepted, "\(here): reference refused a label")
                } else {
                    #expect(!accepted, "\(here): reference took a stale label")
                }
            }
            try refresh(here)
            // Idempotent: a second refresh changes nothing.
            let again = try PatternEngine.refresh(state: real, occurrences: occ, changes: OccurrenceChanges([]), constraints: constraints,
                                                  config: config, cache: &cache)
            #expect(again.state == real && again.changedGroups.isEmpty && again.changedPending.isEmpty,
                    "\(here): second refresh changed the state")
        }
        #expect(Invariants.check(real, occ).isEmpty, "\(context)")
    }
}
