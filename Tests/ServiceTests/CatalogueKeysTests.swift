import Foundation
import Testing
import KindredCore
import KindredProtocol
import JSONRPC
@testable import Service

/// Each method's catalogue entry is derived from its request type and its `Result`
/// (`MethodSpec.init(_:for:)`). Held here to the entries as they were written by hand before
/// (`Fixtures/method-specs.json`): the same methods in the same order (a method added since is in no
/// fixture), the same params in the same order (the order an error lists them) with the same
/// required flags, and the same result fields; and the service's refusal of an unknown key lists
/// exactly those params.
@Suite struct CatalogueKeysTests {
    struct Entry: Codable, Equatable {
        struct Param: Codable, Equatable { var name: String; var required: Bool }
        var method: String
        var params: [Param]
        var result: [String]
    }

    static func fixture() throws -> [Entry] {
        let url = try #require(Bundle.module.url(forResource: "method-specs", withExtension: "json", subdirectory: "Fixtures"))
        return try JSONDecoder().decode([Entry].self, from: Data(contentsOf: url))
    }

    @Test func theDerivedEntriesAreTheHandWrittenOnes() throws {
        let before = try Self.fixture()
        // Methods added since are in no fixture: theirs is derived like every other.
        let now = KindredService.requestTypes.map { $0.spec }.filter { spec in before.contains { $0.method == spec.method } }
        #expect(now.map(\.method) == before.map(\.method))
        for (spec, entry) in zip(now, before) {
            #expect(spec.params.map { Entry.Param(name: $0.name, required: $0.required) } == entry.params, "\(spec.method)")
            // The result's fields are in the order the answer writes them (the `Result` type's),
            // which the hand-written lists did not always follow; which fields there are is what counts.
            #expect(Set(spec.result) == Set(entry.result), "\(spec.method)")
            #expect(spec.result.count == entry.result.count, "\(spec.method): a result field twice")
        }
    }

    /// The nested objects' keys, derived from their types too, are those written by hand before, in
    /// the same order (the order a refused key's error lists them).
    @Test func nestedObjectsAcceptTheKeysTheyDidBefore() {
        #expect(RecordInput.fields == ["id", "revision", "text", "kind", "date", "tags", "metadata", "permissions", "vector"])
        #expect(RecordInput.Permissions.fields == ["search", "patterns"])
        #expect(SearchFilters.fields == ["kinds", "tags", "tagsMode", "from", "to", "metadata"])
        #expect(OccurrenceInput.fields == ["category", "description", "excerpt", "tags"])
        #expect(OccurrencesPut.Item.fields == ["recordId", "revision", "occurrences"])
    }

    /// A param that must be sent though it may be null is `@Nullable` in its type: optional to the
    /// reader, required in its entry (`patterns/setLabel`'s `label`, where null clears the label).
    @Test func aNullableParamIsRequiredInItsEntry() throws {
        guard case .object(let fields, _) = try Shape.of(PatternsSetLabel.self).shape else { Issue.record("not an object"); return }
        let label = try #require(fields.first { $0.name == "label" })
        #expect(label.nullable && !label.required)
        #expect(PatternsSetLabel.spec.params.first { $0.name == "label" }?.required == true)
        #expect(fields.filter(\.nullable).map(\.name) == ["label"])
    }

    /// An unknown key is refused naming every param of the method, in the entry's order, and `workDoneToken`.
    @Test func anUnknownKeyIsRefusedListingTheHandWrittenParams() throws {
        let f = try ServiceFixture()
        for entry in try Self.fixture() {
            let e = try #require(f.callError(entry.method, ["unknownKey": 1]), "\(entry.method)")
            let accepted = entry.params.map(\.name) + ["workDoneToken"]
            #expect(e.data?["accepted"] == .from(accepted), "\(entry.method)")
            #expect(e.message == "invalid params: unknownKey: is not a parameter of \(entry.method) (accepted: \(accepted.joined(separator: ", ")))",
                    "\(entry.method): \(e.message)")
        }
    }
}
