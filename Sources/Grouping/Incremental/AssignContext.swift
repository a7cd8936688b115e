import LinearAlgebra

/// What one `assign` call knows about the groups of its scope: their ids, changes and unit
/// centroids from the workspace's `ScopeGroups` (shared, not copied), full profiles only for
/// groups that are looked at (candidates, changed groups), the tag groups only for tagged occurrences.
struct AssignContext {
    let scope: Scope
    /// Groups of the scope, ascending (at the start of the call).
    let order: [Int64]
    /// Groups with a representative, ascending, and their unit centroids as the rows of a matrix
    /// (shared with the workspace's snapshot). A group changed during the call gets its new
    /// centroid in `overrides`, or, once the matrix is the context's own (`ownMatrix`, for GEMM),
    /// written into its row.
    let live: [Int64]
    private(set) var centroids: Matrix
    private var overrides: [Int: [Float]] = [:]
    private(set) var ownMatrix = false
    /// By live index: `Workspace.touchLog.count` when the row last changed (-1: not during this
    /// call). GEMM scores computed before that are stale for the row.
    private(set) var rowChangedAt: [Int]
    let dimension: Int
    private var profiles: [Int64: GroupProfile] = [:]
    /// The profile asked for last (re-checks ask for the same changed group thousands of times).
    private var lastProfile: GroupProfile?
    private var noProfile: Set<Int64> = []
    /// The scope's tag groups (from the workspace, or gathered when first asked for).
    var tagIndex: TagIndex?
    /// (changedAt, group) of the scope's groups at the start of the call, ascending; built when a
    /// certificate is first checked.
    private var changeLog: [(at: Int, gid: Int64)]?
    private var changedQueries = 0
    static let scansBeforeSorting = 16
    let changedAtStart: [Int]
    /// Index into `Workspace.touchLog` at the start of the call.
    let touchStart: Int
    /// Thresholds part of every certificate stamp.
    let configStamp: UInt64
    /// The scope's pending watermark at the start of the call.
    let watermark: PendingWatermark?

    init(_ ws: inout Workspace, scope: Scope) {
        self.scope = scope
        profiles = ws.derived.profiles
        let groups = ws.scopeGroups(scope)
        order = groups.ids
        changedAtStart = groups.changedAt
        live = groups.live
        centroids = groups.centroids
        rowChangedAt = [Int](repeating: -1, count: groups.live.count)
        dimension = ws.dimension
        touchStart = ws.touchLog.count
        watermark = ws.state.checked[scope]
        if var t = ws.derived.tagIndexes.removeValue(forKey: scope) {
            t.update(ws.touchLog, ws.state, ws.occurrences)
            tagIndex = t
        }
        let c = ws.config
        var h = Stamp()
        for x in [c.quantise(c.tauRep), c.quantise(c.tauSup), c.quantise(c.delta), c.candidateK, c.exemplars, c.scoreScale] { h.mix(Int64(x)) }
        configStamp = h.value
    }

    mutating func profile(_ gid: Int64, _ ws: Workspace) -> GroupProfile? {
        if let last = lastProfile, last.id == gid { return last }
        if let p = profiles[gid] { lastProfile = p; return p }
        if noProfile.contains(gid) { return nil }
        guard let g = ws.state.groups[gid], let p = GroupProfile(g, ws.occurrences) else { noProfile.insert(gid); return nil }
        profiles[gid] = p
        return p
    }

    /// Profiles that are still current, for the workspace cache.
    var current: [Int64: GroupProfile] { profiles }

    /// Group `gid` changed (and settled): forget its profile, write its new unit centroid into its
    /// row and move its tags. (A live group stays live: its medoid is a member, never evicted.)
    mutating func invalidate(_ gid: Int64, _ ws: Workspace) {
        if lastProfile?.id == gid { lastProfile = nil }
        profiles.removeValue(forKey: gid)
        noProfile.remove(gid)
        if let j = live.sortedPosition(of: gid) {
            let u = ScopeGroups.unit(ws.state.groups[gid]!, ws.occurrences, d: dimension)
            if ownMatrix { centroids.setRow(j, u) } else { overrides[j] = u }
            rowChangedAt[j] = ws.touchLog.count
        }
        tagIndex?.set(gid, ws.state, ws.occurrences)
    }

