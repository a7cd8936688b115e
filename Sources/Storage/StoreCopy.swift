/// A consistent copy of a store in a new file while the store keeps serving: `VACUUM INTO` on a
/// read-only connection reads one snapshot of the database (one read transaction), so writes
/// committed meanwhile are neither in the copy nor held up by it.
public enum StoreCopy {
    /// Writes the copy to `path`, which must not exist.
    public static func write(_ db: Database, to path: String) throws {
        try db.run("VACUUM INTO ?", [.text(path)])
    }
}
