/// `patterns/themes`: the broader patterns above groups — groups of one category that share a
/// broader situation — with counts of distinct records over the eligible ones, like findings.
public struct Themes: KindredRequest {
    public static let method = "patterns/themes"
    public struct Result: Decodable, Sendable, Hashable {
        public struct GroupDetail: Decodable, Sendable, Hashable {
            public var groupId: Int
            public var records: Int
            /// `automatic`, `pinned` or `moved`.
            public var source: String
            public var representative: Bool
            public var example: Bool
        }
        public struct Evidence: Decodable, Sendable, Hashable {
            public var groupId: Int
            public var recordId: String
            public var revision: Int
            public var occurrenceId: Int
            public var excerpt: String
            public var date: String?
        }
        public struct Theme: Decodable, Sendable, Hashable {
            public var themeId: Int
            public var version: Int
            public var category: String
            /// At most 60 characters: a key phrase and keywords (never stopwords).
            public var label: String
            public var description: String
            public var keywords: [String]
            public var groups: [Int]
            public var groupDetails: [GroupDetail]
            public var representativeGroupId: Int?
            public var records: Int
            public var eligible: Int
            public var summary: String
            public var evidence: [Evidence]
        }
        public var eligibleRecords: Int
        public var total: Int
        public var themes: [Theme]
        /// Pass it as `cursor` for the next page.
        public var nextCursor: String?
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
}

/// The theme a group is in, as `patterns/group` gives it (`GetGroup.Result.theme`).
public struct GroupTheme: Decodable, Sendable, Hashable {
    public var themeId: Int
    public var version: Int
    public var label: String?
    public var groups: [Int]
    public var source: String?
    public var representative: Bool
}

/// A theme correction through `patterns/correct`: stored apart from group corrections and honoured
/// by every later refresh; `patterns/undoCorrection` undoes it by its id.
public struct CorrectTheme: KindredRequest {
    public static let method = "patterns/correct"
    public struct Correction: Encodable, Sendable, Hashable {
        public var kind: String
        public var themeId: Int
        public var groupId: Int?
        public var moveOut: [Int]?
        public var fromThemeId: Int?
        public var note: String?
        /// `group` leaves `theme` and never joins it again.
        public static func remove(group: Int, from theme: Int, note: String? = nil) -> Self {
            Self(kind: "themeRemove", themeId: theme, groupId: group, note: note)
        }
        /// `moveOut` groups go to a new theme and never share one with the groups that stay.
        public static func split(_ theme: Int, moveOut: [Int], note: String? = nil) -> Self {
            Self(kind: "themeSplit", themeId: theme, moveOut: moveOut, note: note)
        }
        public static func merge(_ from: Int, into theme: Int, note: String? = nil) -> Self {
            Self(kind: "themeMerge", themeId: theme, fromThemeId: from, note: note)
        }
        public static func pin(group: Int, to theme: Int, note: String? = nil) -> Self {
            Self(kind: "themePin", themeId: theme, groupId: group, note: note)
        }
        public static func dismiss(_ theme: Int, note: String? = nil) -> Self {
            Self(kind: "themeDismiss", themeId: theme, note: note)
        }
    }
    public struct Result: Decodable, Sendable, Hashable { public var correctionId: Int; public var affectedThemes: [Int] }
    public var owner: String
    public var correction: Correction
    public init(owner: String, correction: Correction) { self.owner = owner; self.correction = correction }
}
