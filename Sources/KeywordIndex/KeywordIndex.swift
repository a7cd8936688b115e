/// An in-memory copy of the keyword index: per owner, one posting list per term, and the table-wide
/// counts BM25 needs (rows, tokens, rows per term over every owner, as FTS5 counts them). It is fed
/// the terms FTS5 stores for each record (the caller tokenizes with FTS5's own tokenizer), so it
/// ranks exactly as FTS5's bm25() — `KeywordIndex.rankAll` is that rule written plainly, and
/// `search` gets the same top k without scoring every matching record (MaxScore, see Search.swift).
///
/// Every record of the table that has text is in it (its length and terms count in the
/// statistics); records with search off are kept but never returned. Replacing or removing a record leaves its old postings
/// in place, marked dead, until enough are dead to rebuild the lists. Not thread-safe: callers
/// serialise writes and may run searches concurrently under a read lock.
public final class KeywordIndex {
    /// Term bytes → term number.
    var termNumbers: [[UInt8]: Int32] = [:]
    /// Live rows holding each term, over every owner (FTS5's n(p)).
    var rowsWithTerm: [Int32] = []
    /// Live rows (FTS5's N) and their tokens in total.
    public private(set) var rows = 0
    public private(set) var tokens = 0

    // Per document slot; a slot is never reused, so lists stay in slot order.
    var slotRowid: [Int64] = []
    var slotLength: [Int32] = []
    var slotLive: [Bool] = []
    var slotSearchable: [Bool] = []
    var slotOwner: [Int32] = []
    /// Distinct terms of each live slot with their frequencies (to undo its counts and to rebuild).
    var slotTerms: [[(term: Int32, frequency: Int32)]] = []
    var slotOf: [Int64: Int32] = [:]
    var deadSlots = 0
    /// Dead slots from which the lists are rebuilt (once they also outnumber the live ones).
    var compactionMinimum = 1024

    var ownerNumbers: [String: Int32] = [:]
    var ownerLists: [[Int32: PostingList]] = []

    public init() {}

    public var count: Int { slotOf.count }
    public func contains(rowid: Int64) -> Bool { slotOf[rowid] != nil }

    /// Inserts or replaces the record at `rowid` with the terms FTS5 stores for its text.
    public func put(rowid: Int64, owner: String, terms: [[UInt8]], searchable: Bool) {
        remove(rowid: rowid)
        let ownerNumber = ownerNumbers[owner] ?? {
            let n = Int32(ownerLists.count)
            ownerNumbers[owner] = n
            ownerLists.append([:])
            return n
        }()
        var counts: [Int32: Int32] = [:]
        for t in terms {
            let number = termNumbers[t] ?? {
                let n = Int32(rowsWithTerm.count)
                termNumbers[t] = n
                rowsWithTerm.append(0)
                return n
            }()
            counts[number, default: 0] += 1
        }
        let slot = Int32(slotRowid.count)
        let length = Int32(terms.count)
        let distinct = counts.sorted { $0.key < $1.key }.map { (term: $0.key, frequency: $0.value) }
        slotRowid.append(rowid)
        slotLength.append(length)
        slotLive.append(true)
        slotSearchable.append(searchable)
        slotOwner.append(ownerNumber)
        slotTerms.append(distinct)
        slotOf[rowid] = slot
        for (term, frequency) in distinct {
            rowsWithTerm[Int(term)] += 1
            ownerLists[Int(ownerNumber)][term, default: PostingList()].append(slot: slot, frequency: frequency, length: length)
        }
        rows += 1
        tokens += Int(length)
    }

    /// Removes the record at `rowid`; returns whether it was there.
    @discardableResult
    public func remove(rowid: Int64) -> Bool {
        guard let slot = slotOf.removeValue(forKey: rowid) else { return false }
        let s = Int(slot)
        for (term, _) in slotTerms[s] { rowsWithTerm[Int(term)] -= 1 }
        rows -= 1
        tokens -= Int(slotLength[s])
        slotLive[s] = false
        slotTerms[s] = []
        deadSlots += 1
        if deadSlots > compactionMinimum && deadSlots > slotOf.count { compact() }
        return true
    }

    /// Whether the record may appear in results (its counts stay either way, as in FTS5).
    public func setSearchable(rowid: Int64, _ searchable: Bool) {
        if let slot = slotOf[rowid] { slotSearchable[Int(slot)] = searchable }
    }

    /// Renumbers the live slots in their order and rebuilds every list without the dead postings.
    func compact() {
        var newRowid: [Int64] = [], newLength: [Int32] = [], newSearchable: [Bool] = [], newOwner: [Int32] = []
        var newTerms: [[(term: Int32, frequency: Int32)]] = []
        let live = slotOf.count
        newRowid.reserveCapacity(live); newLength.reserveCapacity(live); newSearchable.reserveCapacity(live)
        newOwner.reserveCapacity(live); newTerms.reserveCapacity(live)
        var lists = ownerLists.map { _ in [Int32: PostingList]() }
        for s in slotRowid.indices where slotLive[s] {
            let slot = Int32(newRowid.count)
            newRowid.append(slotRowid[s]); newLength.append(slotLength[s]); newSearchable.append(slotSearchable[s])
            newOwner.append(slotOwner[s]); newTerms.append(slotTerms[s])
            slotOf[slotRowid[s]] = slot
            for (term, frequency) in slotTerms[s] {
                lists[Int(slotOwner[s])][term, default: PostingList()].append(slot: slot, frequency: frequency, length: slotLength[s])
            }
        }
        slotRowid = newRowid; slotLength = newLength; slotSearchable = newSearchable; slotOwner = newOwner; slotTerms = newTerms
        slotLive = [Bool](repeating: true, count: newRowid.count)
        ownerLists = lists
        deadSlots = 0
    }

    /// FTS5's mean tokens per row.
    var averageLength: Double { Double(tokens) / Double(rows) }

    /// Whether `slot` may be returned for a search.
    @inline(__always)
    func eligible(_ slot: Int32, allowed: Set<Int64>?) -> Bool {
        let s = Int(slot)
        guard slotLive[s], slotSearchable[s] else { return false }
        if let allowed { return allowed.contains(slotRowid[s]) }
        return true
    }
}
