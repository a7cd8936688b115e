import Foundation
import Testing
import KindredCore
@testable import Storage

@Suite struct VerdictStoreTests {
    let version = IndexVersion(model: "m", dimension: 2)

    func verdict(_ occurrence: Int64, group: (id: Int64, version: Int)?, seed: Int64? = nil, match: Bool, label: String? = nil) -> StoredVerdict {
        StoredVerdict(occurrence: occurrence, recordRevision: 1, group: group, seed: seed, match: match, sharedElement: match ? "a station" : "",
                      difference: "calm", label: label, judge: "client", decidedAt: "2026-01-01T00:00:00Z")
    }

    @Test func verdictsAreKeptPerQuestionAndGoWithTheirOccurrence() throws {
        let dir = TempDirectory()
        let store = try RecordStore(path: dir.path("k.sqlite"))
        _ = try store.upsert(owner: "o", records: [Record(id: "a", revision: 1, text: "x"), Record(id: "b", revision: 1, text: "y")], indexVersion: version)
        func occurrences(_ id: String) throws -> [Int64] {
            let r = try #require(try store.get(owner: "o", id: id))
            return try store.insertOccurrences(owner: "o", record: r.rowid, recordID: id, revision: 1, [
                NewOccurrence(source: "client", category: "c", description: id, excerpt: id, start: 0, end: 1, tags: [], vector: [1, 0]),
            ], indexVersion: version)
        }
        let a = try occurrences("a")[0], b = try occurrences("b")[0]
        try store.storeVerdict(owner: "o", verdict(a, group: (1, 3), match: false))
        try store.storeVerdict(owner: "o", verdict(a, group: nil, seed: b, match: true, label: "L"))
        // Another version of the group, another revision of the record: other questions.
        #expect(try store.verdict(owner: "o", occurrence: a, recordRevision: 1, group: (1, 3), seed: nil)?.match == false)
        #expect(try store.verdict(owner: "o", occurrence: a, recordRevision: 1, group: (1, 4), seed: nil) == nil)
        #expect(try store.verdict(owner: "o", occurrence: a, recordRevision: 2, group: (1, 3), seed: nil) == nil)
        #expect(try store.verdict(owner: "other", occurrence: a, recordRevision: 1, group: (1, 3), seed: nil) == nil)
        #expect(try store.verdict(owner: "o", occurrence: a, recordRevision: 1, group: nil, seed: b) == verdict(a, group: nil, seed: b, match: true, label: "L"))
        // Asked again (a refresh rolled back): replaced, not doubled.
        try store.storeVerdict(owner: "o", verdict(a, group: (1, 3), match: true))
        #expect(try store.verdict(owner: "o", occurrence: a, recordRevision: 1, group: (1, 3), seed: nil)?.match == true)
        #expect(try store.verdictCounts(owner: "o") == (2, 2))
        // Deleting the seed's representative's record takes its verdicts along; then the occurrence's own.
        _ = try store.delete(owner: "o", ids: ["b"])
        #expect(try store.verdictCounts(owner: "o") == (1, 1))
        _ = try store.delete(owner: "o", ids: ["a"])
        #expect(try store.verdictCounts(owner: "o") == (0, 0))
        // An answer that arrives after its occurrence (or the seed's representative) was deleted is dropped.
        #expect(try store.storeVerdictIfItsSidesRemain(owner: "o", verdict(a, group: (1, 3), match: true)) == false)
        #expect(try store.storeVerdictIfItsSidesRemain(owner: "o", verdict(a, group: nil, seed: b, match: true)) == false)
        #expect(try store.verdictCounts(owner: "o") == (0, 0))
        _ = try store.upsert(owner: "o", records: [Record(id: "c", revision: 1, text: "z")], indexVersion: version)
        let c = try occurrences("c")[0]
        #expect(try store.storeVerdictIfItsSidesRemain(owner: "o", verdict(c, group: (2, 1), match: true)) == true)
        #expect(try store.verdictCounts(owner: "o") == (1, 1))
    }
}
