import Foundation
import Grouping
import KindredCore
import JSONRPC
import Storage

/// Converts between the grouping engine's values and the store's rows. Groups and corrections are
/// stored as the engine's own JSON (sorted keys, so equal states give equal rows); pending marks
/// as columns (`PendingMarkColumns.swift`).
enum PatternCodec {
    static func encode<T: Encodable>(_ value: T) throws -> String {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try e.encode(value), as: UTF8.self)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(text.utf8))
    }

    static func occurrence(_ o: StoredOccurrence) -> Occurrence {
        Occurrence(id: o.id, owner: o.owner, category: o.category, description: o.description, excerpt: o.excerpt,
                   recordID: o.recordID, recordRevision: Int(o.recordRevision), recordDate: o.recordDate, recordKind: o.recordKind, tags: o.tags,
                   vector: o.vector ?? [])
    }

    /// The group's row: its JSON body without the centroid, which goes to its own BLOB column.
    static func groupRow(_ g: Group) throws -> GroupRow {
        var body = g
        body.centroid = nil
        return GroupRow(owner: g.owner, id: g.id, category: g.category, state: g.state.rawValue, version: Int64(g.version),
                        label: g.label, labelDescription: nil, body: try encode(body), centroid: g.centroid?.values)
    }

    static func group(_ row: GroupRow) throws -> Group {
        var g = try decode(Group.self, row.body)
        if let c = row.centroid { g.centroid = PackedVector(c) }
        return g
    }
}

extension PatternConfig {
    /// - Parameter modelScale: the embedding model's similarity scale (`EmbeddingPresets.similarityScale`),
    ///   used where `patterns.similarityScale` is 0.
    init(_ p: PatternSettings, modelScale: Double = 1) {
        var g = GroupingConfig()
        g.tauRep = Float(p.tauRep)
        g.tauSup = Float(p.tauSup)
        g.tauSeed = Float(p.tauSeed)
        g.tauLooseSeed = Float(p.tauLooseSeed)
        g.looseSeedRecords = p.looseSeedRecords
        g.delta = Float(p.delta)
        g.tauStay = Float(p.tauStay)
        g.combineLink = Float(p.combineLink)
        g.linkNeighbours = p.linkNeighbours
        g.combineResolution = Float(p.combineResolution)
        g.linkScopeLimit = p.linkScopeLimit
        g.tauCombine = Float(p.tauCombine)
        let background = Float(p.calibratedBackground)
        g.calibratedBackground = background > 1 ? nil : background
        g.similarityScale = Float(p.similarityScale > 0 ? p.similarityScale : modelScale)
        g.backgroundMargin = Float(p.backgroundMargin)
        g.evidenceMaxShare = Float(p.evidenceMaxShare)
        g.evidenceMinimum = p.evidenceMinimum
        g.evidenceExamples = p.evidenceExamples
        g.evidenceAbove = Float(p.evidenceAbove)
        g.evidenceMinTerms = p.evidenceMinTerms
        g.judgeCandidates = p.judgeCandidates
        g.dismissedMargin = Float(p.dismissedMargin)
        g.judgeFloor = Float(p.judgeFloor)
        g.candidateK = p.candidateK
        g.exemplars = p.exemplars
        g.recurringThreshold = p.recurringThreshold
        g.relatedThreshold = p.relatedThreshold
        g.minComparisonDenominator = p.minComparisonDenominator
        var t = ThemeConfig()
        t.repFraction = Float(p.themeRepFraction)
        t.supFraction = Float(p.themeSupFraction)
        t.seedFraction = Float(p.themeSeedFraction)
        t.examples = max(1, p.themeExamples)
        self.init(grouping: g, themes: t, passageOccurrences: p.passageOccurrences)
    }
}

/// The pattern settings of the configuration.
struct PatternConfig: Sendable {
    var grouping: GroupingConfig
    /// The theme rule's thresholds (`patterns.theme*`).
    var themes: ThemeConfig
    var passageOccurrences: Bool
}

/// What the engine needs for one owner, loaded in one go.
struct OwnerPatterns {
    var state: PatternState
    /// The index version the stored groups were last refreshed with (nil: not known).
    var stateIndexVersion: String?
    var occurrences: [Int64: Occurrence]
    var corrections: [Correction]
    /// Label descriptions written with client labels, by group id.
    var labelDescriptions: [Int64: String]
    /// Read inside a transaction: the occurrences as a copy to keep once it commits (see
    /// `eligibleOccurrences`).
    var occurrencesToKeep: OccurrencesEntry?
    /// The input log position of the occurrences `state` was refreshed with, when known.
    var stateOccurrencesAt: Int64?
    /// The occurrences logged since `since` (the kept copy's position before it was brought up to
    /// date); nil when the occurrences were read in full.
    var occurrencesChanged: (since: Int64, ids: [Int64])?
    /// Loaded for update: what the refresh that returned `state` derived from it (see `EngineCache`).
    var engineCache = EngineCache()

