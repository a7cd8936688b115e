import LinearAlgebra

/// The pending marks of one scope as columns, kept across calls in the
/// `EngineCache` and patched from the marks a call changes (`ChangedMarks.log`), never by looking
/// at every mark again.
///
/// It speeds up one rule, "a pending occurrence is evaluated again only when a change can reach
/// it" (README, Placement cost): `reachable` finds the marks whose re-check (`Workspace.recheck`)
/// could give anything but `.same` — a changed group among their candidates, one matrix–vector
/// product per changed group against the pending vectors for the K-th-candidate bound, and every
/// mark the columns cannot vouch for — so that a placement re-checks those instead of every
/// pending occurrence of its category. It also gives the scope's pending list, its fresh and
/// due marks, and the vectors seeding reads. It decides nothing: `recheck` still decides each mark
/// it names, and the decisions equal those of visiting every mark (`PendingIndexTests`).
struct PendingIndex {
    let scope: Scope
    /// Candidate slots per row (`candidateK`); a certificate with more candidates (tag groups) is odd.
    let k: Int
    /// Every row's id, in the order the rows came; rows whose mark left are dead until the rows
    /// are rebuilt (a mark that comes back revives its row).
    private(set) var ids: [Int64] = []
    /// The rows by ascending id.
    private var order: [Int] = []
    private var alive: [Bool] = []
    private var dead = 0
    /// By row: `evaluatedAt` (`.min`: fresh), the certificate's `at` (`.min`: none), its K-th
    /// score and stamp, its candidates (`k` slots, 0 when unused), and whether the columns cannot
    /// vouch for the row (no scope kept, tags, no K-th, more candidates than slots, no certificate).
    private var evaluatedAt: [Int] = []
    private var certAt: [Int] = []
    private var kth: [Int] = []
    private var kthGroup: [Int64] = []
    private var stamp: [Int] = []
    private var candidates: [Int64] = []
    private var odd: [Bool] = []
    /// The records kept apart by cannot-links when `apart` was computed, and by row whether the
    /// occurrence's record is one of them (its certificate stamp depends on them).
    private var apartFrom: Set<RecordPair>?
    private var apart: [Bool] = []
    /// The occurrences' vectors by row, and their int8 codes for `reachable`'s bound, built when
    /// first asked for.
    private var storage: RowStorage?
    private var codes: RowCodes?
    let d: Int
    /// How far `ChangedMarks.log` of the current call has been applied.
    var cursor = 0
    private var aliveCache: [Int64]?

    /// Built from every mark of `scope` in `state`.
    init(_ scope: Scope, _ state: PatternState, _ occurrences: [Int64: Occurrence], k: Int, d: Int) {
        self.scope = scope
        self.k = k
        self.d = d
        let marks = state.pending.values
        var found: [Int64] = []
        for i in state.pending.indices where Self.belongs(marks[i], state.pending.keys[i], scope, occurrences) {
            found.append(state.pending.keys[i])
        }
        found.sort()
        reserve(found.count)
        for id in found { appendRow(id, state.pending[id]!, occurrences) }
        order = Array(ids.indices)
    }

    static func belongs(_ mark: PendingMark, _ id: Int64, _ scope: Scope, _ occurrences: [Int64: Occurrence]) -> Bool {
        if let s = mark.scope { return s.category == scope.category && s.owner == scope.owner }
        guard let at = occurrences.index(forKey: id) else { return false }
        return occurrences.values[at].category == scope.category && occurrences.values[at].owner == scope.owner
    }

    private mutating func reserve(_ n: Int) {
        ids.reserveCapacity(n); alive.reserveCapacity(n); evaluatedAt.reserveCapacity(n); certAt.reserveCapacity(n)
        kth.reserveCapacity(n); kthGroup.reserveCapacity(n); stamp.reserveCapacity(n); candidates.reserveCapacity(n * k); odd.reserveCapacity(n)
    }

