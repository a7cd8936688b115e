/// `patterns/themes`: the broader patterns above groups — groups of one category that share a
/// broader situation — with counts of distinct records over the eligible ones, like findings.
public struct PatternsThemes: KindredRequest {
    public struct Result: Codable, Sendable, Hashable {
        public struct GroupDetail: Codable, Sendable, Hashable {
            public var groupId: Int, records: Int
            /// `automatic`, `pinned` or `moved`.
            public var source: String
            public var representative: Bool, example: Bool
            public init(groupId: Int, records: Int, source: String, representative: Bool, example: Bool) {
                self.groupId = groupId; self.records = records; self.source = source; self.representative = representative; self.example = example
            }
        }
        public struct Evidence: Codable, Sendable, Hashable {
            public var groupId: Int
            public var recordId: String
            public var revision: Int
            public var occurrenceId: Int
            public var excerpt: String
            @Nullable public var date: String?
            public init(groupId: Int, recordId: String, revision: Int, occurrenceId: Int, excerpt: String, date: String?) {
                self.groupId = groupId; self.recordId = recordId; self.revision = revision; self.occurrenceId = occurrenceId
                self.excerpt = excerpt; self.date = date
            }
        }
        public struct Theme: Codable, Sendable, Hashable {
            public var themeId: Int
            public var version: Int
            public var category: String
            /// At most 60 characters: a key phrase and keywords (never stopwords).
            public var label: String
            public var description: String
            public var keywords: [String]
            public var groups: [Int]
            public var groupDetails: [GroupDetail]
            @Nullable public var representativeGroupId: Int?
            public var records: Int
            public var eligible: Int
            public var summary: String
            public var evidence: [Evidence]
            public init(themeId: Int, version: Int, category: String, label: String, description: String, keywords: [String], groups: [Int],
                        groupDetails: [GroupDetail], representativeGroupId: Int?, records: Int, eligible: Int, summary: String, evidence: [Evidence]) {
                self.themeId = themeId; self.version = version; self.category = category; self.label = label; self.description = description
                self.keywords = keywords; self.groups = groups; self.groupDetails = groupDetails; self.representativeGroupId = representativeGroupId
                self.records = records; self.eligible = eligible; self.summary = summary; self.evidence = evidence
            }
        }
        public var eligibleRecords: Int
        public var total: Int
        public var themes: [Theme]
        /// Pass it as `cursor` for the next page.
        public var nextCursor: String?
        public init(eligibleRecords: Int, total: Int, themes: [Theme], nextCursor: String? = nil) {
            self.eligibleRecords = eligibleRecords; self.total = total; self.themes = themes; self.nextCursor = nextCursor
        }
    }
    public var owner: String
    public var category: String?
    public var kinds: [String]?
    public var from: String?
    public var to: String?
    public var limit: Int?
    public var cursor: String?
    public init(owner: String, category: String? = nil, kinds: [String]? = nil, from: String? = nil, to: String? = nil,
                limit: Int? = nil, cursor: String? = nil) {
        self.owner = owner; self.category = category; self.kinds = kinds; self.from = from; self.to = to
        self.limit = limit; self.cursor = cursor
    }
    public static let spec = MethodSpec("patterns/themes", for: Self.self)
}

extension PatternsThemes: FieldNotes {
    public static let fieldNotes: [String: FieldNote] = [
        "category": "Only themes of this occurrence category.",
        "kinds": "Only records of these kinds count (e.g. dream).",
        "from": "Count records dated on or after this ISO-8601 date.",
        "to": "Count records dated on or before this ISO-8601 date.",
        "limit": FieldNote("Themes per page.", range: 1...1000),
        "cursor": "nextCursor of the previous page.",
    ]
}

/// The theme a group is in, as `patterns/group` gives it (`PatternsGroup.Result.theme`).
public struct GroupTheme: Codable, Sendable, Hashable {
    public var themeId: Int
    public var version: Int
    @Nullable public var label: String?
    public var groups: [Int]
    @Nullable public var source: String?
    public var representative: Bool
    public init(themeId: Int, version: Int, label: String?, groups: [Int], source: String?, representative: Bool) {
        self.themeId = themeId; self.version = version; self.label = label; self.groups = groups; self.source = source
        self.representative = representative
    }
}
