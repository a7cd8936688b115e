/// Kindred's configuration: dotted keys (`search.defaultLimit`) with typed defaults, layered as
/// defaults < config file (JSON, nested objects) < environment (`KINDRED_SEARCH_DEFAULT_LIMIT`) < flags.
public struct Config: Sendable, Equatable {
    public private(set) var values: [String: JSONValue]

    /// Every key Kindred reads, with its default and one line of documentation.
    public static let defaults: [(key: String, value: JSONValue, doc: String)] = [
        ("rpc.maxMessageBytes", 67_108_864, "Largest accepted JSON-RPC message in bytes; larger ones are refused and skipped."),
        ("search.defaultLimit", 10, "Results returned when a search names no limit."),
        ("search.maxLimit", 1000, "Largest limit a search may ask for."),
        ("search.scanThreads", 2, "Threads that share the first pass of one semantic search over an owner of 32 768 records or more, while no other search is scanning (concurrent searches each take one core; results are the same for any value); 1 keeps every search on one core."),
        ("search.sharedScanQueries", 8, "From this many queries on, a batched search reads each block of int8 codes once for all of them instead of scanning once per query."),
        ("search.fusion", "score", "How hybrid search fuses its lists: score (cosine plus a keyword bonus weighed by what the keyword list matched) or rrf (reciprocal rank)."),
        ("search.keywordWeight", 0.15, "Largest keyword bonus in score fusion, reached when the best keyword hit holds every informative query term (for an owner whose cosines spread at least search.keywordSpread; less in proportion below it)."),
        ("search.keywordSpread", 0.10, "The spread of cosines (standard deviation between an owner's record vectors, measured per owner and index version) search.keywordWeight is calibrated for: an owner whose vectors spread less, as a model whose cosines all sit in 0.7–0.9 (e5: about 0.02–0.03), gets a keyword bonus smaller in the same proportion; 0 never scales it."),
        ("search.rrfK", 60, "Reciprocal-rank-fusion constant for hybrid search with search.fusion = rrf."),
        ("search.candidatePool", 100, "Candidates taken from each ranking before hybrid fusion."),
        ("search.maxQueryChars", 2000, "Longest search text in Unicode scalars; a longer one is cut at a word boundary and the answer says so in notes."),
        ("search.maxKeywordTerms", 32, "Informative query terms keyword search uses; later ones are dropped and the answer says so in notes."),
        ("search.keywordIndex", true, "Keyword and hybrid search rank from an in-memory copy of the FTS5 index (the same BM25 ranking, without scoring every match; built when serve starts); false asks SQLite FTS5 for every search."),
        ("search.highlightChars", 240, "Longest highlight (the best-matching sentence of a hit's passage), in Unicode scalars."),
        ("records.waitForIndexTimeoutMs", 30000, "Longest a records/upsert with waitForIndex waits for its records to reach the semantic index."),
        ("passages.maxChars", 1000, "Longest passage, in Unicode scalars, when texts are split for matching and display."),
        ("index.dimension", 0, "Vector dimension of the index (client vectors must match); 0 means the model's own: the local model's, a remote provider's (the vectors already stored for the model, else its first answer fixes it; an answer of another size later is refused), 384 without an embedder. A remote provider that takes a size (Gemini's outputDimensionality) is sent it only when set."),
        ("index.codesFile", true, "Save the vector index's int8 codes beside the database (<db>-codes) when the service closes, and read them back at the next start when SQLite says they are current; otherwise every start codes the vectors from SQLite again."),
        ("embedder.provider", "local", "Embedding provider: local (in-process model), none, openai (POST {url}/embeddings, also Ollama, llama.cpp, vLLM), ollama (POST {url}/api/embed) or gemini (batchEmbedContents). KINDRED_EMBEDDER also sets it."),
        ("embedder.model", "all-MiniLM-L6-v2", "Model id sent to a remote provider, and for every provider the model part of the index version (with the dimension and the documents' prefix and input type); empty means the local model folder's name."),
        ("embedder.preset", "auto", "Query and document forms of a known model: auto (by embedder.model: e5 → \"query: \" / \"passage: \", nomic-embed-text → \"search_query: \" / \"search_document: \", English bge and mxbai-embed-large → a query instruction, Gemini models with the gemini provider → RETRIEVAL_QUERY / RETRIEVAL_DOCUMENT; prefixes left out when an input type is set), none, or one of e5, nomic, bge, mxbai, gemini. Each embedder.*Prefix / *InputType key that is set replaces the preset's."),
        ("embedder.languages", "auto", "Languages the embedding model serves, as ISO 639-1 codes separated by commas (en,de), or all; auto: English (en) for all-MiniLM-L6-v2 and the other English-only models known by name (all-mpnet, bge-*-en, mxbai-embed-large, e5 without multilingual), every language for any other model. Where a query's language is not served (read from its script and stopwords among its owner's languages), hybrid search lets keyword matching lead."),
        ("embedder.queryPrefix", "", "Text prepended to every search text before it is embedded (empty: the preset's, else none)."),
        ("embedder.documentPrefix", "", "Text prepended to every record, passage and occurrence before it is embedded (empty: the preset's, else none); part of the index version."),
        ("embedder.queryInputType", "", "Input type a remote provider is told for search texts: input_type for openai (any value the server takes, such as query), taskType for gemini (query → RETRIEVAL_QUERY, or a task type); empty: the preset's, else none. The ollama provider and the local model take none."),
        ("embedder.documentInputType", "", "Input type a remote provider is told for records, passages and occurrences: input_type for openai (such as passage or document), taskType for gemini (document → RETRIEVAL_DOCUMENT); empty: the preset's, else none; part of the index version."),
        ("embedder.url", "", "Base URL of a remote provider; empty means the provider's public endpoint (https://api.openai.com/v1, http://127.0.0.1:11434, https://generativelanguage.googleapis.com/v1beta)."),
        ("embedder.apiKey", "", "API key of a remote provider, sent only in its header (Authorization: Bearer, or x-goog-api-key for gemini); never logged or reported. Prefer KINDRED_EMBEDDER_API_KEY."),
        ("embedder.connectTimeoutMs", 5000, "Longest wait to connect to a remote provider (TCP and TLS), in milliseconds."),
        ("embedder.timeoutMs", 30000, "Longest one HTTP exchange with a remote provider may take, connection included, in milliseconds."),
        ("embedder.maxRetries", 3, "Retries of a remote call after a timeout, a refused connection, HTTP 408, 429 or 5xx (0 = none)."),
        ("embedder.retryBaseMs", 500, "Wait before the first retry, doubled for each later one, with jitter; a Retry-After header replaces it."),
        ("embedder.retryMaxMs", 30000, "Longest wait between two attempts; a Retry-After asking for longer ends the attempts."),
        ("embedder.retryLaterMs", 60000, "After a remote provider failed, records waiting for a vector are tried again this many milliseconds later (or on the next write)."),
        ("embedder.maxConcurrent", 2, "Remote calls in flight at once, across every request and background job."),
        ("embedder.modelDirectory", "", "Folder of a sentence-transformers BERT model; empty means KINDRED_MODEL_DIR or ~/.local/share/kindred/models/all-MiniLM-L6-v2, and ~/.local/share/kindred/models/multilingual-e5-small when the local provider's embedder.model is multilingual-e5-small."),
        ("embedder.precision", "auto", "Arithmetic of the local model's dense layers: auto, float32, or int8 (weights quantised per output channel, each token's values per row with its outliers kept in float32; vectors keep cosine ≥ 0.998 to the float32 ones). auto is int8 where the CPU has AVX-512 VNNI (about half the processor time of float32), float32 elsewhere; a database that already holds the local model's vectors keeps the precision they were made with. Part of the index version: moving a database over takes index/rebuild with the precision set."),
        ("embedder.batchSize", 32, "Texts embedded per forward pass."),
        ("embedder.queryThreads", 2, "Threads that share the matrix products of the local model for an input of under 64 tokens, such as a search query (embeddings are the same for any value); 1 keeps it on one core."),
        ("usage.dailyCallLimit", 0, "Remote provider calls one owner may cause per UTC day; 0 means no limit. Beyond it remote calls are refused (search falls back to keyword matching)."),
        ("usage.dailyCharacterLimit", 0, "Characters one owner may send to remote providers per UTC day; 0 means no limit."),
        ("blas.threads", 0, "BLAS worker threads, set once at start; 0 means one per core the process may run on."),
        ("ingest.batchSize", 256, "Records per transaction when ingesting a file."),
        ("patterns.themes", false, "Each refresh also groups a category's groups into themes (patterns/themes). Off by default: on a journal the themes measured so far mix situations (co-theme precision 0.07 on the bundled journal); on intent-like texts they track the coarse topics (HWU64 scenarios, AMI within 0.04 of k-means)."),
        ("patterns.themeRepFraction", 0.15, "Themes: a group joins a theme when its examples are this far from the category's background towards 1 (b + f·(1 − b), mean cosine) similar to the theme's representative group."),
        ("patterns.themeSupFraction", 0.12, "Themes: … and on average to the theme's supporting example groups (the same placement)."),
        ("patterns.themeSeedFraction", 0.22, "Themes: groups without a theme found one when every two of them are at least this similar (the same placement)."),
        ("patterns.themeExamples", 4, "Themes: supporting example groups per theme, the representative included."),
        ("patterns.passageOccurrences", true, "Records without client occurrences contribute their passages as occurrences (category passage)."),
        ("patterns.tauRep", 0.40, "Minimum similarity of an occurrence to a group's representative (medoid)."),
        ("patterns.tauSup", 0.40, "Minimum mean similarity of an occurrence to a group's supporting examples."),
        ("patterns.tauSeed", 0.68, "Minimum pairwise similarity inside the clique that seeds a new group."),
        ("patterns.tauLooseSeed", 0.40, "Once nothing else changes, new occurrences still waiting may seed a group from a clique of at least looseSeedRecords records whose every pair is this similar; above 1 never."),
        ("patterns.looseSeedRecords", 3, "Records a loose seed (tauLooseSeed) needs; 0 means no loose seeds."),
        ("patterns.delta", 0.0, "Margin by which the best group must beat the runner-up; otherwise the occurrence waits."),
        ("patterns.tauStay", 0.30, "Automatic members less similar than this to a new medoid leave the group (after a deletion, an edit or a correction); an occurrence whose joining would leave a member below it waits instead."),
        ("patterns.combineLink", 0.20, "Two groups of a category are combined when the smaller one's members have their nearest neighbours in the other: of their linkNeighbours nearest (among its own members and its candidate groups' members nearest it), at least this share are in the other group (the older id survives); above 1 never."),
        ("patterns.linkNeighbours", 10, "Nearest neighbours each member counts for combineLink."),
        ("patterns.combineResolution", 16.0, "The share must also exceed this many times what random links within the category would give (the larger group's members / 2N, N grouped occurrences), so that neighbours alone do not combine groups in a small category."),
        ("patterns.linkScopeLimit", 5000, "A category with more grouped occurrences than this combines groups by similarity (tauCombine) instead of by neighbours (combineLink): counting neighbours costs too much there."),
        ("patterns.tauCombine", 0.50, "Above linkScopeLimit: two groups whose representatives and examples accept each other's examples are combined when the mean similarity of all their member pairs is at least this (the older id survives); above 1 never."),
        ("patterns.calibratedBackground", 0.22, "Background similarity (mean cosine over a category's pairs) the thresholds were calibrated at; in a category whose background is more than 0.02 lower, tauRep, tauSup, tauCombine and tauStay are lowered in proportion (the first three never below tauStay); above 1 never."),
        ("patterns.similarityScale", 0.0, "How far above a category's background its similarity thresholds sit, against the model they were calibrated on (all-MiniLM-L6-v2): each one's distance above the background is multiplied by this. 0 means the embedding model's preset's: 0.73 for e5 (calibrated on the bundled journal with multilingual-e5-small), 1 for any other model."),
        ("patterns.evidenceMaxShare", 0.05, "An automatic membership needs a specific word shared with the group's representative and an example: a word held by at most this share of the category's occurrences (names, objects, places; not the words of every entry); 0 means similarity alone."),
        ("patterns.evidenceExamples", 2, "Supporting examples that must hold that shared word besides the representative (all of them when fewer are shown)."),
        ("patterns.backgroundMargin", 0.02, "A category's background level in force moves only when a new measure is more than this far from it (the refresh result's backgroundLevels tells each move), so its thresholds do not move with every few entries and groups do not flap."),
        ("patterns.evidenceAbove", 0.65, "An occurrence at least this similar to the representative needs no shared word (moves with the category's background like the other similarities); above 1 always needed."),
        ("patterns.evidenceMinTerms", 10, "An occurrence with fewer words than this (after stopwords; a request or a note of a few words) needs no shared word: its vector says what it says."),
        ("patterns.evidenceMinimum", 100, "A category with fewer occurrences than this needs no shared word (what is specific is not known yet)."),
        ("patterns.candidateK", 10, "Groups proposed per occurrence by centroid similarity (tag-sharing groups are added)."),
        ("patterns.exemplars", 3, "Supporting examples kept per group."),
        ("patterns.recurringThreshold", 3, "Distinct eligible records that make a recurring finding."),
        ("patterns.relatedThreshold", 2, "Distinct eligible records shown as related examples."),
        ("patterns.judge", "off", "Evidence judge every automatic membership needs: off (similarity alone), client (the client's model, asked with patterns/judge requests; the client declares capabilities.judge) or openai (an OpenAI-compatible chat completion at patterns.judgeUrl)."),
        ("patterns.judgeInstruction", "", "Matching instruction sent with every judge question; empty means the built-in one (a specific shared element and any important difference, no match on a broad mood or common noun alone, unnamed people are not one person, weak connections stay apart, corrections are respected)."),
        ("patterns.judgeTimeoutMs", 30000, "Longest wait for one judge answer, in milliseconds (a client's response, or one HTTP exchange with patterns.judge = openai); the occurrence then waits for the next refresh."),
        ("patterns.dismissedMargin", 0.15, "A record dismissed from a group joins another only when its similarities to the representative and the examples clear tauRep and tauSup by this much (with a judge, the judge decides); above 1 never by similarity."),
        ("patterns.judgeCandidates", 5, "With a judge: the nearest entries each waiting occurrence proposes to the judge (each standing for its group when it has one); closest pairs are asked about first. 5 reaches the same recall as 10 on the bundled journals with a third fewer questions."),
        ("patterns.judgeFloor", 0.10, "With a judge: a proposed pair must be at least this far above its category's background similarity (a floor; the judge decides, not a precision threshold), a distance that moves with the background and similarityScale as the thresholds' do (about 0.015 under multilingual-e5-small)."),
        ("patterns.judgeBudget", 2000, "With a judge: questions sent per refresh at most (stored verdicts are free); the rest wait for the next refresh, and the refresh result's judgeWanted counts them."),
        ("patterns.judgeUrl", "", "Base URL of the OpenAI-compatible chat completions endpoint for patterns.judge = openai (POST {url}/chat/completions); empty means https://api.openai.com/v1."),
        ("patterns.judgeModel", "", "Model id for patterns.judge = openai."),
        ("patterns.judgeApiKey", "", "API key for patterns.judge = openai, sent only in the Authorization header; never logged or reported. Prefer KINDRED_PATTERNS_JUDGE_API_KEY."),
        ("patterns.minComparisonDenominator", 5, "Period comparisons are suppressed when either period has fewer eligible records."),
        ("cluster.shards", 64, "Shard count of a new cluster, recorded by the first node that starts (1 to 4096); fixed once the cluster exists. kindred node --shards overrides it."),
        ("cluster.failoverMs", 5000, "A node whose heartbeat is older than this (at least 500 ms) is taken as gone: the other nodes take its shards, and cluster drain does not count it as a taker. kindred node --failover-ms overrides it."),
        ("cluster.standbys", 1, "Nodes besides the leader that keep a copy of each shard, applying its log as it grows (0 to 8), so that a failover or a drain hands the shard to a node that only applies the log's tail; each copy costs the shard's disk and the model's time for each write once more."),
        ("cluster.timeoutMs", 30000, "Longest a router (serve --cluster) waits for a node's answer (at least 100 ms); then the request is answered -32060, retryable. serve --timeout-ms overrides it."),
        ("cluster.retryMs", 10000, "How long a router asks again, backing off, for a shard no node serves (it is starting or moving) before it answers -32060; 0 answers at once."),
        ("cluster.snapshotEvery", 10000, "A shard's leader snapshots the shard's store into JetStream after this many writes since its last snapshot (0: not by count); the write log is then trimmed through the older of the two snapshots kept, and a new node, or a copy behind it, starts from the newest."),
        ("cluster.snapshotEveryMs", 600000, "A shard that took a write since its last snapshot is snapshotted once this many milliseconds have passed since that snapshot (0: not by time)."),
    ]