    private mutating func appendRow(_ id: Int64, _ mark: PendingMark, _ occurrences: [Int64: Occurrence]) {
        ids.append(id)
        alive.append(true)
        evaluatedAt.append(0); certAt.append(0); kth.append(0); kthGroup.append(0); stamp.append(0); odd.append(false)
        candidates.append(contentsOf: repeatElement(0, count: k))
        if apartFrom != nil { apart.append(false) }
        set(ids.count - 1, mark, occurrences)
        // (Rows are written once and only appended: copies of the index share the vectors until
        // one appends past rows another has appended.)
        if let s = storage, s.rows != ids.count - 1 { storage = s.copy(rows: ids.count - 1) }
        if let c = codes, c.rows != ids.count - 1 { codes = c.copy(rows: ids.count - 1) }
        storage?.append(occurrences.vectorOf(id))
        if let s = storage, let c = codes { c.append(UnsafePointer(s.base + (ids.count - 1) * d)) }
    }

    /// Row `r` from `mark`.
    private mutating func set(_ r: Int, _ mark: PendingMark, _ occurrences: [Int64: Occurrence]) {
        evaluatedAt[r] = mark.evaluatedAt ?? .min
        let cert = mark.certificate
        certAt[r] = cert?.at ?? .min
        kth[r] = cert?.kthScore ?? .min
        kthGroup[r] = cert?.kthGroup ?? 0
        stamp[r] = cert?.stamp ?? 0
        let n = cert?.candidates.count ?? 0
        for s in 0..<k { candidates[r * k + s] = s < n ? cert!.candidates[s] : 0 }
        odd[r] = mark.scope == nil || cert == nil || cert!.kthScore == nil || cert!.kthGroup == nil || n > k
            || occurrences[ids[r]].map { !$0.tags.isEmpty } ?? true
        if let pairs = apartFrom { apart[r] = Self.isApart(ids[r], pairs, occurrences) }
    }

    static func isApart(_ id: Int64, _ pairs: Set<RecordPair>, _ occurrences: [Int64: Occurrence]) -> Bool {
        guard !pairs.isEmpty, let record = occurrences.recordOf(id) else { return false }
        return pairs.contains { $0.a == record || $0.b == record }
    }

    /// Where `id` is or would go in `order`.
    private func place(of id: Int64) -> Int {
        SortedPosition.first(in: order.count) { ids[order[$0]] >= id }
    }

    private func row(of id: Int64) -> Int? {
        let at = place(of: id)
        return at < order.count && ids[order[at]] == id ? order[at] : nil
    }

    /// Applies the marks changed since `cursor` (`log`: ids in the order they changed).
    mutating func sync(_ log: [Int64], _ state: PatternState, _ occurrences: [Int64: Occurrence]) {
        guard cursor < log.count else { return }
        let touched = Set(log[cursor...])
        cursor = log.count
        aliveCache = nil
        var arriving: [Int64] = []
        for id in touched {
            let r = row(of: id)
            if let mark = state.pending[id], Self.belongs(mark, id, scope, occurrences) {
                if let r {
                    if !alive[r] { alive[r] = true; dead -= 1 }
                    set(r, mark, occurrences)
                } else {
                    arriving.append(id)
                }
            } else if let r, alive[r] {
                alive[r] = false
                dead += 1
            }
        }
        // New rows go at the end; `order` takes them at their places.
        arriving.sort()
        let last = order.last.map { ids[$0] } ?? .min
        for id in arriving {
            appendRow(id, state.pending[id]!, occurrences)
            if arriving.count <= 16 || id > last { order.insert(ids.count - 1, at: place(of: id)) }
        }
        if arriving.count > 16, let first = arriving.first, first < last {
            order = Array(ids.indices).sorted { ids[$0] < ids[$1] }
        }
        if dead * 4 > max(64, ids.count) { compact() }
    }

    /// The live rows only, by ascending id.
    private mutating func compact() {
        let keep = order.filter { alive[$0] }
        func pick<T>(_ xs: [T]) -> [T] { keep.map { xs[$0] } }
        ids = pick(ids); evaluatedAt = pick(evaluatedAt); certAt = pick(certAt); kth = pick(kth); kthGroup = pick(kthGroup); stamp = pick(stamp); odd = pick(odd)
        if !apart.isEmpty { apart = pick(apart) }
        candidates = keep.flatMap { candidates[($0 * k)..<(($0 + 1) * k)] }
        if let old = storage {
            let s = RowStorage(d: d, capacity: Self.headroom(keep.count))
            let c = RowCodes(d: d, capacity: Self.headroom(keep.count))
            for r in keep { s.append(UnsafePointer(old.base + r * d)); c.append(UnsafePointer(old.base + r * d)) }
            storage = s
            codes = c
        }
        alive = [Bool](repeating: true, count: keep.count)
        order = Array(ids.indices)
        dead = 0
    }

