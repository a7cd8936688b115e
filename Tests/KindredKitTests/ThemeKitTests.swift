import Foundation
import Testing
import KindredKit

/// Themes through KindredKit's public API: typed result, refresh counts, theme fields of a group,
/// theme corrections' errors.
@Suite struct ThemeKitTests {
    @Test func themesAreTyped() async throws {
        let (k, _) = try KindredKitTests.open(["patterns.themes": "true"])
        defer { k.close() }
        _ = try await k.send(RecordsUpsert(owner: "me", records: (0..<6).map { i in
            RecordInput(id: "r\(i)", revision: 1, text: "entry \(i)", kind: "dream", vector: KindredKitTests.axis(i % 2, Float(i) * 0.01))
        }, waitForIndex: true))
        let refreshed = try await k.send(PatternsRefresh(owner: "me"))
        #expect(refreshed.activeThemes >= 0 && refreshed.themesCreated >= 0)
        let themes = try await k.send(PatternsThemes(owner: "me", kinds: ["dream"]))
        #expect(themes.eligibleRecords == 6)
        #expect(themes.total == themes.themes.count)
        for t in themes.themes { #expect(t.label.count <= 60 && t.groups.count >= 2) }
        let missing = await #expect(throws: KindredError.self) {
            try await k.send(PatternsCorrect(owner: "me", correction: .themeDismiss(999)))
        }
        #expect(missing?.code == .notFound)
        await #expect(throws: KindredError.self) { try await k.send(PatternsThemes(owner: "me", limit: 0)) }
    }
}
