import Dispatch
import KindredCore
import JSONRPC
import KeywordIndex
import Storage

/// The in-memory copy of the FTS5 keyword index that keyword and hybrid search rank from (same BM25
/// ranking, without scoring every matching record, and no SQLite work until the final top k). SQLite
/// stays the source of truth: the copy is built from the records table with FTS5's own tokenizer
/// and follows every write after it commits, under the writer lock. Until it is built (and for
/// queries whose words FTS5 would read as a phrase), keyword search asks FTS5 directly.
final class KeywordMirror: @unchecked Sendable {
    private let tokenizer: KeywordTokenizer?
    private let lock = ReadWriteLock()
    private var index: KeywordIndex?

    init() {
        tokenizer = try? KeywordTokenizer()
    }

    var isReady: Bool { lock.read { index != nil } }

    /// Builds the copy from every record of `store`. The caller holds the writer lock, so no write
    /// can fall between the read and the moment the copy starts following writes.
    func build(from store: RecordStore) throws {
        guard let tokenizer else { return }
        let fresh = KeywordIndex()
        try store.forEachKeywordRow { rowid, owner, text, searchable in
            fresh.put(rowid: rowid, owner: owner, terms: tokenizer.documentTerms(text), searchable: searchable)
        }
        lock.write { index = fresh }
    }

    /// Records written (created or changed): the terms of their index text (`IndexText`, as the
    /// store wrote it) replace the old ones. A record with empty text leaves the copy, as it leaves
    /// FTS5 (migration 15).
    func didWrite(owner: String, _ records: [(rowid: Int64, text: String, searchable: Bool)]) {
        guard let tokenizer, isReady, !records.isEmpty else { return }
        let terms = records.map { $0.text.isEmpty ? [] : tokenizer.documentTerms(IndexText($0.text).indexed($0.text)) }
        lock.write {
            guard let index else { return }
            for (r, t) in zip(records, terms) {
                if r.text.isEmpty { index.remove(rowid: r.rowid) } else { index.put(rowid: r.rowid, owner: owner, terms: t, searchable: r.searchable) }
            }
        }
    }

    func didDelete(rowids: [Int64]) {
        guard !rowids.isEmpty else { return }
        lock.write { if let index { for r in rowids { index.remove(rowid: r) } } }
    }

    func didSetSearch(rowid: Int64, _ searchable: Bool) {
        lock.write { index?.setSearchable(rowid: rowid, searchable) }
    }

    /// The query's terms as FTS5 reads each quoted term, when every one is a single term (otherwise
    /// nil: FTS5 would match a phrase, which the copy does not rank).
    func phrases(_ terms: [String]) -> [[UInt8]]? {
        guard let tokenizer else { return nil }
        var out: [[UInt8]] = []
        out.reserveCapacity(terms.count)
        for t in terms {
            let read = tokenizer.queryTerms(t)
            guard read.count == 1 else { return nil }
            out.append(read[0])
        }
        return out
    }

    /// The best `limit` hits of `owner`, or nil when the copy is not built.
    func search(owner: String, phrases: [[UInt8]], limit: Int, allowed: Set<Int64>?) -> [KeywordHit]? {
        lock.read { index?.search(owner: owner, phrases: phrases, limit: limit, allowed: allowed) }
    }
}

extension KindredService {
    /// Starts building the keyword copy in the background (`serve` does this at start); searches
    /// ask FTS5 until it is ready. The build holds the writer lock: at 100 000 short records it takes
    /// about a second, during which writes wait.
    public func startKeywordIndex() {
        guard settings.search.keywordIndex else { return }
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            do { try buildKeywordIndex() } catch { worker.report("keyword index copy not built (\(error)); keyword search asks SQLite FTS5") }
        }
    }

    /// Builds the keyword copy now (tests; `startKeywordIndex` in the background).
    func buildKeywordIndex() throws {
        try writer.with { store in try keywords.build(from: store) }
    }

    /// BM25 keyword hits of `owner`, best first: from the in-memory copy when it is ready and reads
    /// the query as FTS5 does, else from FTS5. The terms are read in `terms.language`. `allowed` is the filter mask when the caller has one.
    func keywordHits(owner: String, terms: KeywordTerms, filters: SearchFilters, allowed: Set<Int64>?, limit: Int) throws(ResponseError)
        -> [(rowid: Int64, score: Double)]
    {
        if terms.isEmpty || limit <= 0 { return [] }
        let indexed = terms.terms.map { KeywordText.queryTerm($0, language: terms.language) }
        if settings.search.keywordIndex, keywords.isReady, let phrases = keywords.phrases(indexed) {
            var mask = allowed
            if mask == nil, !filters.isEmpty { mask = try withReader { try $0.filteredRowids(owner: owner, filters: filters) } }
            if let hits = keywords.search(owner: owner, phrases: phrases, limit: limit, allowed: mask) {
                return hits.map { ($0.rowid, $0.score) }
            }
        }
        return try withReader { try $0.keywordSearch(owner: owner, terms: terms, filters: filters, limit: limit) }
    }
}
