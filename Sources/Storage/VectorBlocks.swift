/// Where stored vectors' float32 bytes live (migration 16): in `vector_blocks`, `slots` vectors of
/// one width (dimension × 4 bytes) per row, slot `i` at byte `i × width` of `data`. A `vectors`
/// row names its record's block and slot beside the version, revision and source.
///
/// Why blocks: one 1 536-byte vector per row filled a 4 KiB page with two vectors and their B-tree
/// cells, and WAL writes each page twice (at commit and at the checkpoint). A block is one row
/// whose bytes fill overflow pages end to end, so an ingest writes about a quarter fewer pages
/// and SQLite does per-page work a sixteenth as often per vector (bench/search README, "Ingest").
///
/// Every slot of every block is either named by exactly one `vectors` row or listed in
/// `vector_free_slots`. Deleting a `vectors` row (a record deleted, a model vector dropped, a text
/// change) or moving it to another block frees its slot by trigger; new vectors take free slots of
/// their width first, lowest block first, and only then new blocks (whose slots left over are
/// listed free at once). A vector written again for the same record at the same width overwrites
/// its own slot. A block whose every slot is free is deleted (`releaseEmptyBlocks`). Block data is
/// written inside the caller's transaction, so an acknowledged batch is durable with its rows.
enum VectorBlocks {
    /// Vectors per block: 16 × 1 536 bytes is six 4 KiB pages at d = 384, so reading one vector
    /// (a re-score) walks a short overflow chain, while an ingest still writes whole blocks. Rows of
    /// 16 and of 64 vectors ingested alike in the prototype, 256 and more were slower.
    static let slots = 16

    struct Place: Hashable, Comparable {
        var block: Int64
        var slot: Int
        static func < (a: Place, b: Place) -> Bool { (a.block, a.slot) < (b.block, b.slot) }
    }

    /// Places for `count` new vectors of `width` bytes: free slots of that width first, then slots
    /// of new blocks numbered after the last one. Free slots taken are removed from the free list;
    /// the new blocks are not yet written (`write` inserts them whole, then lists their unused slots).
    static func allocate(_ db: Database, count: Int, width: Int) throws -> [Place] {
        guard count > 0 else { return [] }
        var places = try db.query("""
            SELECT f.block, f.slot FROM vector_free_slots f JOIN vector_blocks b ON b.block = f.block
            WHERE b.width = ?1 ORDER BY f.block, f.slot LIMIT ?2
            """, [.from(width), .from(count)]) { Place(block: $0.int(0), slot: Int($0.int(1))) }
        if !places.isEmpty {
            try db.reusing("DELETE FROM vector_free_slots WHERE block = ?1 AND slot = ?2") { s in
                for p in places {
                    s.reset()
                    try s.bind(1, int: p.block)
                    try s.bind(2, int: Int64(p.slot))
                    _ = try s.step()
                }
            }
        }
        var next = try db.scalarInt("SELECT coalesce(max(block), 0) + 1 FROM vector_blocks") ?? 1
        var slot = 0
        while places.count < count {
            places.append(Place(block: next, slot: slot))
            slot += 1
            if slot == slots { next += 1; slot = 0 }
        }
        return places
    }

    /// Writes `vectors[i]` (`width` bytes each) at `places[i]`: a block that does not exist yet is
    /// inserted whole (its slots not written here are listed free), an existing one is written in
    /// place, slot by slot, through one BLOB handle.
    static func write(_ db: Database, places: [Place], width: Int, vector: (Int) -> [Float]) throws {
        guard !places.isEmpty else { return }
        let order = places.indices.sorted { places[$0] < places[$1] }
        let existing = Set(try db.query("SELECT block FROM vector_blocks WHERE block BETWEEN ?1 AND ?2",
                                        [.int(places[order.first!].block), .int(places[order.last!].block)]) { $0.int(0) })
        var handle: BlobHandle?
        var buffer = [UInt8](repeating: 0, count: slots * width)
        var i = 0
        while i < order.count {
            let block = places[order[i]].block
            var j = i
            while j < order.count && places[order[j]].block == block { j += 1 }
            if existing.contains(block) {
                if let handle { try handle.reopen(rowid: block) } else {
                    handle = try BlobHandle(db, table: "vector_blocks", column: "data", rowid: block, writable: true)
                }
                guard handle!.count == slots * width else {
                    throw SQLiteError(code: 1, message: "vector block \(block) holds \(handle!.count) bytes, not \(slots) × \(width)", sql: nil)
                }
                for k in i..<j {
                    let n = order[k]
                    try VectorBlob.withBytes(vector(n)) { try handle!.write($0, at: places[n].slot * width) }
                }
            } else {
                var used = Set<Int>()
                buffer.withUnsafeMutableBytes { dst in
                    for k in i..<j {
                        let n = order[k]
                        used.insert(places[n].slot)
                        VectorBlob.withBytes(vector(n)) { src in
                            (dst.baseAddress! + places[n].slot * width).copyMemory(from: src.baseAddress!, byteCount: width)
                        }
                    }
                }
                try db.reusing("INSERT INTO vector_blocks(block, width, data) VALUES (?1, ?2, ?3)") { s in
                    s.reset()
                    try s.bind(1, int: block)
                    try s.bind(2, int: Int64(width))
                    try buffer.withUnsafeBytes { try s.bind(3, blob: $0) }
                    _ = try s.step()
                }
                if used.count < slots {
                    try db.reusing("INSERT INTO vector_free_slots(block, slot) VALUES (?1, ?2)") { s in
                        for slot in 0..<slots where !used.contains(slot) {
                            s.reset()
                            try s.bind(1, int: block)
                            try s.bind(2, int: Int64(slot))
                            _ = try s.step()
                        }
                    }
                    // The buffer is reused for the next new block: no bytes of this one may remain.
                    buffer.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
                }
            }
            i = j
        }
    }

