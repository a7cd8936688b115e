import Grouping
import LinearAlgebra

/// The rules of `Sources/Grouping/README.md` written out as directly as they read, with no cache,
/// certificate, digest, matrix or kept value: every decision is computed from the members again.
/// It is the specification the real engine is checked against (`EquivalenceTests`): same groups,
/// same ids, same members, versions and pending marks after every call.
struct ReferenceEngine {
    struct RGroup: Equatable {
        let id: Int64
        let scope: Scope
        var members: [Int64: MembershipSource] = [:]
        var medoid: Int64?
        var exemplars: [Int64] = []
        var active = false
        var label: String?
        var labelVersion: Int?
        var version = 0
        var changedAt = 0
        var mergedInto: Int64?
        var sweptMembers: Int?
        var ids: [Int64] { members.keys.sorted() }
    }

    /// A pending occurrence: the version it was evaluated against (nil: fresh), and for a fresh one
    /// the version at which assignment last looked at it in the current pass.
    struct Mark: Equatable {
        var evaluatedAt: Int?
        var lookedAt: Int?
    }

    var groups: [Int64: RGroup] = [:]
    var pending: [Int64: Mark] = [:]
    var nextID: Int64 = 1
    var version = 0
    var occurrences: [Int64: Occurrence] = [:]
    var constraints = Constraints()
    /// Per scope, the background level in force (hundredths).
    var levels: [Scope: Int] = [:]
    /// The thresholds in force: `base`, adapted to the background of the scope being run.
    var config: GroupingConfig
    let base: GroupingConfig
    private var recentlyEvicted: Set<Int64> = []

    init(config: GroupingConfig) { self.config = config; base = config }

    // MARK: Calls

    /// `PatternEngine.refresh`.
    mutating func refresh(_ occ: [Int64: Occurrence], _ c: Constraints) {
        occurrences = occ
        constraints = c
        let gone = Set(groups.values.flatMap(\.ids) + pending.keys).filter { occ[$0] == nil }
        if !gone.isEmpty { remove(gone) }
        let known = Set(groups.values.flatMap(\.ids) + pending.keys)
        for id in occ.keys where !known.contains(id) { pending[id] = Mark() }
        for scope in scopesWithWork() { run(scope) }
    }

    /// `PatternEngine.removeOccurrences`.
    mutating func removeOccurrences(_ ids: Set<Int64>, _ occ: [Int64: Occurrence]) {
        occurrences = occ
        for id in ids { occurrences[id] = nil }
        remove(ids)
    }

    /// `PatternEngine.apply` of a prepared correction (`c` already includes it).
    mutating func apply(_ correction: Correction, _ occ: [Int64: Occurrence], _ c: Constraints) {
        occurrences = occ
        constraints = c
        switch correction.kind {
        case let .dismiss(o, g):
            detach(o, from: g)
            pending[o] = Mark()
            settle(g)
        case let .exclude(o, _):
            // Every occurrence of the record leaves its group.
            let r = record(o)
            var left = Set<Int64>()
            for (gid, g) in groups.sorted(by: { $0.key < $1.key }) {
                for id in g.ids where record(id) == r {
                    detach(id, from: gid)
                    pending[id] = Mark()
                    left.insert(gid)
                }
            }
            for gid in left.sorted() { settle(gid) }
        case let .split(g, moveOut):
            let out = Set(moveOut).filter { groups[g]!.members[$0] != nil }.sorted()
            for o in out { detach(o, from: g) }
            var together: [Int64] = [], records = Set<String>()
            for o in out where !constraints.conflicts(record(o), records) {
                together.append(o)
                records.insert(record(o))
            }
            if records.count < 2 { together = [] } else {
                let ng = newGroup(groups[g]!.scope)
                for o in together { attach(o, to: ng, .moved) }
                settle(ng)
            }
            for o in out where !together.contains(o) { pending[o] = Mark() }
            settle(g)
        case let .merge(into, from):
            for o in groups[from]!.ids {
                detach(o, from: from)
                if recordsOf(into).contains(record(o)) { pending[o] = Mark() } else { attach(o, to: into, .moved) }
            }
            settle(from)
            settle(into)
        case let .pin(o, g):
            if groups[g]!.members[o] != nil {
                groups[g]!.members[o] = .pinned
            } else {
                if let old = groupOf(o) { detach(o, from: old); settle(old) }
                attach(o, to: g, .pinned)
                settle(g)
            }
        }
    }

