import Foundation
import Testing
import KindredProtocol
import KindredKit

/// Each request type encodes the keys of its catalogue entry: the required ones always, the others
/// only when set, and nothing else.
@Suite struct RequestEncodingTests {
    static func keys<R: KindredRequest>(_ request: R) throws -> Set<String> {
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(request))
        return Set(try #require(object as? [String: Any]).keys)
    }

    /// Each method's request with only what its initialiser requires, and with every param set.
    static let requests: [(least: any KindredRequest, most: any KindredRequest)] = [
        (RecordsUpsert(owner: "o", records: []), RecordsUpsert(owner: "o", records: [], waitForIndex: true)),
        (RecordsDelete(owner: "o", ids: []), RecordsDelete(owner: "o", ids: ["a"])),
        (RecordsGet(owner: "o", id: "a"), RecordsGet(owner: "o", id: "a", passages: true)),
        (RecordsSetPermissions(owner: "o", id: "a", permissions: .init()),
         RecordsSetPermissions(owner: "o", id: "a", permissions: .init(search: true, patterns: false))),
        (RecordsPurgeTombstones(before: "2024-01-01"), RecordsPurgeTombstones(owner: "o", before: "2024-01-01")),
        (SearchQuery(owner: "o"), SearchQuery(owner: "o", text: "t", vector: [1], limit: 1, mode: "keyword", filters: .init())),
        (SearchSimilar(owner: "o", id: "a"), SearchSimilar(owner: "o", id: "a", limit: 1, filters: .init())),
        (IndexStatus(), IndexStatus(owner: "o")),
        (IndexRebuild(), IndexRebuild()),
        (OccurrencesPut(owner: "o", items: []), OccurrencesPut(owner: "o", recordId: "a", revision: 1, occurrences: [])),
        (PatternsRefresh(), PatternsRefresh(owner: "o")),
        (PatternsRebuild(), PatternsRebuild(owner: "o")),
        (PatternsFindings(owner: "o"),
         PatternsFindings(owner: "o", from: "a", to: "b", compareFrom: "c", compareTo: "d", category: "e", kinds: [], includeRelated: true,
                          limit: 1, cursor: "f", evidenceLimit: 1)),
        (PatternsGroup(owner: "o", groupId: 1), PatternsGroup(owner: "o", groupId: 1)),
        (PatternsThemes(owner: "o"), PatternsThemes(owner: "o", category: "c", kinds: [], from: "a", to: "b", limit: 1, cursor: "t")),
        (PatternsCorrect(owner: "o", correction: .themeDismiss(1)), PatternsCorrect(owner: "o", correction: .split(1, moveOut: [2]))),
        (PatternsCorrections(owner: "o"), PatternsCorrections(owner: "o")),
        (PatternsUndoCorrection(owner: "o", correctionId: 1), PatternsUndoCorrection(owner: "o", correctionId: 1)),
        (PatternsSetLabel(owner: "o", groupId: 1, version: 1, label: nil),
         PatternsSetLabel(owner: "o", groupId: 1, version: 1, label: "l", description: "d")),
        (PatternsMap(owner: "o"), PatternsMap(owner: "o", category: "c", from: "a", to: "b")),
        (PatternsTimeline(owner: "o"), PatternsTimeline(owner: "o", from: "a", to: "b", compareFrom: "c", compareTo: "d", category: "e", limit: 1)),
        (UsageDaily(owner: "o"), UsageDaily(owner: "o", from: "a", to: "b")),
    ]

    @Test func everyMethodOfTheCatalogueHasARequestHere() {
        #expect(Set(Self.requests.map { type(of: $0.least).method }) == Set(KindredMethods.all.map { $0.method }))
    }

    @Test func aRequestEncodesItsRequiredKeysAlwaysAndOnlyItsOwnKeys() throws {
        for (least, most) in Self.requests {
            let spec = type(of: least).spec
            // occurrences/put's least request is its `items` form (the other form is one record's three keys).
            let form: Set<String> = spec.method == "occurrences/put" ? ["items"] : []
            #expect(try Self.keys(least) == Set(spec.requiredKeys).union(form), "\(spec.method)")
            #expect(try Self.keys(most).isSuperset(of: spec.requiredKeys), "\(spec.method)")
            #expect(try Self.keys(most).isSubset(of: spec.keys), "\(spec.method)")
        }
    }

    @Test func everyParamOfTheCatalogueIsAPropertyOfItsRequest() throws {
        var set: [String: Set<String>] = [:]
        for (least, most) in Self.requests { set[type(of: least).method, default: []].formUnion(try Self.keys(least).union(Self.keys(most))) }
        // occurrences/put's two forms (`items`, one record) are its least and most requests above.
        for spec in KindredMethods.all.map({ $0.spec }) { #expect(set[spec.method] == Set(spec.keys), "\(spec.method)") }
    }

    @Test func nestedValuesEncodeOnlyTheirFields() throws {
        let record = RecordInput(id: "a", revision: 1, text: "t", kind: "k", date: "2024-01-01", tags: [], metadata: [:],
                                 permissions: .init(search: true, patterns: true), vector: [1])
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(record)) as? [String: Any])
        #expect(Set(object.keys) == Set(RecordInput.fields))
        #expect(Set(try #require(object["permissions"] as? [String: Any]).keys) == Set(RecordInput.Permissions.fields))
        let filters = SearchFilters(kinds: [], tags: [], tagsMode: "all", from: "a", to: "b", metadata: [:])
        #expect(Set(try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(filters)) as? [String: Any]).keys) == Set(SearchFilters.fields))
        let occurrence = OccurrenceInput(category: "c", description: "d", excerpt: "e", tags: [])
        #expect(Set(try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(occurrence)) as? [String: Any]).keys) == Set(OccurrenceInput.fields))
    }
}
