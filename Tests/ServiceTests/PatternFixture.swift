import Foundation
import KindredCore
import JSONRPC
import Storage
@testable import Service

/// A lookup-table embedder: tests decide every similarity exactly. Unknown texts get a vector on
/// the last axis, nudged by a hash of the text.
struct TableEmbedder: TextEmbedder {
    var modelID = "table"
    var dimension = 8
    var table: [String: [Float]]

    func embed(_ texts: [String], isCancelled: () -> Bool) throws -> [[Float]] {
        texts.map { t in
            if let v = table[t] { return v }
            var v = [Float](repeating: 0, count: dimension)
            v[dimension - 1] = 1
            v[Int(t.unicodeScalars.reduce(UInt32(7)) { ($0 &* 31) &+ $1.value } % UInt32(dimension - 1))] = 0.5
            return v
        }
    }
}

/// Themes of 8-d test vectors: members of one theme have cosine ≈ 0.99, different themes ≈ 0.
enum Theme {
    static func vector(_ axis: Int, _ nudges: [Int]) -> [Float] {
        var v = [Float](repeating: 0, count: 8)
        v[axis] = 1
        for n in nudges { v[n] += 0.1 }
        return v
    }

    static let table: [String: [Float]] = [
        "teacher 1": vector(0, [1]), "teacher 2": vector(0, [2]), "teacher 3": vector(0, [3]),
        "teacher 4": vector(0, [1, 2]), "teacher 5": vector(0, [2, 3]), "teacher 6": vector(0, [1, 3]),
        "dog 1": vector(4, [5]), "dog 2": vector(4, [6]), "dog 3": vector(4, [7]),
        "I missed the train.": vector(5, [6]), "The train left without me.": vector(5, [7]),
        "Again the train was gone.": vector(5, [6, 7]),
    ]
}

/// A service over a fresh SQLite file, with pattern settings for tests (no passage occurrences
/// unless asked) and the table embedder.
final class PatternFixture {
    let dir: URL
    private(set) var service: KindredService
    var path: String { dir.appendingPathComponent("k.sqlite").path }
    let passages: Bool

    init(embedder: (any TextEmbedder)? = TableEmbedder(table: Theme.table), passages: Bool = false) throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("kindred-pat-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        self.passages = passages
        service = try KindredService(config: Self.config(passages), databasePath: dir.appendingPathComponent("k.sqlite").path, embedder: embedder)
    }

    static func config(_ passages: Bool) throws -> Config {
        var config = Config()
        try config.set("index.dimension", .int(8))
        try config.set("patterns.passageOccurrences", .bool(passages))
        return config
    }

    deinit {
        service.close()
        try? FileManager.default.removeItem(at: dir)
    }

    /// Closes the service and opens a new one on the same file.
    func reopen(embedder: (any TextEmbedder)? = TableEmbedder(table: Theme.table)) throws {
        service.close()
        service = try KindredService(config: Self.config(passages), databasePath: path, embedder: embedder)
    }

    @discardableResult
    func call(_ method: String, _ params: JSONValue, context: RequestContext? = nil) throws -> JSONValue {
        try service.call(method, params, context: context)
    }

    func callError(_ method: String, _ params: JSONValue, context: RequestContext? = nil) -> ResponseError? {
        do {
            _ = try service.call(method, params, context: context)
            return nil
        } catch {
            return error
        }
    }

    func upsert(_ id: String, rev: Int64 = 1, text: String, date: String = "2024-05-01", owner: String = "o", extra: JSONObject = [:]) throws {
        var o: JSONObject = ["id": .string(id), "revision": .int(rev), "text": .string(text), "date": .string(date)]
        for (k, v) in extra { o[k] = v }
        try call("records/upsert", ["owner": .string(owner), "records": [.object(o)]])
    }