    /// `PatternEngine.undo` (`c`: the constraints still in force, without this correction).
    mutating func undo(_ correction: Correction, _ occ: [Int64: Occurrence], _ c: Constraints) {
        occurrences = occ
        constraints = c
        switch correction.kind {
        case let .dismiss(o, _), let .exclude(o, _):
            if pending[o] != nil { pending[o] = Mark() }
        case let .split(g, moveOut):
            moveBack(moveOut.filter { o in groupOf(o).map { $0 != g && groups[$0]!.members[o] == .moved } ?? false }, to: g)
        case let .merge(into, from):
            moveBack(correction.occurrences.filter { groups[into]!.members[$0] == .moved }, to: from)
        case let .pin(o, g):
            if groups[g]!.members[o] == .pinned {
                groups[g]!.members[o] = .automatic(score: repScore(o, g))
                touch(g)
                settle(g)
            }
        }
    }

    /// `PatternEngine.setLabel` (refused unless `version` is current).
    mutating func setLabel(_ gid: Int64, version v: Int, _ label: String?) -> Bool {
        guard groups[gid]?.version == v else { return false }
        groups[gid]!.label = label
        groups[gid]!.labelVersion = label == nil ? nil : v
        return true
    }

    // MARK: Refresh

    /// Scopes with a pending occurrence that is fresh or evaluated before its scope's last change.
    func scopesWithWork() -> [Scope] {
        Set(pending.keys.filter { hasWork($0) }.map { occurrences[$0]!.scope }).sorted()
    }

    func hasWork(_ id: Int64) -> Bool {
        guard let at = pending[id]!.evaluatedAt else { return true }
        return at < lastChange(occurrences[id]!.scope)
    }

    func lastChange(_ scope: Scope) -> Int { groups.values.filter { $0.scope == scope }.map(\.changedAt).max() ?? 0 }

    func pendingIn(_ scope: Scope) -> [Int64] { pending.keys.filter { occurrences[$0]!.scope == scope }.sorted() }

    /// Assignment and seeding, until a pass changes nothing (at most `maxPasses`); then (or in the
    /// last pass) a combination sweep, and when that changes nothing either, loose seeds from the
    /// occurrences that were fresh when the run began and are still pending; again until a pass
    /// changes nothing at all. Occurrences evicted during a pass wait for the next one; combination
    /// looks at the groups changed since the previous sweep began.
    mutating func run(_ scope: Scope) {
        fixLevel(scope)
        config = base.adapted(toBackground: level(scope))
        defer { config = base }
        var since = version
        let arrived = pendingIn(scope).filter { pending[$0]!.evaluatedAt == nil }
        let passes = max(1, config.maxPasses)
        for pass in 0..<passes {
            recentlyEvicted = []
            let work = pendingIn(scope).filter { hasWork($0) }
            if work.isEmpty && lastChange(scope) <= since { return }
            var changed = assign(work, scope)
            let fresh = pendingIn(scope).filter { pending[$0]!.evaluatedAt == nil && !recentlyEvicted.contains($0) }
            if !fresh.isEmpty { changed = seed(fresh, scope) || changed }
            if changed && pass < passes - 1 { continue }
            let sweep = version
            changed = combine(scope, since: since) || changed
            since = sweep
            if !changed && config.looseSeedRecords > 0 && config.tauLooseSeed <= 1 {
                let late = arrived.filter { pending[$0] != nil }
                if !late.isEmpty { changed = seed(late, scope, loose: true) }
            }
            if !changed { return }
        }
    }

    /// The level in force in `scope`: the one kept, unless the background measured now is more than
    /// `backgroundMargin` from it or none is kept; a scope too small to measure keeps what it has.
    func level(_ scope: Scope) -> Int? {
        guard let measured = background(scope) else { return levels[scope] }
        if let kept = levels[scope], abs(measured - kept) <= Int((Double(base.backgroundMargin) * 100).rounded()) { return kept }
        return measured
    }

    /// Keeps `level(scope)` as the level in force (asked where a run starts and where a group settles).
    mutating func fixLevel(_ scope: Scope) {
        if let l = level(scope) { levels[scope] = l }
    }

    /// Mean cosine over all pairs of the scope's first `backgroundSample` occurrences by id, in
    /// hundredths; nil below `backgroundMinimum` of them.
    func background(_ scope: Scope) -> Int? {
        guard base.calibratedBackground != nil else { return nil }
        let ids = occurrences.keys.filter { occurrences[$0]!.scope == scope }.sorted().prefix(max(2, base.backgroundSample))
        guard ids.count >= base.backgroundMinimum else { return nil }
        return GroupingConfig.backgroundLevel(ids.map { occurrences[$0]!.vector })
    }