    /// What changed in the occurrences since `state` was refreshed, when the store's log says so.
    var changesSinceState: OccurrenceChanges? {
        guard let at = stateOccurrencesAt, let changed = occurrencesChanged, changed.since == at else { return nil }
        return OccurrenceChanges(changed.ids)
    }
}

extension KindredService {
    /// Loads the owner's engine state (an empty one when none is stored).
    /// Also gives the label descriptions and the index version the groups were last refreshed with.
    /// A state read at the store's current pattern revision is reused from `patternStates`.
    /// `forUpdate`: the caller is about to hand the state to the engine and save the result: the
    /// kept copy is taken out, so that the engine's copy is the only one and is updated in place.
    func loadPatternState(_ store: RecordStore, owner: String, forUpdate: Bool = false) throws -> (PatternState, [Int64: String], String?) {
        let e = try loadPatternStateEntry(store, owner: owner, forUpdate: forUpdate)
        return (e.state, e.labelDescriptions, e.indexVersion)
    }

    /// `loadPatternState`, as an entry (with the occurrences' log position when it was kept).
    func loadPatternStateEntry(_ store: RecordStore, owner: String, forUpdate: Bool = false) throws -> PatternStateEntry {
        // Inside a transaction the rows may include writes not committed yet: a kept copy is used
        // only while the revision is the committed one it was read at (a write in this transaction
        // bumps it past every committed revision), and nothing read here is kept.
        let keep = !store.database.inTransaction
        let revision = try store.patternRevision(owner: owner)
        if let e = forUpdate ? patternStates.take(owner) : patternStates.entry(owner), e.revision == revision {
            return e
        }
        var state = PatternState()
        var descriptions: [Int64: String] = [:]
        var version: String?
        if let row = try store.patternStateRow(owner: owner) {
            version = row.indexVersion
            state.nextGroupID = row.nextGroupID
            state.groupsVersion = Int(row.groupsVersion)
            state.settledAt = row.settledAt.map { Int($0) }
            if let checked = row.pendingChecked { state.checked = try PatternStateJSON.decodeChecked(checked) }
            if let levels = row.backgroundLevels { state.levels = try PatternStateJSON.decodeLevels(levels) }
            let marks = try store.pendingMarkRows(owner: owner)
            var pending = [Int64: PendingMark](minimumCapacity: marks.count)
            for m in marks { pending[m.occurrence] = PatternCodec.mark(m, owner: owner) }
            state.pending = pending
        }
        for row in try store.groupRows(owner: owner) {
            state.groups[row.id] = try PatternCodec.group(row)
            if let d = row.labelDescription { descriptions[row.id] = d }
        }
        let entry = PatternStateEntry(revision: revision, state: state, labelDescriptions: descriptions, indexVersion: version)
        if keep && !forUpdate { patternStates.store(owner, entry) }
        return entry
    }

    /// Loads state, eligible occurrences (with vectors when `withVectors`) and active corrections.
    func loadOwnerPatterns(_ store: RecordStore, owner: String, withVectors: Bool, forUpdate: Bool = false) throws -> OwnerPatterns {
        let entry = try loadPatternStateEntry(store, owner: owner, forUpdate: forUpdate)
        let (occurrences, toKeep, changed) = try eligibleOccurrences(store, owner: owner, withVectors: withVectors, handOver: forUpdate)
        let corrections = try store.correctionRows(owner: owner).filter { !$0.undone }.map { try PatternCodec.decode(Correction.self, $0.body) }
        var data = OwnerPatterns(state: entry.state, stateIndexVersion: entry.indexVersion, occurrences: occurrences, corrections: corrections,
                             labelDescriptions: entry.labelDescriptions, occurrencesToKeep: toKeep, stateOccurrencesAt: entry.occurrencesAt,
                             occurrencesChanged: changed)
        if forUpdate { data.engineCache = entry.engineCache }
        return data
    }