    /// A record whose text contains `excerpt`, with one occurrence described by `description`.
    /// Returns the occurrence id.
    @discardableResult
    func record(_ id: String, _ description: String, category: String = "person", rev: Int64 = 1,
                date: String = "2024-05-01", owner: String = "o") throws -> Int64 {
        let text = "Entry \(id) rev \(rev): I met someone, \(description), at school."
        try upsert(id, rev: rev, text: text, date: date, owner: owner)
        return try put(id, rev: rev, [(category, description, description)], owner: owner)[0]
    }

    /// Puts occurrences; returns the accepted occurrence ids.
    @discardableResult
    func put(_ id: String, rev: Int64 = 1, _ items: [(category: String, description: String, excerpt: String)], owner: String = "o") throws -> [Int64] {
        let occ: [JSONValue] = items.map { ["category": .string($0.category), "description": .string($0.description), "excerpt": .string($0.excerpt)] }
        let r = try call("occurrences/put", ["owner": .string(owner), "recordId": .string(id), "revision": .int(rev), "occurrences": .array(occ)])
        return r["occurrences"]!.arrayValue!.map { $0["occurrenceId"]!.intValue! }
    }

    @discardableResult
    func refresh(owner: String? = "o") throws -> JSONValue {
        try call("patterns/refresh", owner.map { ["owner": .string($0)] } ?? [:])
    }

    func findings(_ extra: JSONObject = [:], owner: String = "o") throws -> JSONValue {
        var p: JSONObject = ["owner": .string(owner)]
        for (k, v) in extra { p[k] = v }
        return try call("patterns/findings", .object(p))
    }

    func group(_ id: Int64, owner: String = "o") throws -> JSONValue {
        try call("patterns/group", ["owner": .string(owner), "groupId": .int(id)])["group"]!
    }

    /// Record ids of every group (active or dormant) holding a member, by group id.
    func groupRecords(owner: String = "o") throws -> [Int64: Set<String>] {
        var out: [Int64: Set<String>] = [:]
        let db = try RecordStore(readerFor: path).database
        let ids = try db.query("SELECT id FROM pattern_groups WHERE owner = ? ORDER BY id", [.text(owner)]) { $0.int(0) }
        for id in ids {
            let members = try group(id, owner: owner)["members"]!.arrayValue!
            out[id] = Set(members.compactMap { $0["recordId"]?.stringValue })
        }
        return out
    }

    /// Every persisted pattern row, as text, for comparing states.
    func patternRows() throws -> [String] {
        let db = try RecordStore(readerFor: path).database
        let groups = try db.query("SELECT owner, id, category, state, version, label, label_description, body FROM pattern_groups ORDER BY owner, id") {
            "\($0.text(0) ?? "")|\($0.int(1))|\($0.text(2) ?? "")|\($0.text(3) ?? "")|\($0.int(4))|\($0.text(5) ?? "-")|\($0.text(6) ?? "-")|\($0.text(7) ?? "")"
        }
        let states = try db.query("SELECT owner, next_group_id, groups_version, pending_checked FROM pattern_state ORDER BY owner") {
            "\($0.text(0) ?? "")|\($0.int(1))|\($0.int(2))|\($0.text(3) ?? "-")"
        } + (try db.query("SELECT owner FROM pattern_state ORDER BY owner") { $0.text(0) ?? "" }.flatMap { owner in
            try RecordStore(readerFor: path).pendingMarkRows(owner: owner).map { "\(owner)|p\($0)" }
        })
        let occurrences = try db.query("SELECT id, record_id, record_revision, category, excerpt, index_version FROM occurrences ORDER BY id") {
            "\($0.int(0))|\($0.text(1) ?? "")|\($0.int(2))|\($0.text(3) ?? "")|\($0.text(4) ?? "")|\($0.text(5) ?? "-")"
        }
        let corrections = try db.query("SELECT id, owner, body, undone FROM pattern_corrections ORDER BY id") {
            "\($0.int(0))|\($0.text(1) ?? "")|\($0.text(2) ?? "")|\($0.int(3))"
        }
        return groups + ["--"] + states + ["--"] + occurrences + ["--"] + corrections
    }
}
