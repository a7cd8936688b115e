/// What a store holds, counted: the owners and an owner's kinds. For a command line that answers a
/// mistyped owner or kind with the names that exist instead of an empty result.
extension RecordStore {
    /// Every owner with its number of records, by name.
    public func ownerCounts() throws -> [(owner: String, records: Int)] {
        try database.query("SELECT owner, count(*) FROM records GROUP BY owner ORDER BY owner") { ($0.text(0) ?? "", Int($0.int(1))) }
    }

    /// `owner`'s kinds with their number of records, by name; records without a kind count under nil, first.
    public func kindCounts(owner: String) throws -> [(kind: String?, records: Int)] {
        try database.query("SELECT kind, count(*) FROM records WHERE owner = ? GROUP BY kind ORDER BY kind", [.text(owner)]) {
            ($0.isNull(0) ? nil : $0.text(0), Int($0.int(1)))
        }
    }
}
