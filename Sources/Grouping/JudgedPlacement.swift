import LinearAlgebra

/// Placement under an outside judge (a client's or a remote model): similarity only proposes,
/// the judge decides (docs/grouping-design.md, "With a judge").
///
/// The rules, in order:
/// - **Candidates.** Each pending occurrence of the scope proposes its `judgeCandidates` nearest
///   occurrences of the scope (pending ones and the members of active groups), of its record's
///   kind and another record, at least `judgeFloor` above the scope's background level in force.
///   A candidate stands for its group when it has one. Only pairs with a fresh occurrence (never
///   judged) are proposed, so a refresh with nothing new asks nothing.
/// - **Order.** Pairs are taken closest first (quantised similarity descending, then ids), so the
///   questions most likely to be answered yes come first.
/// - **Questions.** Every question asks whether an occurrence shares the situation of a
///   representative occurrence (`JudgeQuestion.Target.seed`), with the group's examples shown. So
///   a verdict stays valid while both occurrences exist, whatever else the group gains.
/// - **Join** (an occurrence alone, a group): yes against the group's representative and yes
///   against an example; a contradiction is settled by a second example (two of three).
/// - **Seed** (two occurrences alone): yes both ways.
/// - **Combine** (two groups): yes for the smaller's representative against the larger's, then two
///   yeses of three (the other way, and an example of each against the other's representative);
///   the older id survives; no cannot-link is crossed, and a group with a member a person placed
///   is never absorbed.
/// - **Asked again.** An occurrence left alone whose closest group said no once is asked about
///   against two other members of that group; two yeses join it (a judge that errs now and then
///   gets a second look at its most likely mistakes).
/// - A pair whose clusters the judge kept apart in this call is not asked about again in it; an
///   unanswered question leaves its occurrence waiting (fresh) for the next refresh.
/// Judged members (`MembershipSource.judged`) are never evicted by the stay check: the judge, not
/// the distance to the medoid, placed them.
extension Workspace {
    /// The judged passes over one scope (instead of assignment, seeding and combination).
    mutating func judgedRun(_ scope: Scope, isCancelled: () -> Bool) throws {
        let level = levelInForce(scope)
        config = baseConfig.adapted(toBackground: level)
        defer { config = baseConfig }
        let fresh = Set(freshPending(scope))
        guard !fresh.isEmpty else { return }
        var board = JudgedBoard(self, scope: scope, level: level)
        let pairs = board.proposals(fresh: fresh, self)
        var keptApart = Set<JudgedBoard.Pair>()
        var firstNo: [Int64: Int64] = [:]
        for (n, edge) in pairs.enumerated() {
            if n % 256 == 0, isCancelled() { throw GroupingError.cancelled }
            let a = board.cluster(of: edge.a), b = board.cluster(of: edge.b)
            guard a != b, !keptApart.contains(.init(a, b)), board.mayMeet(a, b, self) else { continue }
            let (small, large) = board.ordered(a, b)
            switch decideJudged(small, large, &board) {
            case .yes:
                board.merge(small, into: large, &self, score: edge.q)
            case .no:
                keptApart.insert(.init(a, b))
                if case .single(let x) = small, case .group = large, firstNo[x] == nil {
                    firstNo[x] = edge.a == x ? edge.b : edge.a
                }
            case .unknown:
                continue
            }
        }
        // A second look at the likeliest mistakes: alone, its closest group said no once.
        for (x, partner) in firstNo.sorted(by: { $0.key < $1.key }) {
            guard case .single = board.cluster(of: x), case .group(let gid) = board.cluster(of: partner),
                  state.groups[gid].map({ $0.state == .active }) == true else { continue }
            let g = state.groups[gid]!
            guard let rep = g.medoid else { continue }
            var others = [partner] + g.exemplars.filter { $0 != partner }
            others.removeAll { $0 == rep || $0 == x }
            guard others.count >= 2 || (others.count == 1 && g.members.count == 2) else { continue }
            var yes = true
            for other in others.prefix(2) where yes {
                if case .yes = askAbout(x, representative: other, group: gid) {} else { yes = false }
            }
            if yes { board.merge(.single(x), into: .group(gid), &self, score: config.quantise(Vectors.dot(occurrences[x]!.vector, occurrences[partner]!.vector))) }
        }
        // Everything left pending has been looked at as of now.
        for id in scopePending(scope) where state.pending[id]?.evaluatedAt == nil {
            state.pending[id]!.evaluatedAt = state.groupsVersion
            state.pending[id]!.certificate = nil
            pendingChanged.insert(id)
        }
    }

