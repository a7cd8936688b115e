import Foundation
import Synchronization
import Testing
import KindredKit

/// The library through its public API only (no `@testable`): typed requests and results, the wire's
/// validation and errors, progress and cancellation through Swift concurrency. Client vectors and no
/// model, so the suite needs no model files.
@Suite struct KindredKitTests {
    static func open(_ settings: [String: String] = [:]) throws -> (Kindred, String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("kindredkit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent("k.sqlite").path
        return (try Kindred(databasePath: path, settings: ["embedder.provider": "none"].merging(settings) { $1 }), path)
    }

    /// A unit vector along `axis`, nudged by `noise` on the next axis.
    static func axis(_ axis: Int, _ noise: Float = 0) -> [Float] {
        var v = [Float](repeating: 0, count: 384)
        v[axis] = 1
        v[(axis + 1) % 384] = noise
        return v
    }

    @Test func usageIsTypedAndEmptyWithoutARemoteProvider() async throws {
        let (k, _) = try Self.open(["usage.dailyCallLimit": "3"])
        defer { k.close() }
        let usage = try await k.send(UsageDaily(owner: "me", from: "2026-01-01"))
        #expect(usage.owner == "me")
        #expect(usage.days.isEmpty)
        #expect(usage.limits.dailyCallLimit == 3)
        #expect(usage.limits.dailyCharacterLimit == nil)
        await #expect(throws: KindredError.self) { try await k.send(UsageDaily(owner: "me", from: "January")) }
    }

    @Test func typedRequestsAndResults() async throws {
        let (k, _) = try Self.open()
        defer { k.close() }
        let up = try await k.send(RecordsUpsert(owner: "me", records: [
            RecordInput(id: "a", revision: 1, text: "Dentist on Thursday.", kind: "note", tags: ["health"], metadata: ["mood": .number(3)], vector: Self.axis(0)),
            RecordInput(id: "b", revision: 1, text: "Train to Lyon.", kind: "note", vector: Self.axis(1)),
        ]))
        #expect(up.results.map(\.status) == ["created", "created"])
        let hits = try await k.send(SearchQuery(owner: "me", vector: Self.axis(0, 0.1), limit: 1))
        #expect(hits.results.map(\.id) == ["a"] && hits.mode == "semantic")
        let got = try await k.send(RecordsGet(owner: "me", id: "a", passages: true))
        #expect(got.record.metadata["mood"] == .number(3) && got.vector == "client" && got.indexed)
        #expect(got.passageList?.map(\.text) == ["Dentist on Thursday."] && got.passageList?.first?.vector == true)
        let status = try await k.send(IndexStatus(owner: "me"))
        #expect(status.records == 2 && status.embedder.available == false)
        #expect(k.methods.contains("patterns/findings") && k.methods.contains("records/upsert"))
        let deleted = try await k.send(RecordsDelete(owner: "me", ids: ["b", "zz"]))
        #expect(deleted.deleted == ["b"] && deleted.missing == ["zz"])
    }

    @Test func errorsAreTheWiresErrors() async throws {
        let (k, _) = try Self.open()
        defer { k.close() }
        await #expect { try await k.send(RecordsUpsert(owner: "me", records: [RecordInput(id: "x", revision: 0, text: "t")])) } throws: { e in
            (e as? KindredError)?.code == .invalidParams && (e as? KindredError)?.field == "records[0].revision"
        }
        await #expect { try await k.send(SearchQuery(owner: "me", text: "x", limit: 5000)) } throws: { e in
            (e as? KindredError)?.code == .limitExceeded && (e as? KindredError)?.data?["limit"]?.int == 1000
        }
        await #expect { try await k.send(RecordsGet(owner: "me", id: "nope")) } throws: { e in
            (e as? KindredError)?.code == .notFound && (e as? KindredError)?.data?["what"]?.string == "record"
        }
        await #expect { try await k.send(SearchQuery(owner: "me", text: "x", mode: "semantic")) } throws: { e in
            (e as? KindredError)?.code == .embedderUnavailable
        }
        // Params by name are read as strictly as on the wire: an unknown key is named.
        await #expect { try await k.send(method: "search/query", params: ["owner": "me", "text": "x", "filter": ["kinds": ["note"]]]) } throws: { e in
            (e as? KindredError)?.code == .invalidParams && (e as? KindredError)?.field == "filter"
        }
    }

    @Test func patternsWithProgressAndFindingsByKind() async throws {
        let (k, _) = try Self.open()
        defer { k.close() }
        // Near-identical vectors: each record's passage is an occurrence with the record's vector.
        // Three dreams group; the note, as alike as they are, stays apart (records of two kinds never
        // share a group made automatically).
        let records = (0..<4).map { i in
            RecordInput(id: "d\(i)", revision: 1, text: "Missed the train \(i).", kind: i < 3 ? "dream" : "note", date: "2024-03-0\(i + 1)",
                        vector: Self.axis(7, Float(i) * 0.01))
        }
        _ = try await k.send(RecordsUpsert(owner: "me", records: records))
        let seen = Seen()
        let r = try await k.send(PatternsRefresh(owner: "me"), progress: { seen.add($0.kind) })
        #expect(r.recordsGrouped == 3 && r.pending == 1 && r.occurrences == r.occurrencesInGroups + r.pending)
        #expect(seen.kinds.first == .begin && seen.kinds.last == .end)
        let f = try await k.send(PatternsFindings(owner: "me", kinds: ["dream"], evidenceLimit: 1))
        #expect(f.eligibleRecords == 3 && f.findings.first?.records == 3 && f.findings.first?.moreEvidence == 2)
        let g = try await k.send(PatternsGroup(owner: "me", groupId: try #require(f.findings.first?.groupId)))
        let label = try await k.send(PatternsSetLabel(owner: "me", groupId: g.group.groupId, version: g.group.version, label: "trains"))
        #expect(label.ok && label.label == "trains")
        await #expect { try await k.send(PatternsSetLabel(owner: "me", groupId: g.group.groupId, version: g.group.version - 1, label: nil)) } throws: { e in
            (e as? KindredError)?.code == .staleGroupVersion
        }
        let map = try await k.send(PatternsMap(owner: "me"))
        #expect(map.groups.map(\.groupId) == [g.group.groupId] && map.svg.hasPrefix("<?xml"))
        let timeline = try await k.send(PatternsTimeline(owner: "me", limit: 1))
        #expect(timeline.findings.first?.records == 3 && timeline.findings.first?.bins.map(\.records).reduce(0, +) == 3)
        #expect(try await k.send(PatternsFindings(owner: "me", kinds: ["note"])).findings.isEmpty)
    }

    @Test func occurrencesOfManyRecordsInOneCall() async throws {
        let (k, _) = try Self.open()
        defer { k.close() }
        _ = try await k.send(RecordsUpsert(owner: "me", records: [RecordInput(id: "a", revision: 1, text: "The strict teacher.", vector: Self.axis(3))]))
        let r = try await k.send(OccurrencesPut(owner: "me", items: [
            .init(recordId: "a", revision: 1, occurrences: [OccurrenceInput(category: "person", description: "teacher", excerpt: "strict teacher")]),
            .init(recordId: "zz", revision: 1, occurrences: []),
        ]))
        #expect(r.written == 1 && r.failed == 1)
        let items = try #require(r.items)
        #expect(items[0].occurrences?.first?.excerpt == "strict teacher" && items[1].error?.code == KindredError.Code.notFound.rawValue)
        await #expect { try await k.send(OccurrencesPut(owner: "me", items: [])) } throws: { e in
            (e as? KindredError)?.field == "items"
        }
    }

    @Test func cancellingTheTaskCancelsTheRequest() async throws {
        let (k, _) = try Self.open()
        defer { k.close() }
        let records = (0..<50).map { RecordInput(id: "r\($0)", revision: 1, text: "entry \($0)", vector: Self.axis($0 % 384)) }
        let task = Task {
            // Cancelled before it is sent: it never runs.
            withUnsafeCurrentTask { $0?.cancel() }
            return try await k.send(RecordsUpsert(owner: "me", records: records))
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try await k.send(IndexStatus(owner: "me")).records == 0)
        _ = try await k.send(RecordsUpsert(owner: "me", records: records))
        #expect(try await k.send(IndexStatus(owner: "me")).records == 50)
    }
}

final class Seen: Sendable {
    private let values = Mutex<[KindredProgress.Kind]>([])
    func add(_ k: KindredProgress.Kind) { values.withLock { $0.append(k) } }
    var kinds: [KindredProgress.Kind] { values.withLock { $0 } }
}
