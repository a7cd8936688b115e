import Grouping
import KindredCore
import JSONRPC
import LinearAlgebra
import Storage
import KindredProtocol

/// `patterns/refresh` (incremental) and `patterns/rebuild` (explicit full rebuild, corrections kept).
///
/// First the occurrences get ready: records without occurrences contribute their passages (when
/// `patterns.passageOccurrences`), and occurrences waiting for a vector are embedded (when an
/// embedder is available; otherwise they wait). Then, per owner, the engine runs over the state and
/// the eligible occurrences. All of it is one transaction: a cancelled or failed run saves nothing,
/// not even its passage occurrences or vectors.
extension KindredService {
    /// `patterns/refresh` and `patterns/rebuild` as served. With a judge, the work runs after the
    /// write's turn, beside reads and later writes (`answerLater`), and the judge is asked outside
    /// the writer (`askJudgeAhead`): a slow judge stalls no search, status or write. The refresh
    /// then runs on the writer with the verdicts stored meanwhile; a question that only arises there
    /// (a record edited or deleted while the questions were out) waits for the next refresh.
    /// Nil when the answer comes later (`answerLater`).
    func refreshPatternsJudged(owner: String?, _ ctx: RequestContext, rebuild: Bool) throws(ResponseError) -> RefreshSummary? {
        // (In process — the CLI, KindredKit, MCP — nothing else is served meanwhile: run it now.)
        guard let settings = try? JudgeSettings(settings.patterns), settings.mode != .off, ctx.client != nil else {
            return try refreshPatterns(owner: owner, ctx, rebuild: rebuild)
        }
        ctx.answerLater { [self] _ in
            // (Outside the route's own usage tally: this runs after the handler returned.)
            try Route.tallied { () throws(ResponseError) -> JSONValue in
                let ahead = try askJudgeAhead(owner: owner, ctx, rebuild: rebuild, settings: settings)
                return try ResultEncoder.json(refreshPatterns(owner: owner, ctx, rebuild: rebuild, ahead: ahead))
            }
        }
        return nil
    }

    /// What was done before the refresh took the writer: occurrences made ready (committed in a
    /// write of their own) and the judge's questions asked.
    struct JudgedAhead {
        var prepared: (passages: Int, vectors: Int)
        var judged: JudgeTally
    }

    /// Runs the engine over each owner's committed state without the writer, asking the judge every
    /// question it meets and storing each answer in a short write; the outcome is dropped. The
    /// refresh that follows on the writer meets the same questions (the engine is deterministic) and
    /// finds their verdicts stored.
    func askJudgeAhead(owner: String?, _ ctx: RequestContext, rebuild: Bool, settings: JudgeSettings) throws(ResponseError) -> JudgedAhead {
        let prepared = try withPatternWriter(owner: owner ?? "") { store in
            try store.database.transaction { try prepareOccurrences(store, owner: owner, ctx) }
        }
        let owners = try withPatternReader(owner: owner ?? "") { store in try owner.map { [$0] } ?? store.patternOwners() }
        let verdicts = VerdictAccess(
            find: { [self] o, occurrence, revision, group, seed in
                try readers.with { try $0.verdict(owner: o, occurrence: occurrence, recordRevision: revision, group: group, seed: seed) }
            },
            // An answer about an occurrence deleted meanwhile is dropped: its new revision is asked next time.
            keep: { [self] o, v in _ = try writer.with { try $0.storeVerdictIfItsSidesRemain(owner: o, v) } })
        var judged = JudgeTally()
        for o in owners {
            try ctx.checkCancelled()
            let data = try withPatternReader(owner: o) { store in try loadOwnerPatterns(store, owner: o, withVectors: true) }
            let session = judgeSession(settings, verdicts: verdicts, store: nil, owner: o, data: data, ctx)
            try Self.answering(owner: o) {
                // (Nothing kept: the refresh that follows uses the kept entry's cache.)
                var scratch = EngineCache()
                _ = try engineOutcome(state: data.state, data, rebuild: rebuild, cache: &scratch, ctx, judge: { session.judge($0) }) { _ in }
            }
            judged = judged + session.tally
        }
        ctx.progress("report", message: "judge asked", percentage: 10)
        return JudgedAhead(prepared: (prepared.passages, prepared.vectors), judged: judged)
    }