    /// The active groups of the scope changed after `since` wait. From the lowest waiting id, best
    /// partners are followed while the link share strictly rises; the last two combine (the older
    /// id survives and waits again, the younger stops waiting). A waiting group without a partner
    /// stops waiting. Until none waits. N (for the modularity gain): the members of the scope's
    /// groups when the sweep begins.
    mutating func combine(_ scope: Scope, since: Int) -> Bool {
        let grouped = groups.values.filter { $0.scope == scope }.reduce(0) { $0 + $1.members.count }
        guard grouped <= config.linkScopeLimit else { return combineBySimilarity(scope, since: since) }
        guard config.combineLink <= 1, config.linkNeighbours > 0, config.linkRows > 0 else { return false }
        // New to sweeps, or its member count changed by a quarter since one last looked at it.
        func grewEnough(_ g: RGroup) -> Bool { g.sweptMembers.map { 4 * abs(g.members.count - $0) >= $0 } ?? true }
        var waiting = Set(groups.values.filter { $0.scope == scope && $0.changedAt > since && grewEnough($0) }.map(\.id)), changed = false
        while let x = waiting.min() {
            guard groups[x]!.active, var (b, s) = partner(x, grouped) else {
                waiting.remove(x)
                groups[x]!.sweptMembers = groups[x]!.members.count
                continue
            }
            var a = x
            while let (c, t) = partner(b, grouped), t > s { (a, b, s) = (b, c, t) }
            absorb(max(a, b), into: min(a, b))
            waiting.remove(max(a, b))
            waiting.insert(min(a, b))
            changed = true
        }
        return changed
    }

    /// The top-K groups with a representative by centroid similarity to `x` (ties to the lowest id).
    func candidates(_ x: Int64) -> [Int64] {
        let g = groups[x]!
        let ux = Vectors.normalized(sum(g.ids))
        var ranked: [(id: Int64, q: Int)] = groups.values.filter { $0.scope == g.scope && $0.medoid != nil && $0.id != x }
            .map { ($0.id, q(Vectors.dot(ux, Vectors.normalized(sum($0.ids))))) }
        ranked.sort { $0.q != $1.q ? $0.q > $1.q : $0.id < $1.id }
        return ranked.prefix(config.candidateK).map(\.id)
    }

    /// Of group `s`: its members (at most `linkRows` are asked for) each take their k nearest among its
    /// members and, of each candidate's `linkRows` lowest ids, the `linkPool` nearest unit(s) (quantised
    /// similarity, ties to the lowest id; a row never counts itself); how many are in `l`.
    func links(_ s: Int64, in l: Int64) -> Int {
        let us = Vectors.normalized(sum(groups[s]!.ids))
        var pool = groups[s]!.ids.map { (o: $0, g: s) }
        for h in candidates(s) {
            let nearest = groups[h]!.ids.prefix(config.linkRows).map { (o: $0, s: q(Vectors.dot(us, occurrences[$0]!.vector))) }
                .sorted { $0.s != $1.s ? $0.s > $1.s : $0.o < $1.o }.prefix(config.linkPool)
            pool += nearest.map { (o: $0.o, g: h) }
        }
        var count = 0
        for a in groups[s]!.ids.prefix(config.linkRows) {
            let near = pool.filter { $0.o != a }
                .map { (o: $0.o, g: $0.g, s: q(Vectors.dot(occurrences[a]!.vector, occurrences[$0.o]!.vector))) }
                .sorted { $0.s != $1.s ? $0.s > $1.s : $0.o < $1.o }
                .prefix(config.linkNeighbours)
            count += near.filter { $0.g == l }.count
        }
        return count
    }

    /// Among the active candidates of `x`, the one that qualifies with it (of the smaller group S,
    /// the younger on a tie, both of at most `linkRows` members, the share of its rows' neighbours in the other, L, reaches
    /// `combineLink` and exceeds γ · |L| / 2N; L is one of S's candidates) and may combine, with the
    /// highest quantised share (ties to the lowest id).
    func partner(_ x: Int64, _ grouped: Int) -> (Int64, Int)? {
        guard groups[x]!.active else { return nil }
        var best: (id: Int64, score: Int)?
        for y in candidates(x).sorted() where groups[y]!.active {
            let nx = groups[x]!.members.count, ny = groups[y]!.members.count
            let (s, l) = nx < ny || (nx == ny && x > y) ? (x, y) : (y, x)
            let rows = groups[s]!.members.count
            guard rows > 0, groups[l]!.members.count <= config.linkRows, candidates(s).contains(l) else { continue }
            let c = links(s, in: l), slots = config.linkNeighbours * rows
            let share = q(Float(c) / Float(slots))
            guard share >= q(config.combineLink),
                  Double(c) * 2 * Double(grouped) > Double(config.combineResolution) * Double(groups[l]!.members.count) * Double(slots),
                  mayCombine(min(x, y), max(x, y)) else { continue }
            if best == nil || share > best!.score { best = (y, share) }
        }
        return best.map { ($0.id, $0.score) }
    }