    /// Capacity for `n` rows and the arrivals of a while.
    static func headroom(_ n: Int) -> Int { n + n / 8 + 64 }

    /// Brings `apart` in line with the cannot-links in force (recomputed only when they differ).
    mutating func useCannotLinks(_ pairs: Set<RecordPair>, _ occurrences: [Int64: Occurrence]) {
        guard apartFrom != pairs else { return }
        apartFrom = pairs
        apart = ids.map { Self.isApart($0, pairs, occurrences) }
    }

    // MARK: Lists

    /// The pending occurrences of the scope, ascending.
    var all: [Int64] {
        mutating get {
            if let a = aliveCache { return a }
            let a = order.filter { alive[$0] }.map { ids[$0] }
            aliveCache = a
            return a
        }
    }

    /// The fresh ones (never evaluated, or evicted), ascending.
    var fresh: [Int64] { order.filter { alive[$0] && evaluatedAt[$0] == .min }.map { ids[$0] } }

    /// The effective version a row was evaluated at (`PatternState.evaluatedAt(_:watermark:)`).
    /// (Rows that are not odd only: those keep their scope, so the watermark applies.)
    @inline(__always)
    private func evaluated(_ r: Int, _ w: PendingWatermark?) -> Int {
        let at = evaluatedAt[r]
        guard at != .min, let w, at < w.below else { return at }
        return w.at
    }

    /// A pass's work: fresh marks and those evaluated before `lastChange`, ascending.
    func due(lastChange: Int, watermark w: PendingWatermark?, state: PatternState) -> [Int64] {
        var out: [Int64] = []
        for r in order where alive[r] {
            let at: Int
            if odd[r] {
                // (Read from the mark: it may lack a scope, which a watermark never covers.)
                guard let e = PatternState.evaluatedAt(state.pending[ids[r]]!, watermark: w) else { out.append(ids[r]); continue }
                at = e
            } else {
                at = evaluated(r, w)
            }
            if at == .min || at < lastChange { out.append(ids[r]) }
        }
        return out
    }

    /// Evaluated marks without a certificate (seeding alone looked at them), ascending.
    var uncertified: [Int64] { order.filter { alive[$0] && evaluatedAt[$0] != .min && certAt[$0] == .min }.map { ids[$0] } }

    // MARK: Reach of a change