    enum JudgedAnswer { case yes, no, unknown }

    /// The judge's decision on bringing `small` and `large` together (see the rules above).
    private mutating func decideJudged(_ small: JudgedBoard.Cluster, _ large: JudgedBoard.Cluster, _ board: inout JudgedBoard) -> JudgedAnswer {
        switch (small, large) {
        case let (.single(x), .single(y)):
            // Both ways.
            let first = answer(askAbout(x, representative: y, group: nil))
            guard first == .yes else { return first }
            return answer(askAbout(y, representative: x, group: nil))
        case let (.single(x), .group(gid)):
            let g = state.groups[gid]!
            guard let rep = g.medoid else { return .no }
            let first = answer(askAbout(x, representative: rep, group: gid))
            guard first == .yes else { return first }
            let examples = g.exemplars.filter { $0 != rep && $0 != x }
            guard let e1 = examples.first else { return .yes }
            let second = answer(askAbout(x, representative: e1, group: gid))
            if second != .no { return second }
            // A contradiction: a second example settles it.
            guard examples.count > 1 else { return .no }
            return answer(askAbout(x, representative: examples[1], group: gid))
        case let (.group(ga), .group(gb)):
            // The smaller's representative against the larger's first; then two yeses of three:
            // the other way, and an example of each against the other's representative.
            let a = state.groups[ga]!, b = state.groups[gb]!
            guard let ra = a.medoid, let rb = b.medoid else { return .no }
            let first = answer(askAbout(ra, representative: rb, group: gb))
            guard first == .yes else { return first }
            var checks: [(Int64, Int64, Int64)] = [(rb, ra, ga)]
            if let e = a.exemplars.first(where: { $0 != ra }) { checks.append((e, rb, gb)) }
            if let e = b.exemplars.first(where: { $0 != rb }) { checks.append((e, ra, ga)) }
            var yes = 0, no = 0
            for (x, r, gid) in checks {
                switch answer(askAbout(x, representative: r, group: gid)) {
                case .yes: yes += 1
                case .no: no += 1
                case .unknown: return .unknown
                }
                if yes == 2 || yes == checks.count { return .yes }
                if no > checks.count - 2 { return .no }
            }
            return yes >= min(2, checks.count) ? .yes : .no
        case (.group, .single):
            return decideJudged(large, small, &board)
        }
    }

    private func answer(_ v: Verdict) -> JudgedAnswer {
        switch v {
        case .yes: .yes
        case .no: .no
        case .unknown: .unknown
        }
    }

    /// Asks the outer judge whether `occurrence` shares the situation of `representative`, shown
    /// with the examples of `group` (when the representative is in one).
    mutating func askAbout(_ occurrence: Int64, representative: Int64, group gid: Int64?) -> Verdict {
        guard let judge = outerJudge else { return .yes(label: nil) }
        let g = gid.flatMap { state.groups[$0] }
        let members = (g?.memberIDs ?? [representative]).filter { $0 != occurrence }
        let examples = (g?.exemplars ?? []).filter { $0 != occurrence && $0 != representative }.sorted()
        let q = JudgeQuestion(occurrence: occurrence, target: .seed(representative: representative), representative: representative,
                              examples: examples, members: members, label: g?.label, group: gid)
        let verdict = judge(q)
        switch verdict {
        case .unknown:
            // Both sides wait when both are pending (a seed's question).
            awaitingJudge.insert(occurrence)
            if state.pending[representative] != nil { awaitingJudge.insert(representative) }
        case .yes(let label):
            awaitingJudge.remove(occurrence)
            if let label { suggestedLabels[occurrence] = label }
        case .no: break
        }
        return verdict
    }
}

