import Foundation
import Embedding
import Grouping
import KindredCLI
import KindredCore
import KindredTestSupport
import LinearAlgebra

/// `kindred-bench grouping`: the Swift side of bench/grouping (embedding texts to raw float32,
/// grouping labelled vectors, and timing builds and placements).
enum GroupingCommand {
    static let help = """
        kindred-bench grouping — pattern-engine bench helpers (used by bench/grouping)

        USAGE: kindred-bench grouping embed --texts FILE --out FILE.f32 [--batch N] [--threads T] [--model DIR] [--precision float32|int8]
               kindred-bench grouping cluster --vectors FILE.f32 [--records FILE] [--texts FILE] [--kinds FILE] [--initial N] [--dismiss PAIRS.json | --dismiss-random K [--seed S]] [THRESHOLDS]
               kindred-bench grouping speed --vectors FILE.f32 --n N [--categories FILE] [--place P] [THRESHOLDS]
               kindred-bench grouping speed --synthetic --n N [--clusters C] [--synthetic-categories K] [--place P] [--state FILE]

        FILE.f32 holds little-endian float32 rows of --dim (384) floats. Every row is one occurrence of
        its own record (or of the record named on the same line of --records), in one category (or the
        category on the same line of --categories). --texts: the text of each row, one per line (the
        occurrences' descriptions, which the shared-element rule reads; without them no weak match has
        a shared word). --kinds: the kind of each row's record, one per line (records of two kinds never
        share a group made automatically; without it every record is of no kind).

        cluster: groups rows 0..<N (default all), then adds the rest with an incremental refresh on
          the existing state. Prints {"initial": [group per row of the first N, -1 = pending],
          "final": [...all rows], "build_seconds", "add_seconds"}. With --dismiss (a JSON list of
          [i, j] row pairs), after the build each pair still sharing a group gets dismiss(i, group)
          (--dismiss-random K: K pairs drawn one after another from the current groups), then one refresh; prints "applied", "violations" (applied pairs together afterwards),
          "cannot_link_violations" (any cannot-linked record pair sharing a group) and "final".
        speed: full build of the first N rows, then places each of the next P rows (default 50) alone
          with one refresh each, into the state the previous one returned; prints build seconds, place-one milliseconds
          (median, p90, max) and peak RSS (VmHWM, kB). --state FILE: load the built state from FILE
          instead of building (build_seconds is then null), or save it there after building; for
          timing placements again without a rebuild (same rows, thresholds and engine version).
          --synthetic: clustered random rows in K categories (default 10) with C situations each
          (default N / 250); K = 1 is the service bench's one category of N.
        THRESHOLDS: --tau-rep --tau-sup --tau-seed --tau-loose-seed --loose-seed-records --delta --tau-stay --combine-link --link-neighbours --combine-resolution --link-scope-limit --tau-combine --candidate-k
          --calibrated-background --evidence-max-share --evidence-examples --evidence-above (defaults of GroupingConfig; --evidence-max-share 0: similarity alone; --combine-link (and --tau-combine above --link-scope-limit) above 1 turns combining groups off; --calibrated-background above 1 keeps the
          thresholds fixed in every category).
        """

    static let thresholdOptions: Set<String> = ["tau-rep", "tau-sup", "tau-seed", "tau-loose-seed", "loose-seed-records", "delta", "tau-stay", "combine-link", "link-neighbours", "combine-resolution", "link-scope-limit", "tau-combine", "candidate-k", "calibrated-background", "evidence-max-share", "evidence-examples", "evidence-above"]

    static func run(_ argv: [String]) throws -> Int32 {
        guard let mode = argv.first, !mode.hasPrefix("--") else { Output.out(help); return argv.isEmpty ? ExitCode.usage : ExitCode.ok }
        let rest = Array(argv.dropFirst())
        switch mode {
        case "embed": return try embed(rest)
        case "cluster": return try cluster(rest)
        case "speed": return try speed(rest)
        default: throw Arguments.UsageError(description: "unknown mode '\(mode)' (embed, cluster, speed)")
        }
    }