    /// Reads the vectors at `places` (`width` bytes each) and calls `body(i, bytes)` for each one
    /// found, in block order, through one BLOB handle moved from block to block: slot by slot for
    /// a few vectors (a re-score), whole blocks at a time for many (`readBlocks`). A place whose
    /// block is missing or of another size is skipped.
    static func read(_ db: Database, places: [Place], width: Int, _ body: (Int, UnsafeRawBufferPointer) throws -> Void) throws {
        try read(db, places: places, width: width, whole: false, body)
    }

    /// As `read`, each block read whole once (for loading every vector of an index).
    static func readBlocks(_ db: Database, places: [Place], width: Int, _ body: (Int, UnsafeRawBufferPointer) throws -> Void) throws {
        try read(db, places: places, width: width, whole: true, body)
    }

    private static func read(_ db: Database, places: [Place], width: Int, whole: Bool,
                             _ body: (Int, UnsafeRawBufferPointer) throws -> Void) throws {
        guard !places.isEmpty, width > 0 else { return }
        let order = places.indices.sorted { places[$0] < places[$1] }
        var handle: BlobHandle?
        var block: Int64 = -1
        var usable = false
        var buffer = [UInt8](repeating: 0, count: whole ? slots * width : width)
        for n in order {
            let p = places[n]
            if p.block != block {
                block = p.block
                do {
                    if let handle { try handle.reopen(rowid: block) } else {
                        handle = try BlobHandle(db, table: "vector_blocks", column: "data", rowid: block, writable: false)
                    }
                    usable = handle!.count == slots * width
                    if usable && whole { try buffer.withUnsafeMutableBytes { try handle!.read(into: $0, at: 0) } }
                } catch let e as SQLiteError where e.code == 1 {
                    // No such row (SQLITE_ERROR): the handle is spent; a later block opens a new one.
                    handle = nil
                    usable = false
                }
            }
            guard usable, p.slot >= 0, p.slot < slots else { continue }
            if whole {
                try buffer.withUnsafeBytes { try body(n, UnsafeRawBufferPointer(rebasing: $0[p.slot * width ..< (p.slot + 1) * width])) }
            } else {
                try buffer.withUnsafeMutableBytes { try handle!.read(into: $0, at: p.slot * width) }
                try buffer.withUnsafeBytes { try body(n, $0) }
            }
        }
    }

    /// Deletes the blocks whose every slot is free (their free-list rows go with them).
    static func releaseEmptyBlocks(_ db: Database) throws {
        try db.run("""
            DELETE FROM vector_blocks WHERE block IN (
                SELECT block FROM vector_free_slots GROUP BY block HAVING count(*) >= ?1)
            """, [.from(slots)])
    }

    /// Migration 16's move of every `vectors.data` into blocks (width by width, in record order,
    /// a bounded number of rows at a time), before the column is dropped.
    static func moveRowsIntoBlocks(_ db: Database) throws {
        let widths = try db.query("SELECT DISTINCT length(data) FROM vectors WHERE length(data) > 0 AND length(data) % 4 = 0 ORDER BY 1") { Int($0.int(0)) }
        for width in widths {
            var after: Int64 = 0
            while true {
                var rowids: [Int64] = []
                var vectors: [[Float]] = []
                try db.reusing("SELECT record, data FROM vectors WHERE length(data) = ?1 AND record > ?2 ORDER BY record LIMIT 16384") { s in
                    try s.bind([.from(width), .int(after)])
                    while try s.step() {
                        rowids.append(s.int(0))
                        var v: [Float] = []
                        v.reserveCapacity(width / 4)
                        _ = s.withBlob(1) { VectorBlob.decodeRaw($0, into: &v) }
                        vectors.append(v)
                    }
                }
                guard let last = rowids.last else { break }
                after = last
                let places = try allocate(db, count: rowids.count, width: width)
                try write(db, places: places, width: width) { vectors[$0] }
                try db.reusing("UPDATE vectors SET block = ?1, slot = ?2 WHERE record = ?3") { s in
                    for (rowid, p) in zip(rowids, places) {
                        s.reset()
                        try s.bind(1, int: p.block)
                        try s.bind(2, int: Int64(p.slot))
                        try s.bind(3, int: rowid)
                        _ = try s.step()
                    }
                }
            }
        }
    }
}
