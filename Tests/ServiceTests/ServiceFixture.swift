import Foundation
import KindredCore
import JSONRPC
@testable import Service

/// A service over a fresh SQLite file in a temp folder, with a tiny deterministic embedder.
final class ServiceFixture {
    let dir: URL
    let service: KindredService
    var path: String { dir.appendingPathComponent("k.sqlite").path }

    init(embedder: (any TextEmbedder)? = nil, dimension: Int = 8) throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("kindred-svc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        var config = Config()
        try config.set("index.dimension", .int(Int64(dimension)))
        service = try KindredService(config: config, databasePath: dir.appendingPathComponent("k.sqlite").path, embedder: embedder)
        // As in serve: keyword search ranks from the in-memory copy of the keyword index.
        try service.buildKeywordIndex()
    }

    deinit {
        service.close()
        try? FileManager.default.removeItem(at: dir)
    }

    func reopen(embedder: (any TextEmbedder)? = nil, dimension: Int = 8) throws -> KindredService {
        var config = Config()
        try config.set("index.dimension", .int(Int64(dimension)))
        return try KindredService(config: config, databasePath: path, embedder: embedder)
    }

    @discardableResult
    func call(_ method: String, _ params: JSONValue) throws -> JSONValue { try service.call(method, params) }

    func callError(_ method: String, _ params: JSONValue) -> ResponseError? {
        do {
            _ = try service.call(method, params)
            return nil
        } catch {
            return error
        }
    }

    func upsert(_ owner: String, _ records: [JSONValue]) throws -> [String] {
        try call("records/upsert", ["owner": .string(owner), "records": .array(records)])["results"]!.arrayValue!.map { $0["status"]!.stringValue! }
    }

    func searchIDs(_ owner: String, vector: [Float], limit: Int = 10, filters: JSONValue? = nil) throws -> [String] {
        var p: JSONObject = ["owner": .string(owner), "vector": .from(vector), "limit": .from(limit), "mode": "semantic"]
        if let filters { p["filters"] = filters }
        return try call("search/query", .object(p))["results"]!.arrayValue!.map { $0["id"]!.stringValue! }
    }
}

/// Record JSON with a one-hot-ish vector of dimension 8 pointing at `axis`.
func rec(_ id: String, rev: Int64 = 1, text: String = "some text", axis: Int? = nil, extra: JSONObject = [:]) -> JSONValue {
    var o: JSONObject = ["id": .string(id), "revision": .int(rev), "text": .string(text)]
    if let axis {
        var v = [Float](repeating: 0.01, count: 8)
        v[axis % 8] = 1
        o["vector"] = .from(v)
    }
    for (k, v) in extra { o[k] = v }
    return .object(o)
}

func axisVector(_ axis: Int) -> [Float] {
    var v = [Float](repeating: 0, count: 8)
    v[axis % 8] = 1
    return v
}

/// Embeds a text as counts of its letters a–h folded into 8 dimensions: crude but deterministic.
struct LetterEmbedder: TextEmbedder {
    var modelID = "letters"
    var dimension = 8
    func embed(_ texts: [String], isCancelled: () -> Bool) throws -> [[Float]] {
        texts.map { t in
            var v = [Float](repeating: 0.001, count: 8)
            for s in t.lowercased().unicodeScalars where s.value >= 97 && s.value < 123 { v[Int(s.value - 97) % 8] += 1 }
            return v
        }
    }
}