    // MARK: embed

    static func embed(_ argv: [String]) throws -> Int32 {
        let args = try Arguments(argv, valued: ["texts", "out", "batch", "threads", "model", "precision"], flags: ["help"])
        if args.has("help") { Output.out(help); return ExitCode.ok }
        let file = try args.required("texts"), out = try args.required("out")
        BLAS.setThreads(try args.int("threads") ?? ProcessInfo.processInfo.activeProcessorCount)
        let embedder = try SentenceEmbedder(modelDirectory: args.value("model") ?? ModelLocation.defaultDirectory(),
                                            precision: try EmbedderCommand.precision(args))
        let content = try String(contentsOfFile: file, encoding: .utf8)
        var texts = content.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if texts.last == "" { texts.removeLast() }
        let batch = max(1, try args.int("batch") ?? 64)
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        guard let handle = FileHandle(forWritingAtPath: out) else { throw Arguments.UsageError(description: "cannot write \(out)") }
        defer { try? handle.close() }
        let bar = ProgressBar(title: "embed", total: texts.count)
        let start = Date()
        var i = 0
        while i < texts.count {
            let end = min(texts.count, i + batch)
            var flat: [Float] = []
            for v in try embedder.embed(Array(texts[i..<end])) { flat += v }
            handle.write(flat.withUnsafeBufferPointer { Data(buffer: $0) })
            i = end
            bar.update(i)
        }
        bar.finish()
        Output.json(["texts": .from(texts.count), "dimension": .from(embedder.dimension),
                     "seconds": .double(Date().timeIntervalSince(start))])
        return ExitCode.ok
    }

    // MARK: shared

    /// The first `limit` rows (all by default), each normalised.
    static func readVectors(_ path: String, dim: Int, limit: Int = .max) throws -> [[Float]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
        let total = data.count / (4 * dim)
        guard total * 4 * dim == data.count else { throw Arguments.UsageError(description: "\(path): size is not a multiple of \(dim) float32") }
        let n = min(total, limit)
        var rows: [[Float]] = []
        rows.reserveCapacity(n)
        data.withUnsafeBytes { raw in
            let f = raw.bindMemory(to: Float.self)
            for r in 0..<n { rows.append(Vectors.normalized(Array(f[(r * dim)..<((r + 1) * dim)]))) }
        }
        return rows
    }

    static func config(_ args: Arguments) throws -> GroupingConfig {
        var c = GroupingConfig()
        func f(_ name: String) throws -> Float? {
            guard let v = args.value(name) else { return nil }
            guard let x = Float(v) else { throw Arguments.UsageError(description: "--\(name) must be a number") }
            return x
        }
        if let x = try f("tau-rep") { c.tauRep = x }
        if let x = try f("tau-sup") { c.tauSup = x }
        if let x = try f("tau-seed") { c.tauSeed = x }
        if let x = try f("tau-loose-seed") { c.tauLooseSeed = x }
        if let k = try args.int("loose-seed-records") { c.looseSeedRecords = k }
        if let x = try f("delta") { c.delta = x }
        if let x = try f("tau-stay") { c.tauStay = x }
        if let x = try f("combine-link") { c.combineLink = x }
        if let k = try args.int("link-neighbours") { c.linkNeighbours = k }
        if let x = try f("combine-resolution") { c.combineResolution = x }
        if let k = try args.int("link-scope-limit") { c.linkScopeLimit = k }
        if let x = try f("tau-combine") { c.tauCombine = x }
        if let k = try args.int("candidate-k") { c.candidateK = k }
        if let x = try f("calibrated-background") { c.calibratedBackground = x > 1 ? nil : x }
        if let x = try f("evidence-max-share") { c.evidenceMaxShare = x }
        if let k = try args.int("evidence-examples") { c.evidenceExamples = k }
        if let x = try f("evidence-above") { c.evidenceAbove = x }
        return c
    }

