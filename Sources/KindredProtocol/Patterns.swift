/// The answer of `patterns/refresh` and `patterns/rebuild`; `occurrences == occurrencesInGroups + pending`.
public struct RefreshSummary: Codable, Sendable, Hashable {
    public var recordsGrouped = 0
    public var activeGroups = 0
    public var groupsCreated = 0
    public var groupsChanged = 0
    public var groupsDormant = 0
    /// Groups combined into an older one by this refresh (the older id survives).
    public var groupsCombined = 0
    /// Themes the refresh created and changed, and active themes afterwards (`PatternsThemes`).
    public var themesCreated = 0
    public var themesChanged = 0
    public var activeThemes = 0
    public var occurrences = 0
    public var occurrencesInGroups = 0
    /// Occurrences in a group now that were in none before this refresh; `seeded` of them in groups it created.
    public var placed = 0
    public var seeded = 0
    /// The engine's placements into a group after it was created (groups created earlier in the same refresh included).
    public var assigned = 0
    public var evicted = 0
    public var pending = 0
    public var owners = 0
    public var passageOccurrences = 0
    public var vectorsComputed = 0
    public var waitingForEmbedder = 0
    public var durationMs = 0
    /// A category whose background level in force moved in this refresh, in hundredths (`previous` null: it had none).
    public struct BackgroundLevel: Codable, Sendable, Hashable {
        public var owner: String
        public var category: String
        public var level: Int
        @Nullable public var previous: Int?
        public init(owner: String, category: String, level: Int, previous: Int?) {
            self.owner = owner; self.category = category; self.level = level; self.previous = previous
        }
    }
    public var backgroundLevels: [BackgroundLevel]? = nil
    /// With a judge (`patterns.judge`): its mode, the questions left for a later refresh, asked,
    /// answered from stored verdicts and wanted, and what went wrong asking it.
    public var judge: String? = nil
    public var waitingForJudge: Int? = nil
    public var judgeAsked: Int? = nil
    public var judgeRemembered: Int? = nil
    public var judgeWanted: Int? = nil
    public var judgeProblem: String? = nil

    public init() {}
}

/// `patterns/refresh`: places what changed (progress, cancellable; one transaction).
public struct PatternsRefresh: KindredRequest {
    public typealias Result = RefreshSummary
    /// Every owner when nil.
    public var owner: String?
    public init(owner: String? = nil) { self.owner = owner }
    public static let spec = MethodSpec("patterns/refresh", for: Self.self)
}

/// `patterns/rebuild`: regroups from scratch, keeping corrections.
public struct PatternsRebuild: KindredRequest {
    public typealias Result = RefreshSummary
    public var owner: String?
    public init(owner: String? = nil) { self.owner = owner }
    public static let spec = MethodSpec("patterns/rebuild", for: Self.self)
}

/// `patterns/findings`: recurring patterns with counts of distinct records and their evidence.
public struct PatternsFindings: KindredRequest {
    public struct Result: Codable, Sendable, Hashable {
        public struct Count: Codable, Sendable, Hashable {
            public var records: Int
            public var eligible: Int
            public init(records: Int, eligible: Int) { self.records = records; self.eligible = eligible }
        }
        public struct Comparison: Codable, Sendable, Hashable {
            public var current, previous: Count
            public var suppressed: Bool
            public var trend: String?
            public init(current: Count, previous: Count, suppressed: Bool, trend: String? = nil) {
                self.current = current; self.previous = previous; self.suppressed = suppressed; self.trend = trend
            }
        }
        public struct Evidence: Codable, Sendable, Hashable {
            public var recordId: String
            public var revision: Int
            public var occurrenceId: Int
            public var excerpt: String
            @Nullable public var date: String?
            public init(recordId: String, revision: Int, occurrenceId: Int, excerpt: String, date: String?) {
                self.recordId = recordId; self.revision = revision; self.occurrenceId = occurrenceId; self.excerpt = excerpt; self.date = date
            }
        }
        public struct Finding: Codable, Sendable, Hashable {
            public var groupId: Int
            public var version: Int
            /// `recurring` or `related`.
            public var kind: String
            public var category: String
            public var description: String
            public var keywords: [String]
            public var generatedLabel: String
            public var records: Int
            public var eligible: Int
            public var summary: String
            public var moreEvidence: Int
            public var evidence: [Evidence]
            public var label: String?
            public var labelDescription: String?
            public var comparison: Comparison?
            public init(groupId: Int, version: Int, kind: String, category: String, description: String, keywords: [String],
                        generatedLabel: String, records: Int, eligible: Int, summary: String, moreEvidence: Int, evidence: [Evidence],
                        label: String? = nil, labelDescription: String? = nil, comparison: Comparison? = nil) {
                self.groupId = groupId; self.version = version; self.kind = kind; self.category = category; self.description = description
                self.keywords = keywords; self.generatedLabel = generatedLabel; self.records = records; self.eligible = eligible
                self.summary = summary; self.moreEvidence = moreEvidence; self.evidence = evidence; self.label = label
                self.labelDescription = labelDescription; self.comparison = comparison
            }
        }
        public var eligibleRecords: Int
        public var insufficientHistory: Bool
        public var total: Int
        public var findings: [Finding]
        /// Pass it as `cursor` for the next page.
        public var nextCursor: String?
        public init(eligibleRecords: Int, insufficientHistory: Bool, total: Int, findings: [Finding], nextCursor: String? = nil) {
            self.eligibleRecords = eligibleRecords; self.insufficientHistory = insufficientHistory; self.total = total
            self.findings = findings; self.nextCursor = nextCursor
        }
    }
    public var owner: String
    public var from: String?
    public var to: String?
    public var compareFrom: String?
    public var compareTo: String?
    public var category: String?
    /// Only records of these kinds count, in the denominators and as evidence.
    public var kinds: [String]?
    public var includeRelated: Bool?
    public var limit: Int?
    public var cursor: String?
    public var evidenceLimit: Int?
    public init(owner: String, from: String? = nil, to: String? = nil, compareFrom: String? = nil, compareTo: String? = nil,
                category: String? = nil, kinds: [String]? = nil, includeRelated: Bool? = nil, limit: Int? = nil,
                cursor: String? = nil, evidenceLimit: Int? = nil) {
        self.owner = owner; self.from = from; self.to = to; self.compareFrom = compareFrom; self.compareTo = compareTo
        self.category = category; self.kinds = kinds; self.includeRelated = includeRelated; self.limit = limit
        self.cursor = cursor; self.evidenceLimit = evidenceLimit
    }
    public static let spec = MethodSpec("patterns/findings", for: Self.self)
}

