public import KindredCore

/// The cosine scale of one owner's vectors of one index version, as measured (see `owner_scales`).
public struct StoredScale: Sendable, Equatable {
    public var mean: Double
    public var spread: Double
    /// The owner's vectors of the version when it was measured (or last confirmed).
    public var records: Int
    /// Pairs the measurement averaged over.
    public var pairs: Int

    public init(mean: Double, spread: Double, records: Int, pairs: Int) {
        self.mean = mean
        self.spread = spread
        self.records = records
        self.pairs = pairs
    }
}

extension RecordStore {
    public func ownerScale(owner: String, indexVersion: IndexVersion) throws -> StoredScale? {
        try database.query("SELECT mean, spread, records, pairs FROM owner_scales WHERE owner = ? AND index_version = ?",
                           [.text(owner), .text(indexVersion.description)]) {
            StoredScale(mean: $0.double(0), spread: $0.double(1), records: Int($0.int(2)), pairs: Int($0.int(3)))
        }.first
    }

    public func saveOwnerScale(_ scale: StoredScale, owner: String, indexVersion: IndexVersion) throws {
        try database.run("""
            INSERT INTO owner_scales(owner, index_version, mean, spread, records, pairs) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT(owner, index_version) DO UPDATE SET mean = excluded.mean, spread = excluded.spread,
                records = excluded.records, pairs = excluded.pairs
            """, [.text(owner), .text(indexVersion.description), .double(scale.mean), .double(scale.spread), .from(scale.records), .from(scale.pairs)])
    }
}