    /// No cannot-link across; the younger shaped by no user.
    func mayCombine(_ old: Int64, _ young: Int64) -> Bool {
        let oldRecords = recordsOf(old)
        return representativeKind(old) == representativeKind(young) && !recordsOf(young).contains(where: { constraints.conflicts($0, oldRecords) })
            && !groups[young]!.members.values.contains(where: \.isUserDecided)
    }

    /// The younger's members move into the older (one whose record the older holds goes to
    /// pending, evaluated); every automatic member of the older is then `.combined`.
    mutating func absorb(_ young: Int64, into old: Int64, keepPlaces: Bool = true) {
        var records = recordsOf(old), moved: [Int64] = []
        for o in groups[young]!.ids {
            detach(o, from: young)
            if records.contains(record(o)) { pending[o] = Mark(evaluatedAt: version); continue }
            attach(o, to: old, keepPlaces ? .combined : .automatic(score: 0))
            records.insert(record(o))
            moved.append(o)
        }
        if keepPlaces { for (o, s) in groups[old]!.members where s.staysChecked { groups[old]!.members[o] = .combined } }
        settle(young)
        groups[young]!.mergedInto = old
        settle(old)
        // Combined by similarity: the moved members are automatic, scored against the new medoid.
        if !keepPlaces { for o in moved { groups[old]!.members[o] = .automatic(score: repScore(o, old)) } }
    }

    /// Above `linkScopeLimit` grouped occurrences: the active groups of the scope changed after `since` wait. From the lowest waiting id, best
    /// partners are followed while the mean pair similarity strictly rises; the last two combine
    /// (the older id survives and waits again, the younger stops waiting). A waiting group without
    /// a partner stops waiting. Until none waits.
    mutating func combineBySimilarity(_ scope: Scope, since: Int) -> Bool {
        guard config.tauCombine <= 1 else { return false }
        var waiting = Set(groups.values.filter { $0.scope == scope && $0.changedAt > since }.map(\.id)), changed = false
        while let x = waiting.min() {
            guard groups[x]!.active, var (b, s) = similarityPartner(x) else { waiting.remove(x); continue }
            var a = x
            while let (c, t) = similarityPartner(b), t > s { (a, b, s) = (b, c, t) }
            absorb(max(a, b), into: min(a, b), keepPlaces: false)
            waiting.remove(max(a, b))
            waiting.insert(min(a, b))
            changed = true
        }
        return changed
    }

    /// Among the top-K groups with a representative by centroid similarity, the active one that
    /// qualifies with `x` at the highest mean pair similarity (ties to the lowest id).
    func similarityPartner(_ x: Int64) -> (Int64, Int)? {
        let g = groups[x]!
        guard g.active else { return nil }
        let ux = Vectors.normalized(sum(g.ids))
        var ranked: [(id: Int64, q: Int)] = groups.values.filter { $0.scope == g.scope && $0.medoid != nil && $0.id != x }
            .map { ($0.id, q(Vectors.dot(ux, Vectors.normalized(sum($0.ids))))) }
        ranked.sort { $0.q != $1.q ? $0.q > $1.q : $0.id < $1.id }
        var best: (id: Int64, score: Int)?
        for y in ranked.prefix(config.candidateK).map(\.id).sorted() where groups[y]!.active {
            guard let s = combinable(min(x, y), max(x, y)) else { continue }
            if best == nil || s > best!.score { best = (y, s) }
        }
        return best.map { ($0.id, $0.score) }
    }

    /// Mean similarity over all member pairs ≥ τ_combine (unless one group's members are all its examples); every example of each accepted by the
    /// other's medoid and examples (τ_rep, τ_sup); no cannot-link across; the younger shaped by no
    /// user; no automatic member below τ_stay of the combined medoid. Returns the quantised mean.
    func combinable(_ old: Int64, _ young: Int64) -> Int? {
        let link = q(Vectors.dot(sum(groups[old]!.ids), sum(groups[young]!.ids)) / Float(groups[old]!.members.count * groups[young]!.members.count))
        // A group whose members are all its examples: support alone decides.
        let small = [old, young].contains { groups[$0]!.exemplars.count == groups[$0]!.members.count }
        guard link >= q(config.tauCombine) || small, supports(old, young), supports(young, old) else { return nil }
        let oldRecords = recordsOf(old)
        guard representativeKind(old) == representativeKind(young), !recordsOf(young).contains(where: { constraints.conflicts($0, oldRecords) }),
              !groups[young]!.members.values.contains(where: \.isUserDecided) else { return nil }
        let ids = (groups[old]!.ids + groups[young]!.ids.filter { !oldRecords.contains(record($0)) }).sorted()
        let s = sum(ids)
        var medoid = ids[0]
        for id in ids where q(Vectors.dot(occurrences[id]!.vector, s)) > q(Vectors.dot(occurrences[medoid]!.vector, s)) { medoid = id }
        for id in ids where groups[old]!.members[id]?.isUserDecided != true
            && q(Vectors.dot(occurrences[id]!.vector, occurrences[medoid]!.vector)) < q(config.tauStay) { return nil }
        return link
    }

