/// Entries that lost their place (their file was deleted or renamed, or their section is gone),
/// by text: a new entry with the same text takes the id of the first one, so a renamed file, or a
/// section moved to another file, keeps its records' ids.
struct Orphans: Sendable {
    struct Orphan: Sendable, Equatable {
        let id: String
        let revision: Int64
    }

    private var byText: [String: [Orphan]] = [:]
    private(set) var count = 0

    mutating func add(id: String, text: String, revision: Int64) {
        byText[text, default: []].append(Orphan(id: id, revision: revision))
        count += 1
    }

    /// Takes the first orphan with `text`.
    mutating func take(text: String) -> Orphan? {
        guard var list = byText[text], !list.isEmpty else { return nil }
        let first = list.removeFirst()
        byText[text] = list.isEmpty ? nil : list
        count -= 1
        return first
    }

    /// Takes the orphan with `id` (its id given to a new entry by its place).
    mutating func take(id: String) -> Orphan? {
        guard count > 0 else { return nil }
        for (text, list) in byText {
            guard let i = list.firstIndex(where: { $0.id == id }) else { continue }
            var rest = list
            let o = rest.remove(at: i)
            byText[text] = rest.isEmpty ? nil : rest
            count -= 1
            return o
        }
        return nil
    }

    /// Every orphan's id, sorted.
    var ids: [String] { byText.values.flatMap { $0.map(\.id) }.sorted() }

    mutating func merge(_ other: Orphans) {
        for (text, list) in other.byText {
            byText[text, default: []] += list
            count += list.count
        }
    }
}