    public init() {
        var v: [String: JSONValue] = [:]
        for d in Config.defaults { v[d.key] = d.value }
        values = v
    }

    public static func isKnown(_ key: String) -> Bool { defaults.contains { $0.key == canonical(key) } }

    /// Former names of keys, still accepted in every layer (file, environment, flags) and read as the
    /// current key; the current name wins when both are given.
    public static let keyAliases: [(old: String, key: String)] = [("search.batchGemmThreshold", "search.sharedScanQueries")]

    /// The current name of `key` (itself unless it is a former name).
    public static func canonical(_ key: String) -> String { keyAliases.first { $0.old == key }?.key ?? key }

    /// Applies a JSON config document (nested objects are flattened into dotted keys).
    public mutating func apply(json: JSONValue) throws(ConfigError) {
        guard case .object(let o) = json else { throw ConfigError(key: "", reason: "config must be a JSON object") }
        try flatten(o, prefix: "")
    }

    private mutating func flatten(_ o: JSONObject, prefix: String) throws(ConfigError) {
        // Former names first, so that a current name given beside its former one wins.
        let former = { (k: String) in Config.keyAliases.contains { $0.old == (prefix.isEmpty ? k : prefix + "." + k) } }
        for (k, v) in o.sorted(by: { former($0.key) && !former($1.key) }) {
            let key = prefix.isEmpty ? k : prefix + "." + k
            if case .object(let inner) = v, !Config.isKnown(key) {
                try flatten(inner, prefix: key)
            } else {
                try set(key, v)
            }
        }
    }