    /// Every example of `y` passes `x`'s join rule (s_rep ≥ τ_rep, s_sup ≥ τ_sup).
    func supports(_ x: Int64, _ y: Int64) -> Bool {
        let gx = groups[x]!, xRecords = recordsOf(x)
        for e in groups[y]!.exemplars {
            let v = occurrences[e]!.vector
            guard q(Vectors.dot(v, occurrences[gx.medoid!]!.vector)) >= q(config.tauRep) else { return false }
            var sims: [Float] = gx.exemplars.filter { record($0) != record(e) }.map { Vectors.dot(v, occurrences[$0]!.vector) }
            sims.sort(by: >)
            let m = min(config.exemplars, xRecords.count, sims.count)
            guard m > 0, q(sims.prefix(m).reduce(0, +) / Float(m)) >= q(config.tauSup) else { return false }
        }
        return !groups[y]!.exemplars.isEmpty
    }

    /// Each occurrence of `work` in order joins the best eligible candidate group, or stays pending.
    mutating func assign(_ work: [Int64], _ scope: Scope) -> Bool {
        guard groups.values.contains(where: { $0.scope == scope && $0.medoid != nil }) else { return false }
        var changed = false
        for o in work where pending[o] != nil {
            let proposed = candidates(o, scope)
            var decision = decide(o, candidates: proposed)
            if let (g, _) = decision, !keepsMembers(o, joining: g) { decision = nil }
            // A candidate whose representative and examples share no specific element with `o` is
            // passed over for the next best (without the stay check: a judge's order).
            var left = proposed
            while let (g, _) = decision, !sharesElement(o, group: g) {
                left.removeAll { $0 == g }
                decision = decide(o, candidates: left)
            }
            if let (g, score) = decision {
                attach(o, to: g, .automatic(score: score))
                settle(g)
                changed = true
            } else {
                if pending[o]!.evaluatedAt != nil { pending[o]!.evaluatedAt = version }
                pending[o]!.lookedAt = version
            }
        }
        return changed
    }

    /// Top-K groups with a representative by x · unit(Σ members) (ties to the lowest id), plus
    /// every such group sharing a tag with x.
    func candidates(_ o: Int64, _ scope: Scope) -> [Int64] {
        let x = occurrences[o]!
        let live = groups.values.filter { $0.scope == scope && $0.medoid != nil }
        var ranked: [(id: Int64, q: Int)] = live.map { g in (g.id, q(Vectors.dot(x.vector, Vectors.normalized(sum(g.ids))))) }
        ranked.sort { $0.q != $1.q ? $0.q > $1.q : $0.id < $1.id }
        var out = Set(ranked.prefix(config.candidateK).map(\.id))
        for g in live where g.ids.contains(where: { occurrences[$0]!.tags.contains(where: x.tags.contains) }) { out.insert(g.id) }
        return out.sorted()
    }

    /// The rule: s_rep = x · medoid ≥ τ_rep; s_sup = mean of the top m similarities to exemplars of
    /// other records ≥ τ_sup; x's record not in the group and cannot-linked to none of its records.
    /// Best by ½(s_rep + s_sup) quantised, ties to the lowest id; it must beat the runner-up by δ.
    func decide(_ o: Int64, candidates: [Int64]) -> (Int64, Int)? {
        let x = occurrences[o]!
        var eligible: [(id: Int64, score: Int)] = []
        // A record a person dismissed from a group needs clearer evidence.
        let margin = constraints.dismissed.contains(x.recordID) ? config.dismissedMargin : 0
        for gid in candidates {
            let g = groups[gid]!, records = recordsOf(gid)
            guard let m = g.medoid, kind(m) == x.recordKind, !records.contains(x.recordID), !constraints.conflicts(x.recordID, records)
            else { continue }
            let sRep = Vectors.dot(x.vector, occurrences[m]!.vector)
            guard q(sRep) >= q(config.tauRep + margin) else { continue }
            var sims: [Float] = g.exemplars.filter { record($0) != x.recordID }.map { Vectors.dot(x.vector, occurrences[$0]!.vector) }
            sims.sort(by: >)
            let k = min(config.exemplars, records.count, sims.count)
            guard k > 0 else { continue }
            let sSup = sims.prefix(k).reduce(0, +) / Float(k)
            guard q(sSup) >= q(config.tauSup + margin) else { continue }
            eligible.append((gid, q((sRep + sSup) / 2)))
        }
        eligible.sort { $0.score != $1.score ? $0.score > $1.score : $0.id < $1.id }
        guard let best = eligible.first else { return nil }
        if eligible.count > 1, best.score - eligible[1].score < q(config.delta) { return nil }
        return best
    }

