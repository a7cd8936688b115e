// An app's view of Kindred as a library: only the public KindredKit API.
//   kindred-kit-example PATH.sqlite
// Loads a few dream entries, searches them, finds their recurring pattern for dreams only, shows a
// refused request and a cancelled one. Exits 1 if anything is not as expected.
import Foundation
import KindredKit

func check(_ ok: Bool, _ what: String) {
    guard ok else {
        FileHandle.standardError.write(Data("kindred-kit-example: \(what)\n".utf8))
        exit(1)
    }
}

let path = CommandLine.arguments.dropFirst().first ?? NSTemporaryDirectory() + "kindred-kit-example.sqlite"
let kindred = try Kindred(databasePath: path)

let entries: [RecordInput] = [
    RecordInput(id: "d1", revision: 1, text: "I kept missing the train at the station.", kind: "dream", date: "2024-03-01"),
    RecordInput(id: "d2", revision: 1, text: "The train left without me while I ran along the platform.", kind: "dream", date: "2024-03-09"),
    RecordInput(id: "d3", revision: 1, text: "Missed my train again and watched it go.", kind: "dream", date: "2024-03-20"),
    RecordInput(id: "n1", revision: 1, text: "Booked train tickets to Lyon for the conference.", kind: "note", date: "2024-03-21"),
]
let upserted = try await kindred.send(RecordsUpsert(owner: "me", records: entries, waitForIndex: true))
print("upserted:", upserted.results.map { "\($0.id) \($0.status)" }.joined(separator: ", "), "— indexed:", upserted.indexed ?? false)

let hits = try await kindred.send(SearchQuery(owner: "me", text: "the dream where I missed a train", limit: 3, filters: SearchFilters(kinds: ["dream"])))
for hit in hits.results { print("hit", hit.id, String(format: "%.3f", hit.score), hit.passage.text) }
check(Set(hits.results.map(\.id)) == ["d1", "d2", "d3"], "search found \(hits.results.map(\.id))")

for id in ["d1", "d2", "d3", "n1"] {
    _ = try await kindred.send(OccurrencesPut(owner: "me", recordId: id, revision: 1, occurrences: [
        OccurrenceInput(category: "object", description: "a train", excerpt: "train")]))
}
let steps = ProgressLog()
let refresh = try await kindred.send(PatternsRefresh(owner: "me"), progress: { steps.add($0) })
print("refresh: \(refresh.recordsGrouped) records grouped into \(refresh.activeGroups) groups; progress \(steps.kinds.map(\.rawValue))")
check(refresh.occurrences == refresh.occurrencesInGroups + refresh.pending, "refresh counts do not add up")
check(steps.kinds.first == .begin && steps.kinds.last == .end, "progress \(steps.kinds.map(\.rawValue))")

let dreams = try await kindred.send(PatternsFindings(owner: "me", kinds: ["dream"], limit: 1, evidenceLimit: 2))
if let f = dreams.findings.first {
    print("finding:", f.generatedLabel, "—", f.summary, "(+\(f.moreEvidence) more)")
}
check(dreams.eligibleRecords == 3, "dream denominator \(dreams.eligibleRecords)")

do {
    _ = try await kindred.send(SearchQuery(owner: "me", text: "train", limit: 5000))
    check(false, "a limit of 5000 was accepted")
} catch let e as KindredError {
    print("refused:", e.code == .limitExceeded ? "limit exceeded" : "\(e.code)", "field", e.field ?? "-")
    check(e.code == .limitExceeded && e.field == "limit", "\(e)")
}

// Cancelling the task cancels the request.
let rebuild = Task { try await kindred.send(IndexRebuild()) }
rebuild.cancel()
switch await rebuild.result {
case .failure(let e) where e is CancellationError: print("rebuild cancelled")
case .failure(let e): check(false, "rebuild failed: \(e)")
case .success(let r): print("rebuild finished before the cancellation reached it: \(r.reembedded) re-embedded")
}
kindred.close()
print("ok")

final class ProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [KindredProgress] = []
    func add(_ p: KindredProgress) { lock.lock(); values.append(p); lock.unlock() }
    var kinds: [KindredProgress.Kind] { lock.lock(); defer { lock.unlock() }; return values.map(\.kind) }
}