    /// The marks of `work` (ascending, every one a live row) whose re-check at the start of an
    /// assignment pass could give anything but `.same`, ascending; nil when the columns cannot
    /// tell (more than `maxChanged` groups changed since the oldest certificate), and every mark of
    /// `work` must be re-checked. `groups`: the scope's groups (ids, `changedAt`); `unit(gid)`: the
    /// unit centroid a re-check compares with (nil for a group without one, which no re-check
    /// looks at); `plainStamp`: the stamp of a record without cannot-links. `qRep`, when
    /// given (no judge), and `medoid` mirror `Workspace.stillIneligible`: the τ_rep threshold (quantised), and per
    /// group its medoid and the version since which it has had it (`Workspace.medoidSince`), so
    /// that a changed candidate a mark cannot be eligible for does not reach it either.
    mutating func reachable(
        _ work: [Int64], _ occurrences: [Int64: Occurrence], groups: (ids: [Int64], changedAt: [Int]), unit: (Int64) -> [Float]?, watermark w: PendingWatermark?,
        plainStamp: Int, scale: Int, maxChanged: Int,
        ineligibleBelow qRep: Int? = nil, medoid: (Int64) -> (vector: [Float], since: Int)? = { _ in nil }
    ) -> [Int64]? {
        // Rows of `work`, and the oldest certificate among those the columns can vouch for.
        var rows: [Int] = []
        rows.reserveCapacity(work.count)
        var at = 0
        var oldest = Int.max
        for id in work {
            while ids[order[at]] < id { at += 1 }
            let r = order[at]
            rows.append(r)
            if !odd[r] && evaluatedAt[r] != .min { oldest = min(oldest, certificate(r, w)) }
        }
        var changed: [(gid: Int64, at: Int, unit: [Float]?, medoid: (vector: [Float], since: Int)?)] = []
        for (j, at) in groups.changedAt.enumerated() where at > oldest {
            let gid = groups.ids[j]
            changed.append((gid, at, unit(gid), qRep == nil ? nil : medoid(gid)))
            if changed.count > maxChanged { return nil }
        }
        // An upper bound of x · unit(g) for every row, one pass over the rows' int8 codes per changed
        // group with a centroid; the exact product only where the bound reaches the row's K-th.
        let vectors = self.vectors(occurrences)
        let codes = self.codes!
        var upper: [[Float]] = []
        for c in changed {
            guard let u = c.unit else { upper.append([]); continue }
            upper.append(u.withUnsafeBufferPointer { codes.upperBounds($0.baseAddress!) })
        }
        // A re-check gives `.same` when no changed group is a candidate and each changed group with
        // a centroid quantises below the K-th score less one; allow for the product's rounding.
        let slack = 1.5 + 0.01
        var out: [Int64] = []
        for (n, r) in rows.enumerated() {
            if odd[r] || evaluatedAt[r] == .min || stamp[r] != plainStamp || (!apart.isEmpty && apart[r]) {
                out.append(work[n]); continue
            }
            let since = certificate(r, w)
            let bound = (Double(kth[r]) - 1 - slack) / Double(scale)
            var reached = false
            for (c, g) in changed.enumerated() where g.at > since {
                if (0..<k).contains(where: { candidates[r * k + $0] == g.gid }) {
                    if let qRep, let u = g.unit, let m = g.medoid, m.since <= since, kthGroup[r] != g.gid,
                       candidates[r * k + k - 1] != 0 {
                        // (`stillIneligible`, as `recheck` computes it: the same products, quantised alike.)
                        let x = vectors.base + r * d
                        func q(_ v: [Float]) -> Int {
                            GroupingConfig.quantise(v.withUnsafeBufferPointer { Vectors.dot(x, $0.baseAddress!, count: d) }, scale: scale)
                        }
                        if q(u) >= kth[r] + 1 && q(m.vector) < qRep { continue }
                    }
                    reached = true; break
                }
                if let u = g.unit, Double(upper[c][r]) >= bound,
                   Double(u.withUnsafeBufferPointer { Vectors.dot(vectors.base + r * d, $0.baseAddress!, count: d) }) >= bound {
                    reached = true; break
                }
            }
            if reached { out.append(work[n]) }
        }
        return out
    }

    /// `PatternState.certificateAt` of a row the columns vouch for.
    @inline(__always)
    private func certificate(_ r: Int, _ w: PendingWatermark?) -> Int {
        guard let w, evaluatedAt[r] < w.below else { return certAt[r] }
        return max(certAt[r], w.at)
    }

    // MARK: Vectors

    /// Calls `body(id, row)` for every live row, ids ascending (the vectors built on first use).
    mutating func forEachLive(_ occurrences: [Int64: Occurrence], _ body: (Int64, UnsafePointer<Float>) -> Void) {
        let base = vectors(occurrences).base
        for r in order where alive[r] { body(ids[r], base + r * d) }
    }

    /// The vector of pending `id`, when it has a live row (valid while the index is not changed).
    func vector(of id: Int64) -> UnsafePointer<Float>? {
        guard let storage, let r = row(of: id), alive[r] else { return nil }
        return UnsafePointer(storage.base + r * d)
    }

    /// The rows' vectors (built from `occurrences` the first time).
    @discardableResult
    mutating func vectors(_ occurrences: [Int64: Occurrence]) -> RowStorage {
        if let s = storage { return s }
        let s = RowStorage(d: d, capacity: Self.headroom(ids.count))
        let c = RowCodes(d: d, capacity: Self.headroom(ids.count))
        for (r, id) in ids.enumerated() {
            s.append(occurrences.vectorOf(id))
            c.append(UnsafePointer(s.base + r * d))
        }
        storage = s
        codes = c
        return s
    }
}

/// The pending marks an engine call set, changed or removed: the set a store writes
/// (`RefreshOutcome.changedPending`) and, in order, the log `PendingIndex` patches itself from.
struct ChangedMarks {
    private(set) var ids: Set<Int64> = []
    private(set) var log: [Int64] = []

    mutating func insert(_ id: Int64) {
        ids.insert(id)
        log.append(id)
    }

    func sorted() -> [Int64] { ids.sorted() }
}