    /// The owner's eligible occurrences. With vectors they come from `occurrenceCopies`, brought up
    /// to date by re-reading only the occurrences the store's input log names since the copy was
    /// made; a copy is read in full the first time, after the log was pruned past it, or when most of
    /// it changed. Inside a transaction (rows not committed yet) the kept copy stays as committed and
    /// the up-to-date one is returned as `toKeep`: the caller keeps it once its transaction commits
    /// (`patterns/refresh` does, so that the next refresh reads only what changed since).
    /// `handOver` (the caller keeps `toKeep` once it commits): the kept copy is updated in place and
    /// not kept meanwhile — were the transaction to fail, the next call reads the occurrences in full.
    /// `changed`: when the copy was brought up to date, its position before and the ids logged since.
    func eligibleOccurrences(_ store: RecordStore, owner: String, withVectors: Bool, handOver: Bool = false) throws
        -> (occurrences: [Int64: Occurrence], toKeep: OccurrencesEntry?, changed: (since: Int64, ids: [Int64])?)
    {
        let version = indexVersion, passages = patternConfig.passageOccurrences
        func read(ids: [Int64]? = nil, vectors: Bool) throws -> [StoredOccurrence] {
            try store.eligibleOccurrences(owner: owner, indexVersion: version, includePassages: passages, withVectors: vectors, ids: ids)
        }
        // Inside a transaction a kept copy is brought up to date for this call (the log then holds
        // this transaction's own changes too) but what is kept stays the committed copy.
        let keep = !store.database.inTransaction
        guard withVectors || occurrenceCopies.entry(owner) != nil else {
            var out: [Int64: Occurrence] = [:]
            for r in try read(vectors: false) { out[r.id] = PatternCodec.occurrence(r) }
            return (out, nil, nil)
        }
        // The log position first: rows read after it may be newer, which only means re-reading them.
        let position = try store.inputLogPosition()
        if var copy = occurrenceCopies.take(owner), copy.indexVersion == version.description, copy.includePassages == passages,
           try store.inputLogPrunedUpTo() <= copy.position {
            let committed = keep || handOver ? nil : copy
            defer { if let committed { occurrenceCopies.store(owner, committed) } }
            let changed = try store.loggedOccurrences(owner: owner, after: copy.position, upTo: position)
            if changed.count <= max(64, copy.occurrences.count / 2) {
                if !changed.isEmpty {
                    for id in changed { copy.occurrences[id] = nil }
                    for r in try read(ids: changed, vectors: true) { copy.occurrences[r.id] = PatternCodec.occurrence(r) }
                }
                let since = copy.position
                copy.position = position
                if keep { occurrenceCopies.store(owner, copy) }
                return (copy.occurrences, keep ? nil : copy, (since, changed))
            }
        }
        var out: [Int64: Occurrence] = [:]
        for r in try read(vectors: true) { out[r.id] = PatternCodec.occurrence(r) }
        let entry = OccurrencesEntry(position: position, indexVersion: version.description, includePassages: passages, occurrences: out)
        if keep { occurrenceCopies.store(owner, entry) }
        return (out, keep ? nil : entry, nil)
    }

    /// Writes what an engine call changed: the changed groups, the changed pending marks (all of
    /// them after a rebuild), the watermarks and the counters; `refreshedWith` (a refresh or
    /// rebuild) records the index version the groups now match.
    func savePatternOutcome(_ store: RecordStore, owner: String, _ outcome: RefreshOutcome, refreshedWith: IndexVersion? = nil) throws {
        for id in outcome.changedGroups {
            guard let g = outcome.state.groups[id] else { continue }
            try store.saveGroupRow(try PatternCodec.groupRow(g))
        }
        let pending = outcome.state.pending
        let marks: [(occurrence: Int64, mark: PendingMarkRow?)] = outcome.pendingReplaced
            ? pending.keys.sorted().map { ($0, PatternCodec.markRow($0, pending[$0]!, owner: owner)) }
            : outcome.changedPending.map { id in (id, pending[id].map { PatternCodec.markRow(id, $0, owner: owner) }) }
        try store.savePendingMarks(owner: owner, marks, replacingAll: outcome.pendingReplaced)
        try store.savePatternStateRow(PatternStateRow(
            owner: owner, nextGroupID: outcome.state.nextGroupID, groupsVersion: Int64(outcome.state.groupsVersion),
            pendingChecked: PatternStateJSON.checked(outcome.state.checked), settledAt: outcome.state.settledAt.map { Int64($0) },
            indexVersion: refreshedWith?.description, backgroundLevels: PatternStateJSON.levels(outcome.state.levels)))
    }
}