    /// Sets one key, checking that it is known and that the type matches the default's.
    public mutating func set(_ key: String, _ value: JSONValue) throws(ConfigError) {
        let key = Config.canonical(key)
        guard let d = Config.defaults.first(where: { $0.key == key }) else {
            throw ConfigError(key: key, reason: "unknown configuration key")
        }
        switch (d.value, value) {
        case (.int, .int), (.string, .string), (.bool, .bool), (.double, .double), (.double, .int): values[key] = value
        default: throw ConfigError(key: key, reason: "expected a \(d.value.typeName), got \(value.typeName)")
        }
    }

    /// Sets one key from text (environment variables and flags).
    public mutating func set(_ key: String, text: String) throws(ConfigError) {
        let key = Config.canonical(key)
        guard let d = Config.defaults.first(where: { $0.key == key }) else {
            throw ConfigError(key: key, reason: "unknown configuration key")
        }
        switch d.value {
        case .int:
            guard let i = Int64(text) else { throw ConfigError(key: key, reason: "expected an integer, got '\(text)'") }
            values[key] = .int(i)
        case .double:
            guard let x = Double(text) else { throw ConfigError(key: key, reason: "expected a number, got '\(text)'") }
            values[key] = .double(x)
        case .bool:
            guard let b = Bool(text) else { throw ConfigError(key: key, reason: "expected true or false, got '\(text)'") }
            values[key] = .bool(b)
        default: values[key] = .string(text)
        }
    }