    /// `ahead`: the judge was asked already; here only stored verdicts answer it.
    func refreshPatterns(owner: String?, _ ctx: RequestContext, rebuild: Bool, ahead: JudgedAhead? = nil) throws(ResponseError) -> RefreshSummary {
        let clock = ContinuousClock()
        let started = clock.now
        ctx.progress("begin", title: rebuild ? "Rebuilding patterns" : "Refreshing patterns", percentage: 0)
        var finished = false
        defer { if !finished { ctx.progress("end", message: "stopped") } }

        // One transaction: passage occurrences, occurrence vectors and every owner's groups commit
        // together, or — cancelled, interrupted or failed — not at all.
        let judging = (try? JudgeSettings(settings.patterns)).flatMap { $0.mode == .off ? nil : $0 }
        var judged = JudgeTally()
        let (prepared, owners, (total, tally)) = try withPatternWriter(owner: owner ?? "") { store in
            var kept: [(owner: String, entry: PatternStateEntry, coverage: RecordCoverage, occurrences: OccurrencesEntry?)] = []
            let run = try store.database.transaction { () throws -> ((passages: Int, vectors: Int, waiting: Int), [String], (RefreshStats, RefreshTally)) in
                let prepared = try prepareOccurrences(store, owner: owner, ctx)
                let owners = try owner.map { [$0] } ?? store.patternOwners()
                var total = RefreshStats(), tally = RefreshTally()
                for (i, o) in owners.enumerated() {
                    try ctx.checkCancelled()
                    let (stats, entry, ownerTally, coverage, occurrences): (RefreshStats, PatternStateEntry, RefreshTally, RecordCoverage, OccurrencesEntry?)
                    do {
                        (stats, entry, ownerTally, coverage, occurrences) = try runEngine(store, owner: o, rebuild: rebuild, ctx, judging: judging,
                                                                                          askedAhead: ahead != nil, judged: &judged) { fraction in
                            let done = (Double(i) + fraction) / Double(max(1, owners.count))
                            ctx.progress("report", message: "owner \(i + 1) of \(owners.count)", percentage: 10 + Int(done * 90))
                        }
                    } catch let e as GroupingError {
                        throw ResponseError.grouping(e, owner: o)
                    }
                    kept.append((o, entry, coverage, occurrences))
                    total = total + stats
                    tally = tally + ownerTally
                }
                try ctx.checkCancelled()
                return (prepared, owners, (total, tally))
            }
            // Committed: each saved state is what the store now holds at its revision, and the
            // occurrences read are current at their log position; both are kept for the next refresh.
            for (o, entry, coverage, occurrences) in kept {
                patternStates.store(o, entry)
                recordCoverage.store(o, coverage)
                if let occurrences { occurrenceCopies.store(o, occurrences) }
            }
            try pruneInputLog(store)
            return run
        }
        if let ahead { judged = ahead.judged }
        let elapsed = clock.now - started
        let ms = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        finished = true
        ctx.progress("end", message: "\(tally.recordsGrouped) records grouped; \(total.groupsCreated) groups created, \(total.groupsChanged) changed")
        var result = RefreshSummary()
        result.recordsGrouped = tally.recordsGrouped
        result.activeGroups = tally.activeGroups
        result.groupsCreated = total.groupsCreated
        result.groupsChanged = total.groupsChanged
        result.groupsDormant = total.groupsDormant
        result.groupsCombined = total.groupsCombined
        result.themesCreated = tally.themesCreated
        result.themesChanged = tally.themesChanged
        result.activeThemes = tally.activeThemes
        result.occurrences = tally.occurrences
        result.occurrencesInGroups = tally.inGroups
        result.placed = tally.placed
        result.seeded = tally.seeded
        result.assigned = total.assigned
        result.evicted = total.evicted
        result.pending = tally.pending
        result.owners = owners.count
        result.passageOccurrences = prepared.passages + (ahead?.prepared.passages ?? 0)
        result.vectorsComputed = prepared.vectors + (ahead?.prepared.vectors ?? 0)
        result.waitingForEmbedder = prepared.waiting
        result.durationMs = Int(ms)
        // The categories whose background level in force moved (thresholds follow it), in hundredths.
        result.backgroundLevels = total.levelChanges.map { c in
            .init(owner: c.scope.owner, category: c.scope.category, level: c.to, previous: c.from)
        }
        if let judging {
            result.judge = judging.mode.rawValue
            result.waitingForJudge = total.waitingForJudge
            result.judgeAsked = judged.asked
            result.judgeRemembered = judged.remembered
            result.judgeWanted = judged.wanted
            result.judgeProblem = judged.problem
        }
        return result
    }

