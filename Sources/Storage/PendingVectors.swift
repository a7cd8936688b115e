/// Vectors of one index version and source waiting to be written together (one upsert, one
/// embedding batch, one step of a completed rebuild), so that their bytes go into blocks whole
/// (`VectorBlocks`) and each `vectors` row is written with its place.
struct PendingVectors {
    let version: String
    let source: String
    private(set) var rowids: [Int64] = []
    private var revisions: [Int64] = []
    private var vectors: [[Float]] = []
    /// False for a record that may already have a `vectors` row (its slot is then reused when the
    /// width is the same).
    private var isNew: [Bool] = []
    private var held: Set<Int64> = []

    init(version: String, source: String) {
        self.version = version
        self.source = source
    }

    var isEmpty: Bool { rowids.isEmpty }

    /// Whether `rowid` has a vector waiting here.
    func holds(_ rowid: Int64) -> Bool { held.contains(rowid) }

    /// Adds a vector for `rowid` (call `flush` first if `holds(rowid)`).
    mutating func add(rowid: Int64, revision: Int64, vector: [Float], isNew: Bool) {
        precondition(held.insert(rowid).inserted, "flush before a second vector of the same record")
        rowids.append(rowid)
        revisions.append(revision)
        vectors.append(vector)
        self.isNew.append(isNew)
    }

    /// Writes every pending vector and its `vectors` row inside the open transaction, then empties.
    /// A vector added with `isNew` must be for a record with no `vectors` row (one inserted in this
    /// transaction): its row is inserted as new, and the record is taken to be in no
    /// `records_without_vectors` row (`NewRecordRows` leaves out records given a vector).
    mutating func flush(_ db: Database) throws {
        guard !rowids.isEmpty else { return }
        var places = [VectorBlocks.Place?](repeating: nil, count: rowids.count)
        if isNew.contains(false) {
            try db.reusing("""
                SELECT v.block, v.slot, b.width FROM vectors v JOIN vector_blocks b ON b.block = v.block WHERE v.record = ?1
                """) { s in
                for i in rowids.indices where !isNew[i] {
                    try s.bind([.int(rowids[i])])
                    if try s.step(), Int(s.int(2)) == vectors[i].count * 4 {
                        places[i] = VectorBlocks.Place(block: s.int(0), slot: Int(s.int(1)))
                    }
                }
            }
        }
        // Width by width: the places still missing come from free slots or new blocks.
        for width in Set(vectors.map { $0.count * 4 }).sorted() where width > 0 {
            let these = rowids.indices.filter { vectors[$0].count * 4 == width }
            let missing = these.filter { places[$0] == nil }
            for (i, p) in zip(missing, try VectorBlocks.allocate(db, count: missing.count, width: width)) { places[i] = p }
            try VectorBlocks.write(db, places: these.map { places[$0]! }, width: width) { vectors[these[$0]] }
        }
        // A new record has no `vectors` row yet: a plain insert, which fires no trigger (the
        // upsert form carries the update's triggers). What the insert triggers did before
        // migration 17 is done here once per flush: the codes file's stamp goes, and records that
        // had no vector leave `records_without_vectors` (a new record never entered it).
        try db.reusing("""
            INSERT INTO vectors(record, index_version, revision, source, block, slot) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
            """) { insert in
            try db.reusing("""
                INSERT INTO vectors(record, index_version, revision, source, block, slot) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                ON CONFLICT(record) DO UPDATE SET index_version = excluded.index_version, revision = excluded.revision,
                    source = excluded.source, block = excluded.block, slot = excluded.slot
                """) { upsert in
                for i in rowids.indices {
                    guard let p = places[i] else { continue }
                    let s = isNew[i] ? insert : upsert
                    s.reset()
                    try s.bind(1, int: rowids[i])
                    try s.bind(2, text: version)
                    try s.bind(3, int: revisions[i])
                    try s.bind(4, text: source)
                    try s.bind(5, int: p.block)
                    try s.bind(6, int: Int64(p.slot))
                    _ = try s.step()
                }
            }
        }
        if isNew.contains(false) {
            try db.reusing("DELETE FROM records_without_vectors WHERE record = ?1") { s in
                for i in rowids.indices where !isNew[i] && places[i] != nil {
                    s.reset()
                    try s.bind(1, int: rowids[i])
                    _ = try s.step()
                }
            }
        }
        if places.contains(where: { $0 != nil }) { try db.run("DELETE FROM vector_codes_file WHERE id = 1") }
        rowids.removeAll()
        revisions.removeAll()
        vectors.removeAll()
        isNew.removeAll()
        held.removeAll()
    }
}