    /// Short names some keys also answer to in the environment (the longer name wins when both are set).
    public static let environmentAliases: [(name: String, key: String)] = [("KINDRED_EMBEDDER", "embedder.provider")]

    /// Applies `KINDRED_*` variables whose names match a known key.
    public mutating func apply(environment: [String: String]) throws(ConfigError) {
        for alias in Config.environmentAliases {
            if let text = environment[alias.name] { try set(alias.key, text: text) }
        }
        for alias in Config.keyAliases {
            if let text = environment[Config.environmentName(alias.old)] { try set(alias.key, text: text) }
        }
        for d in Config.defaults {
            if let text = environment[Config.environmentName(d.key)] { try set(d.key, text: text) }
        }
    }

    /// `search.defaultLimit` → `KINDRED_SEARCH_DEFAULT_LIMIT`.
    public static func environmentName(_ key: String) -> String {
        var out = "KINDRED_"
        for ch in key {
            if ch == "." { out.append("_") } else if ch.isUppercase { out.append("_"); out.append(ch) } else {
                out.append(contentsOf: ch.uppercased())
            }
        }
        return out
    }

    public func int(_ key: String) -> Int { Int(values[key]?.intValue ?? 0) }
    public func double(_ key: String) -> Double { values[key]?.doubleValue ?? 0 }
    public func string(_ key: String) -> String { values[key]?.stringValue ?? "" }
    public func bool(_ key: String) -> Bool { values[key]?.boolValue ?? false }
}

public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    public let key: String
    public let reason: String
    public init(key: String, reason: String) {
        self.key = key
        self.reason = reason
    }
    public var description: String { key.isEmpty ? reason : "\(key): \(reason)" }
}