    /// Row `i` as occurrence `i + 1` of record "r<i>".
    static func occurrence(_ i: Int, _ v: [Float], category: String = "text") -> Occurrence {
        Occurrence(id: Int64(i + 1), owner: "bench", category: category, description: "row \(i)", excerpt: "",
                   recordID: "r\(i)", recordRevision: 1, recordDate: nil, vector: v)
    }

    /// Group id per row (-1 = pending) for rows 0..<n.
    /// The built state saved at `path` by `--state`, nil when there is none yet.
    static func loadState(_ path: String) throws -> PatternState? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return try JSONDecoder().decode(PatternState.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    static func saveState(_ state: PatternState, to path: String) throws {
        try JSONEncoder().encode(state).write(to: URL(fileURLWithPath: path))
    }

    static func labels(_ state: PatternState, rows n: Int) -> [Int] {
        var out = [Int](repeating: -1, count: n)
        for g in state.groups.values where g.state == .active {
            for m in g.members { let r = Int(m.occurrenceID) - 1; if r < n { out[r] = Int(g.id) } }
        }
        return out
    }

    static func ints(_ xs: [Int]) -> JSONValue { .array(xs.map { .int(Int64($0)) }) }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    // MARK: cluster

    static func cluster(_ argv: [String]) throws -> Int32 {
        let args = try Arguments(argv, valued: thresholdOptions.union(["vectors", "records", "texts", "kinds", "initial", "dismiss", "dismiss-random", "seed", "dim", "threads"]).union(ThemeBench.options), flags: ["help", "themes"])
        if args.has("help") { Output.out(help); return ExitCode.ok }
        BLAS.setThreads(try args.int("threads") ?? 1)
        let rows = try readVectors(try args.required("vectors"), dim: try args.int("dim") ?? 384)
        let cfg = try config(args)
        let initial = min(rows.count, try args.int("initial") ?? rows.count)
        var records: [String]?
        if let file = args.value("records") {
            let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").map(String.init)
            guard lines.count >= rows.count else { throw Arguments.UsageError(description: "--records names \(lines.count) rows, the vectors have \(rows.count)") }
            records = lines
        }
        // The texts the vectors are of (one per line): the occurrences' descriptions, which the
        // shared-element rule reads. Without them every description is "row i" and shares nothing.
        var texts: [String]?
        if let file = args.value("texts") {
            let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            guard lines.count >= rows.count else { throw Arguments.UsageError(description: "--texts names \(lines.count) rows, the vectors have \(rows.count)") }
            texts = lines
        }
        // The kind of each row's record (one per line), which the kind rule reads.
        var kinds: [String]?
        if let file = args.value("kinds") {
            let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            guard lines.count >= rows.count else { throw Arguments.UsageError(description: "--kinds names \(lines.count) rows, the vectors have \(rows.count)") }
            kinds = lines
        }
        func occurrence(_ i: Int, _ v: [Float]) -> Occurrence {
            let o = Self.occurrence(i, v)
            return Occurrence(id: o.id, owner: o.owner, category: o.category, description: texts?[i] ?? o.description,
                              excerpt: texts?[i] ?? o.excerpt, recordID: records?[i] ?? o.recordID, recordRevision: 1, recordDate: nil,
                              recordKind: kinds?[i] ?? "", vector: v)
        }
        var occ: [Int64: Occurrence] = [:]
        for i in 0..<initial { occ[Int64(i + 1)] = occurrence(i, rows[i]) }
        let clock = ContinuousClock()
        var state = PatternState()
        let build = try clock.measure {
            state = try PatternEngine.refresh(state: state, occurrences: occ, constraints: Constraints(), config: cfg).state
        }
        var result: JSONObject = ["build_seconds": .double(seconds(build)), "initial": ints(labels(state, rows: initial))]
        let themes = args.has("themes") ? try ThemeBench(args, state: state, occurrences: occ, rows: initial) : nil
        if initial < rows.count {
            for i in initial..<rows.count { occ[Int64(i + 1)] = occurrence(i, rows[i]) }
            let add = try clock.measure {
                state = try PatternEngine.refresh(state: state, occurrences: occ, constraints: Constraints(), config: cfg).state
            }
            result["add_seconds"] = .double(seconds(add))
        }
        if let themes { themes.report(into: &result, state: state, occurrences: occ, rows: rows.count) }
        let randomDismissals = try args.int("dismiss-random") ?? 0
        if args.value("dismiss") != nil || randomDismissals > 0 {
            var pairs: [[Int]] = []
            if let file = args.value("dismiss") {
                pairs = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [[Int]] ?? []
            }
            var rng = SeededGenerator(seed: UInt64(try args.int("seed") ?? 1))
            var corrections: [Correction] = []
            var constraints = Constraints()
            var applied: [(Int, Int)] = []
            var step = 0
            while step < max(pairs.count, randomDismissals) {
                defer { step += 1 }
                var p: [Int]
                if step < pairs.count {
                    p = pairs[step]
                } else {
                    // A random pair of the current groups (group, then two members, uniformly).
                    let groups = state.sortedGroups.filter { $0.state == .active && $0.members.count >= 2 }
                    guard !groups.isEmpty else { break }
                    let g = groups[Int.random(in: 0..<groups.count, using: &rng)]
                    let i = Int.random(in: 0..<g.members.count, using: &rng)
                    var j = Int.random(in: 0..<(g.members.count - 1), using: &rng)
                    if j >= i { j += 1 }
                    p = [Int(g.members[i].occurrenceID) - 1, Int(g.members[j].occurrenceID) - 1]
                }
                guard p.count == 2 else { continue }
                let a = Int64(p[0] + 1), b = Int64(p[1] + 1)
                guard let g = state.group(of: a), g.membership(of: b) != nil else { continue }
                let (c, cs, outcome) = try PatternEngine.correct(
                    CorrectionRequest(kind: .dismiss(occurrence: a, group: g.id), createdAt: "2026-01-01"),
                    id: Int64(corrections.count + 1), state: state, occurrences: occ, existing: corrections, config: cfg)
                corrections.append(c)
                constraints = cs
                state = outcome.state
                applied.append((p[0], p[1]))
            }
            state = try PatternEngine.refresh(state: state, occurrences: occ, constraints: constraints, config: cfg).state
            let final = labels(state, rows: rows.count)
            let violations = applied.filter { final[$0.0] >= 0 && final[$0.0] == final[$0.1] }.count
            var cannot = 0
            for g in state.groups.values where g.state == .active {
                let records = g.members.compactMap { occ[$0.occurrenceID]?.recordID }
                for (x, r) in records.enumerated() { for s in records[(x + 1)...] where constraints.cannotLink(r, s) { cannot += 1 } }
            }
            result["applied"] = .from(applied.count)
            result["violations"] = .from(violations)
            result["cannot_link_violations"] = .from(cannot)
        }
        result["final"] = ints(labels(state, rows: rows.count))
        Output.json(.object(result))
        return ExitCode.ok
    }

    // MARK: speed

    static func speed(_ argv: [String]) throws -> Int32 {
        let args = try Arguments(argv, valued: thresholdOptions.union(["vectors", "n", "categories", "place", "dim", "threads", "clusters", "state", "synthetic-categories"]),
                                 flags: ["help", "synthetic"])
        if args.has("help") { Output.out(help); return ExitCode.ok }
        BLAS.setThreads(try args.int("threads") ?? 1)
        let cfg = try config(args)
        let n = try args.int("n") ?? 100_000
        if args.has("synthetic") {
            let stateFile = args.value("state")
            let given = try stateFile.flatMap(loadState)
            let (t, built) = try GroupingBenchmark.run(occurrences: n, categories: try args.int("synthetic-categories") ?? 10,
                                                       clustersPerCategory: try args.int("clusters") ?? max(1, n / 250),
                                                       placements: try args.int("place") ?? 20, config: cfg, built: given)
            if let stateFile, given == nil { try saveState(built, to: stateFile) }
            Output.json(["n": .from(n), "build_seconds": t.fullBuildSeconds.map { .double($0) } ?? .null,
                         "place_one_ms_median": .double(t.placeOneSeconds * 1000),
                         "place_one_ms_max": .double(t.placeOneMaxSeconds * 1000), "placements": .from(t.placements),
                         "groups": .from(t.groups), "pending": .from(t.pending), "placed_in_group": .from(t.placedInGroup),
                         "peak_rss_kb": .from(PeakMemory.kilobytes())])
            return ExitCode.ok
        }
        let places = try args.int("place") ?? 50
        let rows = try readVectors(try args.required("vectors"), dim: try args.int("dim") ?? 384, limit: n + places)
        guard rows.count >= n + places else { throw Arguments.UsageError(description: "need \(n + places) rows, have \(rows.count)") }
        var categories = [String](repeating: "text", count: rows.count)
        if let file = args.value("categories") {
            let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").map(String.init)
            for (i, c) in lines.prefix(rows.count).enumerated() { categories[i] = c }
        }
        var occ: [Int64: Occurrence] = [:]
        occ.reserveCapacity(n + 1)
        for i in 0..<n { occ[Int64(i + 1)] = occurrence(i, rows[i], category: categories[i]) }
        let clock = ContinuousClock()
        var built = PatternState()
        var build: Duration?
        // What each refresh derived, handed to the next with the state it returned, as the service does.
        var cache = EngineCache()
        let stateFile = args.value("state")
        if let given = try stateFile.flatMap(loadState) {
            built = given
        } else {
            build = try clock.measure {
                built = try PatternEngine.refresh(state: built, occurrences: occ, constraints: Constraints(), config: cfg, cache: &cache).state
            }
            if let stateFile { try saveState(built, to: stateFile) }
        }
        // Each new occurrence is placed alone, into the state the previous placement returned
        // (handed over, so the engine updates it in place as a long-running caller would).
        let groupsBuilt = built.groups.values.filter { $0.state == .active }, pendingBuilt = built.pending.count
        var times: [Double] = []
        var joined = 0
        var current = built
        built = PatternState()
        for p in 0..<places {
            let i = n + p
            let o = occurrence(i, rows[i], category: categories[i])
            occ[o.id] = o
            let start = clock.now
            // (Told what changed, as the service is by its store's change log.)
            current = try PatternEngine.refresh(state: consume current, occurrences: occ, changes: OccurrenceChanges([o.id]),
                                                constraints: Constraints(), config: cfg, cache: &cache).state
            times.append(seconds(clock.now - start) * 1000)
            if current.pending[o.id] == nil { joined += 1 }
        }
        times.sort()
        let active = groupsBuilt
        Output.json([
            "n": .from(n), "build_seconds": build.map { .double(seconds($0)) } ?? .null,
            "place_one_ms_median": .double(times.isEmpty ? 0 : times[times.count / 2]),
            "place_one_ms_p90": .double(times.isEmpty ? 0 : times[min(times.count - 1, times.count * 9 / 10)]),
            "place_one_ms_max": .double(times.last ?? 0), "placements": .from(places), "placed_in_group": .from(joined),
            "groups": .from(active.count), "grouped": .from(active.reduce(0) { $0 + $1.members.count }),
            "pending": .from(pendingBuilt), "peak_rss_kb": .from(PeakMemory.kilobytes()),
        ])
        return ExitCode.ok
    }
}