extension PatternsFindings: FieldNotes {
    public static let fieldNotes: [String: FieldNote] = [
        "from": "Start of the period, ISO-8601 date (inclusive); all records when absent.",
        "to": "End of the period, ISO-8601 date (inclusive).",
        "compareFrom": "Start of a period to compare with (usually an earlier one).",
        "compareTo": "End of the period to compare with.",
        "category": "Only this category (person, place, object, action, emotion, theme, passage, ...).",
        "includeRelated": "Also list groups of exactly 2 records (default true).",
        "kinds": FieldNote("Count only records of these kinds (e.g. [\"dream\"]), in the denominators too.", minItems: 1),
        "limit": FieldNote("Findings per answer (all when absent).", range: 1...1000),
        "cursor": "nextCursor of the previous answer, for the next findings.",
        "evidenceLimit": FieldNote("Evidence items per finding (all when absent); moreEvidence says how many were left out.", range: 1...1000),
    ]
}

extension PatternsFindings.Result: FieldNotes {
    public static let fieldNotes: [String: FieldNote] = [
        "eligibleRecords": "Records in the period that count (the denominator).",
        "total": "Findings in all (this answer may hold fewer: see nextCursor).",
    ]
}

/// `patterns/group`: one group with its members and the corrections that name it.
public struct PatternsGroup: KindredRequest {
    public struct Result: Codable, Sendable, Hashable {
        public struct Member: Codable, Sendable, Hashable {
            public var occurrenceId: Int
            /// `automatic`, `pinned`, `moved`, `combined` or `judged`.
            public var source: String
            public var score: Int?
            /// The occurrence's record and text (left out when it is no longer stored).
            public var recordId: String?
            public var revision: Int?
            public var description: String?
            public var excerpt: String?
            @Nullable public var date: String?
            public var medoid: Bool
            public var exemplar: Bool
            public init(occurrenceId: Int, source: String, score: Int? = nil, recordId: String? = nil, revision: Int? = nil,
                        description: String? = nil, excerpt: String? = nil, date: String? = nil, medoid: Bool, exemplar: Bool) {
                self.occurrenceId = occurrenceId; self.source = source; self.score = score; self.recordId = recordId
                self.revision = revision; self.description = description; self.excerpt = excerpt; self.date = date
                self.medoid = medoid; self.exemplar = exemplar
            }
        }
        public struct Group: Codable, Sendable, Hashable {
            public var groupId: Int
            public var category: String
            public var state: String
            public var version: Int
            @Nullable public var label: String?
            @Nullable public var description: String?
            public var keywords: [String]
            public var records: Int
            @Nullable public var medoid: Int?
            public var exemplars: [Int]
            public var members: [Member]
            public var labelDescription: String?
            public var mergedInto: Int?
            /// The specific word the members share: why they belong together (null when none).
            @Nullable public var sharedElement: String?
            public init(groupId: Int, category: String, state: String, version: Int, label: String?, description: String?,
                        keywords: [String], records: Int, medoid: Int?, exemplars: [Int], members: [Member],
                        labelDescription: String? = nil, mergedInto: Int? = nil, sharedElement: String? = nil) {
                self.groupId = groupId; self.category = category; self.state = state; self.version = version; self.label = label
                self.description = description; self.keywords = keywords; self.records = records; self.medoid = medoid
                self.exemplars = exemplars; self.members = members; self.labelDescription = labelDescription
                self.mergedInto = mergedInto; self.sharedElement = sharedElement
            }
        }
        public var group: Group
        public var corrections: [CorrectionRecord]
        /// The theme holding the group (null when it is in no active theme).
        @Nullable public var theme: GroupTheme?
        public init(group: Group, corrections: [CorrectionRecord], theme: GroupTheme?) {
            self.group = group; self.corrections = corrections; self.theme = theme
        }
    }
    public var owner: String
    public var groupId: Int
    public init(owner: String, groupId: Int) { self.owner = owner; self.groupId = groupId }
    public static let spec = MethodSpec("patterns/group", for: Self.self)
}

extension PatternsGroup: FieldNotes {
    public static let fieldNotes: [String: FieldNote] = ["groupId": "The group id (from findings)."]
}
