import Grouping

/// The two JSON columns of an owner's `pattern_state` row: the pending watermarks
/// (`PatternState.checked`) and the background levels in force (`PatternState.levels`), each an
/// array of `Codable` rows in scope order, so that equal states give equal text.
enum PatternStateJSON {
    /// One watermark of `PatternState.checked`, as stored.
    private struct Checked: Codable {
        var owner: String
        var category: String
        var below: Int
        var at: Int
    }

    /// The watermarks as a JSON array ordered by scope (nil when there is none).
    static func checked(_ checked: [Scope: PendingWatermark]) -> String? {
        guard !checked.isEmpty else { return nil }
        let rows = checked.keys.sorted().map { Checked(owner: $0.owner, category: $0.category, below: checked[$0]!.below, at: checked[$0]!.at) }
        return try? PatternCodec.encode(rows)
    }

    /// The background levels in force (`PatternState.levels`), one row per scope, in scope order.
    private struct Level: Codable {
        var owner: String
        var category: String
        var level: Int
    }

    static func levels(_ levels: [Scope: Int]) -> String? {
        guard !levels.isEmpty else { return nil }
        return try? PatternCodec.encode(levels.keys.sorted().map { Level(owner: $0.owner, category: $0.category, level: levels[$0]!) })
    }

    static func decodeLevels(_ text: String) throws -> [Scope: Int] {
        var out: [Scope: Int] = [:]
        for r in try PatternCodec.decode([Level].self, text) { out[Scope(owner: r.owner, category: r.category)] = r.level }
        return out
    }

    static func decodeChecked(_ text: String) throws -> [Scope: PendingWatermark] {
        var out: [Scope: PendingWatermark] = [:]
        for r in try PatternCodec.decode([Checked].self, text) {
            out[Scope(owner: r.owner, category: r.category)] = PendingWatermark(below: r.below, at: r.at)
        }
        return out
    }
}
