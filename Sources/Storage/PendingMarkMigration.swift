import KindredCore

/// The code step of migration 22 (between `MigrationSQL.v22` and `v22After`, in its transaction):
/// each pending mark's JSON, as the engine wrote it since migration 14 (`{"certificate":{"at",
/// "candidates","kthGroup","kthScore","stamp"},"evaluatedAt","scope":{"category","owner"}}`, every
/// key optional), goes into the mark's columns. A scope of another owner than the row's is left out
/// (the engine finds it again). A mark that cannot be read becomes fresh, and its owner's
/// `settled_at` unknown, so the next refresh evaluates it in full.
enum PendingMarkMigration {
    static func move(_ db: Database, progress: Migrations.Progress?) throws {
        let rows = try db.query("SELECT owner, occurrence, mark FROM pattern_pending") { ($0.text(0) ?? "", $0.int(1), $0.text(2) ?? "") }
        for (owner, occurrence, text) in rows {
            let row = mark(text, owner: owner, occurrence: occurrence)
            if row == nil {
                try db.run("UPDATE pattern_state SET settled_at = NULL WHERE owner = ?", [.text(owner)])
            }
            let values = (row ?? PendingMarkRow(occurrence: occurrence, evaluatedAt: nil, category: nil, certificate: nil)).values
            try db.run("""
                UPDATE pattern_pending SET evaluated_at = ?3, category = ?4, checked_at = ?5, candidates = ?6, kth_score = ?7,
                    kth_group = ?8, stamp = ?9
                WHERE owner = ?1 AND occurrence = ?2
                """, [.text(owner)] + values)
        }
    }

    /// The mark of `text`; nil when it is not a mark.
    static func mark(_ text: String, owner: String, occurrence: Int64) -> PendingMarkRow? {
        guard case .object(let o)? = try? JSONParser.parse(text) else { return nil }
        var row = PendingMarkRow(occurrence: occurrence, evaluatedAt: nil, category: nil, certificate: nil)
        if let at = o["evaluatedAt"], !at.isNull {
            guard let at = at.intValue else { return nil }
            row.evaluatedAt = at
        }
        if let scope = o["scope"], scope["owner"]?.stringValue == owner { row.category = scope["category"]?.stringValue }
        // A certificate that cannot be read is left out: the mark is then evaluated in full.
        if let c = o["certificate"], let at = c["at"]?.intValue, let stamp = c["stamp"]?.intValue,
           let candidates = c["candidates"]?.arrayValue?.map(\.intValue), !candidates.contains(nil) {
            row.certificate = .init(at: at, candidates: candidates.compactMap { $0 }, kthScore: c["kthScore"]?.intValue,
                                    kthGroup: c["kthGroup"]?.intValue, stamp: stamp)
        }
        return row
    }
}