    /// A join never pushes a member out: with `o` added, `o` and every automatic member are at or
    /// above τ_stay of the medoid the group would then have.
    func keepsMembers(_ o: Int64, joining gid: Int64) -> Bool {
        let ids = (groups[gid]!.ids + [o]).sorted()
        let s = sum(ids)
        var medoid = ids[0]
        for id in ids where q(Vectors.dot(occurrences[id]!.vector, s)) > q(Vectors.dot(occurrences[medoid]!.vector, s)) { medoid = id }
        let stay = q(base.adapted(toBackground: level(groups[gid]!.scope)).tauStay)
        let mv = occurrences[medoid]!.vector
        return ids.allSatisfy { id in
            (id != o && !groups[gid]!.members[id]!.staysChecked) || q(Vectors.dot(occurrences[id]!.vector, mv)) >= stay
        }
    }

    /// From each fresh occurrence in order, a clique over the scope's pending pool: neighbours
    /// ≥ τ_seed in order (−similarity, id), each ≥ τ_seed to every member, from a new record, not
    /// cannot-linked. Two or more records make a group with the next id. Loose: τ_looseSeed for
    /// τ_seed, `looseSeedRecords` records needed, and the marks of those that seed nothing stay.
    mutating func seed(_ fresh: [Int64], _ scope: Scope, loose: Bool = false) -> Bool {
        let pool = pendingIn(scope), before = version
        let tau = q(loose ? config.tauLooseSeed : config.tauSeed), least = loose ? max(2, config.looseSeedRecords) : 2
        func evaluated(_ o: Int64) { if !loose { pending[o]!.evaluatedAt = min(before, pending[o]!.lookedAt ?? before) } }
        guard pool.count >= 2 else {
            for o in fresh where pending[o] != nil { evaluated(o) }
            return false
        }
        var taken = Set<Int64>(), changed = false
        for o in fresh where pending[o] != nil {
            let x = occurrences[o]!
            var neighbours: [(id: Int64, q: Int)] = []
            for p in pool where p != o && !taken.contains(p) && record(p) != x.recordID {
                let s = q(Vectors.dot(x.vector, occurrences[p]!.vector))
                if s >= tau { neighbours.append((p, s)) }
            }
            neighbours.sort { $0.q != $1.q ? $0.q > $1.q : $0.id < $1.id }
            var clique = [o], records: Set<String> = [x.recordID]
            for (p, _) in neighbours where kind(p) == x.recordKind && !records.contains(record(p)) && !constraints.conflicts(record(p), records)
                && clique.allSatisfy({ q(Vectors.dot(occurrences[$0]!.vector, occurrences[p]!.vector)) >= tau }) {
                clique.append(p)
                records.insert(record(p))
            }
            guard records.count >= least else { evaluated(o); continue }
            if evidenceTable(scope) != nil {
                // The clique's medoid founds the group with the members that share an element with it.
                let rep = medoid(clique)
                let accepted = clique.filter { m in
                    m == rep || sharesElement(m, representative: rep, examples: clique.filter { $0 != m && $0 != rep }.sorted())
                }
                clique = accepted.count > 1 ? accepted : []
                guard Set(clique.map(record)).count >= least else { evaluated(o); continue }
            }
            taken.formUnion(clique)
            let g = newGroup(scope)
            for m in clique.sorted() {
                let others = clique.filter { $0 != m }
                let sims: [Float] = others.map { Vectors.dot(occurrences[$0]!.vector, occurrences[m]!.vector) }
                let mean = sims.reduce(0, +) / Float(others.count)
                attach(m, to: g, .automatic(score: q(mean)))
            }
            settle(g)
            changed = true
        }
        return changed
    }

    // MARK: Shared elements (SharedElement.swift)

    /// The scope's holder table when the rule applies (`evidenceMaxShare` > 0, at least
    /// `evidenceMinimum` occurrences): terms of its first `backgroundSample` occurrences by id.
    func evidenceTable(_ scope: Scope) -> SharedElementRule.Table? {
        guard base.evidenceMaxShare > 0 else { return nil }
        let ids = occurrences.keys.filter { occurrences[$0]!.scope == scope }.sorted()
        guard ids.count >= base.evidenceMinimum else { return nil }
        return SharedElementRule.table(ids.prefix(max(2, base.backgroundSample)).map { SharedElementRule.terms(of: occurrences[$0]!) })
    }