/// What the judged passes work on: the scope's occurrences (pending and grouped) as clusters —
/// a pending occurrence alone, or the active group it is a member of.
struct JudgedBoard {
    enum Cluster: Hashable {
        case single(Int64)
        case group(Int64)
    }

    struct Pair: Hashable {
        let a: Cluster, b: Cluster
        init(_ x: Cluster, _ y: Cluster) {
            if Self.rank(x) <= Self.rank(y) { (a, b) = (x, y) } else { (a, b) = (y, x) }
        }
        static func rank(_ c: Cluster) -> (Int, Int64) {
            switch c {
            case .single(let id): (0, id)
            case .group(let id): (1, id)
            }
        }
    }

    /// A proposed pair of occurrences with its quantised similarity.
    struct Edge {
        let a: Int64, b: Int64, q: Int
    }

    let scope: Scope
    /// The occurrences looked at: pending ones and members of the scope's active groups, ascending.
    let ids: [Int64]
    /// Occurrence → its active group.
    var groupOf: [Int64: Int64]
    let floor: Int
    let candidates: Int

    init(_ ws: Workspace, scope: Scope, level: Int?) {
        self.scope = scope
        var groupOf: [Int64: Int64] = [:]
        for (gid, g) in ws.state.groups where g.scope == scope && g.state == .active {
            for m in g.members { groupOf[m.occurrenceID] = gid }
        }
        self.groupOf = groupOf
        var ids = Array(groupOf.keys)
        for (id, mark) in ws.state.pending where (mark.scope ?? ws.occurrences.scopeOf(id)) == scope { ids.append(id) }
        self.ids = ids.sorted()
        floor = ws.config.quantise(ws.baseConfig.judgeFloor(atBackground: level))
        candidates = max(1, ws.baseConfig.judgeCandidates)
    }

    func cluster(of id: Int64) -> Cluster {
        groupOf[id].map { .group($0) } ?? .single(id)
    }

    /// Smaller first (an occurrence alone before a group; of two groups, fewer members, then the younger).
    func ordered(_ a: Cluster, _ b: Cluster) -> (Cluster, Cluster) {
        switch (a, b) {
        case (.single, .group): return (a, b)
        case (.group, .single): return (b, a)
        case let (.single(x), .single(y)): return x < y ? (a, b) : (b, a)
        case let (.group(x), .group(y)):
            let nx = sizes[x] ?? 0, ny = sizes[y] ?? 0
            return (nx, -x) <= (ny, -y) ? (a, b) : (b, a)
        }
    }

    private var sizes: [Int64: Int] {
        var out: [Int64: Int] = [:]
        for g in groupOf.values { out[g, default: 0] += 1 }
        return out
    }

    /// Whether the two may share a group at all: one kind of record, no record in both, no
    /// cannot-link between them, and (for two groups) no member a person placed in the one absorbed.
    func mayMeet(_ a: Cluster, _ b: Cluster, _ ws: Workspace) -> Bool {
        for c in [a, b] { if case .single(let id) = c, ws.state.pending[id] == nil { return false } }
        func records(_ c: Cluster) -> Set<String> {
            switch c {
            case .single(let id): return [ws.occurrences.recordOf(id)!]
            case .group(let gid): return Set(ws.state.groups[gid]!.members.compactMap { ws.occurrences.recordOf($0.occurrenceID) })
            }
        }
        func kind(_ c: Cluster) -> String? {
            switch c {
            case .single(let id): return ws.occurrences[id]?.recordKind
            case .group(let gid): return ws.state.groups[gid]!.medoid.flatMap { ws.occurrences[$0]?.recordKind }
            }
        }
        guard let ka = kind(a), ka == kind(b) else { return false }
        let ra = records(a), rb = records(b)
        guard ra.isDisjoint(with: rb) else { return false }
        for r in ra where ws.constraints.conflicts(r, with: rb) { return false }
        if case .group(let ga) = a, case .group(let gb) = b {
            let young = max(ga, gb)
            if ws.state.groups[young]!.members.contains(where: { $0.source.isUserDecided }) { return false }
        }
        return true
    }