    /// One owner, inside the refresh's transaction: load, run the engine (cancellable), save what
    /// changed. Returns the stats and the state to keep once the transaction commits.
    /// `askedAhead`: the judge was asked before (`askJudgeAhead`); only stored verdicts answer here.
    func runEngine(_ store: RecordStore, owner: String, rebuild: Bool, _ ctx: RequestContext, judging: JudgeSettings? = nil,
                   askedAhead: Bool = false, judged: inout JudgeTally,
                   progress: (Double) -> Void) throws -> (RefreshStats, PatternStateEntry, RefreshTally, RecordCoverage, OccurrencesEntry?) {
        let revisionBefore = try store.patternRevision(owner: owner)
        var data = try loadOwnerPatterns(store, owner: owner, withVectors: true, forUpdate: true)
        let version = indexVersion
        // A snapshot: it shares the engine's table until the engine changes it, then keeps the
        // groups as they were (a changed group's storage is copied, the others are shared).
        let groupsBefore = data.state.groups
        let session = judging.map {
            judgeSession($0, verdicts: .on(store), store: store, owner: owner, data: data, ctx, storedOnly: askedAhead)
        }
        let judge: Judge? = session.map { s in { q in s.judge(q) } }
        defer { if let session { judged = judged + session.tally } }
        // Handed over, not copied: the refresh updates the only copy in place.
        let state = data.state
        data.state = PatternState()
        var cache = data.engineCache
        data.engineCache = EngineCache()
        let outcome = try engineOutcome(state: state, data, rebuild: rebuild, cache: &cache, ctx, judge: judge, progress: progress)
        try ctx.checkCancelled()
        try savePatternOutcome(store, owner: owner, outcome, refreshedWith: version)
        let revision = try store.patternRevision(owner: owner)
        // The state the store holds at `revision` once committed keeps what the engine derived.
        // (Saving drops the label description of a group whose label was cleared.)
        var descriptions = data.labelDescriptions
        for id in outcome.changedGroups where outcome.state.groups[id]?.label == nil { descriptions[id] = nil }
        // The kept coverage counts the state loaded only if it was kept at that state's revision.
        var coverage = recordCoverage.take(owner).flatMap { $0.revision == revisionBefore ? $0 : nil } ?? RecordCoverage()
        var tally = RefreshTally(before: groupsBefore, after: outcome.state, changed: outcome.changedGroups,
                                 occurrences: data.occurrences, coverage: &coverage)
        // Themes follow the groups, in the same transaction (`ThemePersistence.swift`), when switched on
        // (`patterns.themes`); otherwise the stored themes stay as they are.
        if settings.patterns.themes {
            let themes = try refreshThemes(store, owner: owner, groups: outcome.state, occurrences: data.occurrences)
            (tally.themesCreated, tally.themesChanged, tally.activeThemes) = (themes.created, themes.changed, themes.active)
        }
        coverage.revision = revision
        return (outcome.stats, PatternStateEntry(revision: revision, state: outcome.state, engineCache: cache, labelDescriptions: descriptions,
                                                 indexVersion: version.description, occurrencesAt: data.occurrencesToKeep?.position),
                tally, coverage, data.occurrencesToKeep)
    }

    /// The engine over one owner's loaded patterns: a rebuild when asked, or when the state was
    /// refreshed with another model's vectors (same occurrence ids, new vectors: representatives and
    /// centroids are stale, so the groups are regrouped, corrections and ids kept); else incremental.
    /// `cache`: what the engine derived from `state` when it returned it; left for the state returned.
    func engineOutcome(state: consuming PatternState, _ data: OwnerPatterns, rebuild: Bool, cache: inout EngineCache, _ ctx: RequestContext,
                       judge: Judge?, progress: (Double) -> Void) throws -> RefreshOutcome {
        let constraints = Constraints.derive(from: data.corrections, occurrences: data.occurrences)
        let config = patternConfig.grouping
        let rebuild = rebuild || data.stateIndexVersion.map { $0 != indexVersion.description } ?? false
        if rebuild { cache.reset() }
        return rebuild
            ? try PatternEngine.rebuild(state: state, occurrences: data.occurrences, constraints: constraints, config: config,
                                        isCancelled: { ctx.isCancelled }, progress: progress, judge: judge)
            : try PatternEngine.refresh(state: consume state, occurrences: data.occurrences, changes: data.changesSinceState,
                                        constraints: constraints, config: config,
                                        cache: &cache, isCancelled: { ctx.isCancelled }, progress: progress, judge: judge)
    }