    func sharesElement(_ o: Int64, group gid: Int64) -> Bool {
        let g = groups[gid]!
        return sharesElement(o, representative: g.medoid!, examples: g.exemplars.filter { $0 != o && $0 != g.medoid! }.sorted())
    }

    /// `o` is at least `evidenceAbove` similar to the representative, has fewer than
    /// `evidenceMinTerms` terms, or shares a specific term
    /// with it and with `evidenceExamples` of the examples of other records.
    func sharesElement(_ o: Int64, representative rep: Int64, examples: [Int64]) -> Bool {
        let x = occurrences[o]!
        guard let table = evidenceTable(x.scope) else { return true }
        if config.evidenceAbove <= 1, q(Vectors.dot(x.vector, occurrences[rep]!.vector)) >= q(config.evidenceAbove) { return true }
        if SharedElementRule.terms(of: x).count < config.evidenceMinTerms { return true }
        let rule = SharedElementRule(maxShare: config.evidenceMaxShare, minExamples: config.evidenceExamples)
        let shown = examples.filter { record($0) != x.recordID }.map { SharedElementRule.terms(of: occurrences[$0]!) }
        return rule.sharedElement(SharedElementRule.terms(of: x), representative: SharedElementRule.terms(of: occurrences[rep]!),
                                  examples: shown, table) != nil
    }

    /// The medoid of `ids`: argmax eⱼ · Σ (ties to the lowest id).
    func medoid(_ ids: [Int64]) -> Int64 {
        let s = sum(ids)
        var best = ids.min()!
        for id in ids.sorted() where q(Vectors.dot(occurrences[id]!.vector, s)) > q(Vectors.dot(occurrences[best]!.vector, s)) { best = id }
        return best
    }

    // MARK: Membership changes

    /// Medoid = argmax eⱼ · S (ties lowest id); exemplars = top members by similarity to it, one per
    /// record; automatic members below τ_stay leave to pending (repeated until none); < 2 records → dormant.
    mutating func settle(_ gid: Int64) {
        for o in groups[gid]!.ids where occurrences[o] == nil { detach(o, from: gid); pending[o] = nil }
        while true {
            let ids = groups[gid]!.ids
            guard !ids.isEmpty else { groups[gid]!.medoid = nil; groups[gid]!.exemplars = []; break }
            let s = sum(ids)
            var medoid = ids[0]
            for id in ids where q(Vectors.dot(occurrences[id]!.vector, s)) > q(Vectors.dot(occurrences[medoid]!.vector, s)) { medoid = id }
            groups[gid]!.medoid = medoid
            var ranked: [(id: Int64, q: Int)] = ids.map { ($0, repScore($0, gid)) }
            ranked.sort { $0.q != $1.q ? $0.q > $1.q : $0.id < $1.id }
            var seen = Set<String>(), exemplars: [Int64] = []
            for (id, _) in ranked where exemplars.count < config.exemplars && seen.insert(record(id)).inserted { exemplars.append(id) }
            groups[gid]!.exemplars = exemplars
            // The stay threshold of the group's scope (also outside a run: corrections, removals).
            fixLevel(groups[gid]!.scope)
            let stay = q(base.adapted(toBackground: level(groups[gid]!.scope)).tauStay)
            let below = ids.filter { groups[gid]!.members[$0]!.staysChecked && repScore($0, gid) < stay }
            if below.isEmpty { break }
            for o in below {
                detach(o, from: gid)
                pending[o] = Mark()
                recentlyEvicted.insert(o)
            }
        }
        groups[gid]!.active = recordsOf(gid).count >= 2
    }

    mutating func remove(_ ids: Set<Int64>) {
        var affected = Set<Int64>()
        for o in ids.sorted() {
            pending[o] = nil
            if let g = groupOf(o) { detach(o, from: g); affected.insert(g) }
        }
        for g in affected.sorted() { settle(g) }
    }

    mutating func moveBack(_ ids: [Int64], to gid: Int64) {
        var left = Set<Int64>(), records = recordsOf(gid)
        var kind = representativeKind(gid)
        for o in ids.sorted() {
            guard let from = groupOf(o) else { continue }
            detach(o, from: from)
            left.insert(from)
            if records.contains(record(o)) || constraints.conflicts(record(o), records) || (kind != nil && self.kind(o) != kind) {
                pending[o] = Mark()
                continue
            }
            kind = kind ?? self.kind(o)
            attach(o, to: gid, .automatic(score: 0))
            records.insert(record(o))
        }
        for g in left.sorted() { settle(g) }
        settle(gid)
        for o in groups[gid]!.ids where ids.contains(o) && !groups[gid]!.members[o]!.isUserDecided {
            groups[gid]!.members[o] = .automatic(score: repScore(o, gid))
        }
    }