    /// The proposed pairs, closest first: each pending occurrence's nearest occurrences of the
    /// board above the floor, where one side is fresh.
    func proposals(fresh: Set<Int64>, _ ws: Workspace) -> [Edge] {
        let pending = ids.filter { groupOf[$0] == nil }
        var seen = Set<[Int64]>()
        var out: [Edge] = []
        for x in pending {
            let ox = ws.occurrences[x]!
            var near = TopCandidates(k: candidates, scale: ws.config.scoreScale)
            for y in ids where y != x {
                let oy = ws.occurrences[y]!
                guard oy.recordKind == ox.recordKind, oy.recordID != ox.recordID else { continue }
                let s = Vectors.dot(ox.vector, oy.vector)
                let q = ws.config.quantise(s)
                guard q >= floor, near.admits(s) else { continue }
                near.offer(y, q)
            }
            for n in near.best where fresh.contains(x) || fresh.contains(n.id) {
                let key = [min(x, n.id), max(x, n.id)]
                guard seen.insert(key).inserted else { continue }
                out.append(Edge(a: key[0], b: key[1], q: n.q))
            }
        }
        out.sort { ($0.q, -$0.a, -$0.b) > ($1.q, -$1.a, -$1.b) }
        return out
    }

    /// Brings `small` into `large`: an occurrence joins, two occurrences found a group, or the
    /// younger group's members move into the older (which survives).
    mutating func merge(_ small: Cluster, into large: Cluster, _ ws: inout Workspace, score: Int) {
        switch (small, large) {
        case let (.single(x), .group(gid)):
            let labelled = ws.state.groups[gid]!.labelVersion == ws.state.groups[gid]!.version
            ws.attach(x, to: gid, source: .judged(score: score))
            ws.assigned += 1
            groupOf[x] = gid
            settle(gid, &ws)
            keepLabel(gid, labelled, &ws)
            ws.adoptSuggested(ws.suggestedLabels[x], for: gid)
        case let (.single(x), .single(y)):
            let gid = ws.newGroup(scope)
            for id in [x, y].sorted() { ws.attach(id, to: gid, source: .judged(score: score)) }
            groupOf[x] = gid
            groupOf[y] = gid
            settle(gid, &ws)
            ws.adoptSuggested(ws.suggestedLabels[x] ?? ws.suggestedLabels[y], for: gid)
        case let (.group(a), .group(b)):
            let old = min(a, b), young = max(a, b)
            let labelled = ws.state.groups[old]!.labelVersion == ws.state.groups[old]!.version
            for m in ws.state.groups[young]!.members {
                ws.detach(m.occurrenceID, from: young)
                ws.attach(m.occurrenceID, to: old, source: m.source.isUserDecided ? m.source : .judged(score: score))
                groupOf[m.occurrenceID] = old
            }
            settle(young, &ws)
            ws.state.groups[young]!.mergedInto = old
            settle(old, &ws)
            keepLabel(old, labelled, &ws)
            ws.combined += 1
        case (.group, .single):
            merge(large, into: small, &ws, score: score)
        }
    }

    /// A confirmed join only adds members: a label valid before it (the judge's suggestion, or a
    /// person's) stays valid. (Any member leaving clears it, as everywhere.)
    private func keepLabel(_ gid: Int64, _ labelled: Bool, _ ws: inout Workspace) {
        guard labelled, ws.state.groups[gid]!.label != nil, ws.state.groups[gid]!.members.count > 0 else { return }
        ws.state.groups[gid]!.labelVersion = ws.state.groups[gid]!.version
    }

    /// Settles a group; members the stay check evicts (automatic ones placed before) are alone again.
    private mutating func settle(_ gid: Int64, _ ws: inout Workspace) {
        for id in ws.settle(gid) { groupOf[id] = nil }
        if ws.state.groups[gid]!.state != .active { for m in ws.state.groups[gid]!.members { groupOf[m.occurrenceID] = nil } }
    }
}