    /// Makes the centroid matrix the context's own and current in every row (for GEMM).
    mutating func ensureCentroids() {
        guard !ownMatrix else { return }
        ownMatrix = true
        for (j, u) in overrides { centroids.setRow(j, u) }
        overrides = [:]
    }

    /// x · (current unit centroid of live group j).
    func exactScore(_ x: UnsafePointer<Float>, _ j: Int) -> Float {
        if let u = overrides[j] { return u.withUnsafeBufferPointer { Vectors.dot(x, $0.baseAddress!, count: dimension) } }
        return centroids.storage.withUnsafeBufferPointer { Vectors.dot(x, $0.baseAddress! + j * dimension, count: dimension) }
    }

    mutating func tags(_ ws: Workspace) -> [String: Set<Int64>] {
        if tagIndex == nil { tagIndex = TagIndex(scope, live: live, ws.state, ws.occurrences, at: ws.touchLog.count) }
        return tagIndex!.groups
    }

    /// `changed(since:)` answers by version, valid while `ws.touchLog` has `changedMemoAt` entries.
    private var changedMemo: [Int: [Int64]?] = [:]
    private var changedMemoAt = -1

    /// `changed(since:)`, remembered: pending occurrences mostly share a handful of certificate versions.
    mutating func changedMemoised(since version: Int, _ ws: Workspace, limit: Int) -> [Int64]? {
        if changedMemoAt != ws.touchLog.count { changedMemo = [:]; changedMemoAt = ws.touchLog.count; lastAsked = nil }
        if let last = lastAsked, last.version == version { return last.answer }
        let answer: [Int64]?
        if let known = changedMemo[version] { answer = known } else {
            answer = changed(since: version, ws, limit: limit)
            changedMemo[version] = answer
        }
        lastAsked = (version, answer)
        return answer
    }

    /// The last `changedMemoised` question and answer (most pending marks ask the same one).
    private var lastAsked: (version: Int, answer: [Int64]?)?

    /// The certificate stamp of an occurrence whose record is cannot-linked to none (set once).
    var plainStamp: Int?

    /// Groups of the scope changed after `version`, ascending; nil when there are more than `limit`.
    mutating func changed(since version: Int, _ ws: Workspace, limit: Int) -> [Int64]? {
        var out = Set<Int64>()
        // A few versions asked about (a placement): one scan of the start values each; many (a
        // build's later passes): sort them once and search.
        changedQueries += 1
        if changeLog == nil && changedQueries <= Self.scansBeforeSorting {
            for j in changedAtStart.indices where changedAtStart[j] > version {
                out.insert(order[j])
                if out.count > limit { return nil }
            }
        } else {
            if changeLog == nil {
                changeLog = zip(changedAtStart, order).map { (at: $0, gid: $1) }.sorted { $0.at != $1.at ? $0.at < $1.at : $0.gid < $1.gid }
            }
            let changeLog = changeLog!
            let lo = SortedPosition.first(in: changeLog.count) { changeLog[$0].at > version }
            for e in changeLog[lo...] { out.insert(e.gid); if out.count > limit { return nil } }
        }
        for e in ws.touchLog[touchStart...] where e.at > version {
            guard ws.state.groups[e.gid]?.scope == scope else { continue }
            out.insert(e.gid)
            if out.count > limit { return nil }
        }
        return out.sorted()
    }
}

/// FNV-1a, for certificate stamps (deterministic across runs and machines).
struct Stamp {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    mutating func mix(_ x: Int64) {
        var v = UInt64(bitPattern: x)
        for _ in 0..<8 { h = (h ^ (v & 0xff)) &* 0x100_0000_01b3; v >>= 8 }
    }
    mutating func mix(_ s: String) {
        for b in s.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        h = (h ^ 0xff) &* 0x100_0000_01b3
    }
    var value: UInt64 { h }
    /// The stamp as a non-negative integer below 2^53, the range a JSON number (a Double) holds
    /// exactly: stamps are kept in the stored pending marks.
    var stored: Int { Int(truncatingIfNeeded: h & Stamp.storedMask) }
    static let storedMask: UInt64 = (1 << 53) - 1
}
