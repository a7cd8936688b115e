import KindredCore
import JSONRPC
import Storage
import Synchronization

/// How many records of each owner are written in each language (`records.language`, migration 21),
/// read from SQLite and kept until the owner's writes since reach a tenth of what was counted
/// (a share that cannot change which language leads by much).
final class OwnerLanguages: Sendable {
    private struct Entry {
        var counts: [TextLanguage: Int]
        var total: Int
        var writesSince = 0
    }
    private let entries = Mutex<[String: Entry]>([:])

    func counts<E: Error>(owner: String, read: () throws(E) -> [TextLanguage: Int]) throws(E) -> [TextLanguage: Int] {
        if let e = entries.withLock({ $0[owner] }), e.writesSince == 0 || e.writesSince * 10 < e.total {
            return e.counts
        }
        let counts = try read()
        entries.withLock { $0[owner] = Entry(counts: counts, total: counts.values.reduce(0, +)) }
        return counts
    }

    func didWrite(owner: String, records: Int) {
        entries.withLock { if $0[owner] != nil { $0[owner]!.writesSince += records } }
    }
}

extension KindredService {
    /// The language a query is read in: the script's for scripts without spaces; among the
    /// languages of the owner's records, the one whose stopwords the query holds most; else the
    /// language most of the owner's records are in (nil when none is known: English's reading).
    /// An owner whose records are all in one language has every query read in it.
    func queryLanguage(owner: String, text: String) throws(ResponseError) -> TextLanguage? {
        let counts = try ownerLanguages.counts(owner: owner) { () throws(ResponseError) in try withReader { try $0.languageCounts(owner: owner) } }
        let owned = counts.keys.sorted { counts[$0]! != counts[$1]! ? counts[$0]! > counts[$1]! : $0 < $1 }
        if let detected = TextLanguage.detect(text, among: owned.isEmpty ? nil : owned) { return detected }
        return owned.first
    }

    /// Whether the embedder serves `language` (its model's declared languages; a model that
    /// declares none serves every language, as does an unknown language).
    func embedderServes(_ language: TextLanguage?) -> Bool {
        guard let language, let served = modelLanguages else { return true }
        return served.contains(language.rawValue)
    }
}