    mutating func touch(_ gid: Int64) {
        version += 1
        groups[gid]!.version += 1
        groups[gid]!.changedAt = version
    }

    mutating func detach(_ o: Int64, from gid: Int64) {
        groups[gid]!.members[o] = nil
        groups[gid]!.label = nil
        groups[gid]!.labelVersion = nil
        touch(gid)
    }

    mutating func attach(_ o: Int64, to gid: Int64, _ source: MembershipSource) {
        pending[o] = nil
        groups[gid]!.members[o] = source
        touch(gid)
    }

    mutating func newGroup(_ scope: Scope) -> Int64 {
        defer { nextID += 1 }
        groups[nextID] = RGroup(id: nextID, scope: scope, changedAt: version)
        return nextID
    }

    // MARK: Small reads

    func q(_ x: Float) -> Int { config.quantise(x) }
    func record(_ o: Int64) -> String { occurrences[o]!.recordID }
    /// The kind of the record of occurrence `o`; of group `gid`'s representative (nil without one).
    func kind(_ o: Int64) -> String { occurrences[o]!.recordKind }
    func representativeKind(_ gid: Int64) -> String? { groups[gid]?.medoid.flatMap { occurrences[$0]?.recordKind } }
    func recordsOf(_ gid: Int64) -> Set<String> { Set(groups[gid]!.ids.compactMap { occurrences[$0]?.recordID }) }
    func groupOf(_ o: Int64) -> Int64? { groups.values.first { $0.members[o] != nil }?.id }
    func repScore(_ o: Int64, _ gid: Int64) -> Int {
        guard let m = groups[gid]!.medoid else { return 0 }
        return q(Vectors.dot(occurrences[o]!.vector, occurrences[m]!.vector))
    }

    /// Σ of the members' vectors, added in ascending id order.
    func sum(_ ids: [Int64]) -> [Float] {
        var s = [Float](repeating: 0, count: occurrences[ids[0]]!.vector.count)
        for id in ids { for (i, x) in occurrences[id]!.vector.enumerated() { s[i] += x } }
        return s
    }

    /// One line per group and per pending occurrence, comparable with `describe(_ PatternState)`.
    var description: [String] {
        var out: [String] = []
        for id in groups.keys.sorted() {
            let g = groups[id]!
            let members = g.ids.map { (id: $0, source: g.members[$0]!) }
            out.append(Self.line(id, g.scope, members, g.medoid, g.exemplars, g.active, g.version, g.changedAt, g.label)
                       + " \(g.mergedInto ?? 0) s\(g.sweptMembers ?? -1)")
        }
        for id in pending.keys.sorted() { out.append(Self.line(id, pending[id]!.evaluatedAt)) }
        for scope in levels.keys.sorted() { out.append("level \(scope.category) \(levels[scope]!)") }
        return out
    }

    static func describe(_ s: PatternState) -> [String] {
        var out: [String] = []
        for g in s.sortedGroups {
            let members = g.members.map { (id: $0.occurrenceID, source: $0.source) }
            out.append(line(g.id, g.scope, members, g.medoid, g.exemplars, g.state == .active, g.version, g.changedAt, g.label)
                       + " \(g.mergedInto ?? 0) s\(g.sweptMembers ?? -1)")
        }
        // (With the scope's watermark applied: the version the mark counts as evaluated at.)
        for id in s.pending.keys.sorted() { out.append(line(id, s.evaluatedAt(id))) }
        for scope in s.levels.keys.sorted() { out.append("level \(scope.category) \(s.levels[scope]!)") }
        return out
    }

    static func line(
        _ id: Int64, _ scope: Scope, _ members: [(id: Int64, source: MembershipSource)], _ medoid: Int64?, _ exemplars: [Int64],
        _ active: Bool, _ version: Int, _ changedAt: Int, _ label: String?
    ) -> String {
        let ms: [String] = members.map { "\($0.id):\($0.source)" }
        let m: String = medoid.map { String($0) } ?? "-"
        let state: String = active ? "active" : "dormant"
        return "g\(id) \(scope.category) \(ms) m\(m) e\(exemplars) \(state) v\(version)@\(changedAt) \(label ?? "-")"
    }

    static func line(_ id: Int64, _ evaluatedAt: Int?) -> String {
        let at: String = evaluatedAt.map { String($0) } ?? "fresh"
        return "p\(id) \(at)"
    }
}

extension Constraints {
    func conflicts(_ record: String, _ records: Set<String>) -> Bool { records.contains { cannotLink(record, $0) } }
}