    /// The judge of one owner's refresh: the client (when it declared `capabilities.judge`) or the
    /// configured remote model. `storedOnly`: the questions were asked already, so only stored
    /// verdicts answer (a question not met then waits for the next refresh). `store`: the
    /// transaction remote usage is counted in (nil: a write of its own).
    func judgeSession(_ settings: JudgeSettings, verdicts: VerdictAccess, store: RecordStore?, owner: String, data: OwnerPatterns,
                      _ ctx: RequestContext, storedOnly: Bool = false) -> JudgeSession {
        var asker: (any JudgeAsker)?
        var unavailable: String?
        switch (settings.mode, storedOnly) {
        case (_, true):
            break
        case (.off, _):
            unavailable = "patterns.judge is off"
        case (.client, _):
            if let client = ctx.client, client.clientCapabilities?["judge"]?.boolValue == true {
                asker = ClientJudge(client: client, timeout: settings.timeout, isCancelled: { ctx.isCancelled })
            } else {
                unavailable = "patterns.judge is client, but the client did not declare capabilities.judge in initialize"
            }
        case (.openai, _):
            (asker, unavailable) = chatJudge(settings, owner: owner, store: store, ctx)
        }
        return JudgeSession(owner: owner, verdicts: verdicts, occurrences: data.occurrences, corrections: data.corrections,
                            instruction: settings.instruction, asker: asker, unavailable: unavailable, budget: settings.budget,
                            log: { ctx.log(.warning, $0) })
    }

    /// Keeps the input log short: once it holds more than `inputLogKeep` positions past the last
    /// pruning, the older half goes (a copy of occurrences older than that is then read in full).
    func pruneInputLog(_ store: RecordStore) throws {
        let position = try store.inputLogPosition(), pruned = try store.inputLogPrunedUpTo()
        if position - pruned > Self.inputLogKeep { try store.pruneInputLog(upTo: position - Self.inputLogKeep / 2) }
    }

    static let inputLogKeep: Int64 = 200_000

    /// Makes passage occurrences and computes waiting occurrence vectors. Returns what it did and
    /// how many occurrences still wait for an embedder.
    func prepareOccurrences(_ store: RecordStore, owner: String?, _ ctx: RequestContext) throws -> (passages: Int, vectors: Int, waiting: Int) {
        let version = indexVersion
        var passages = 0
        if patternConfig.passageOccurrences {
            let maxChars = settings.passages.maxChars
            for r in try store.recordsWithoutOccurrences(owner: owner) {
                try ctx.checkCancelled()
                let parts = Passages.split(r.text, maxScalars: maxChars).filter { !$0.text.isEmpty }
                guard !parts.isEmpty else { continue }
                // A one-passage record can use its own vector; the others wait for the embedder.
                let own = parts.count == 1 ? try store.vector(rowid: r.rowid, indexVersion: version).flatMap(Vectors.unit) : nil
                let rows = parts.map {
                    NewOccurrence(source: "passage", category: "passage", description: $0.text, excerpt: $0.text,
                                  start: $0.start, end: $0.end, tags: [], vector: own)
                }
                passages += try store.insertOccurrences(owner: r.owner, record: r.rowid, recordID: r.id, revision: r.revision,
                                                        rows, indexVersion: version).count
            }
        }
        ctx.progress("report", message: "occurrences ready", percentage: 5)
        var computed = 0
        if embedder != nil {
            let batch = max(1, settings.embedder.batchSize)
            var after: Int64 = 0
            var limited = Set<String>()
            batches: while true {
                try ctx.checkCancelled()
                let fetched = try store.occurrencesWaitingForVectors(owner: owner, indexVersion: version, limit: batch, after: after)
                guard let last = fetched.last else { break }
                after = last.id
                // One call per owner, so that each owner's use is counted and limited apart.
                for who in Self.ownersInOrder(fetched.map(\.owner)) where !limited.contains(who) {
                    let waiting = fetched.filter { $0.owner == who }
                    let vectors: [[Float]]
                    do {
                        vectors = try embedTexts(waiting.map(\.text), as: .document, owner: who, store: store, isCancelled: { ctx.isCancelled },
                                                 log: { ctx.log(.warning, $0) })
                    } catch let e as DailyLimitReached {
                        ctx.log(.warning, "occurrence vectors wait: \(e)")
                        limited.insert(who)
                        continue
                    } catch {
                        try ctx.checkCancelled()
                        ctx.log(.warning, "occurrence vectors wait: embedder failed: \(error)")
                        break batches
                    }
                    guard vectors.count == waiting.count else { break batches }
                    let items = zip(waiting, vectors).compactMap { w, v in Vectors.unit(v).map { (id: w.id, vector: $0) } }
                    // Read again: the first answer of a remote provider may have fixed the dimension.
                    try store.storeOccurrenceVectors(items, indexVersion: indexVersion)
                    computed += items.count
                }
            }
        }
        ctx.progress("report", message: "occurrence vectors ready", percentage: 10)
        let stillWaiting = try store.occurrencesWaitingForVectors(owner: owner, indexVersion: indexVersion, limit: Int.max).count
        return (passages, computed, stillWaiting)
    }
}
