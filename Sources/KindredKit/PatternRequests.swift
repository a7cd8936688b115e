/// An occurrence as a client's extractor finds it (`occurrences/put`).
public struct OccurrenceInput: Codable, Sendable, Hashable {
    public var category: String
    public var description: String
    /// Must occur in the record's text (after folding whitespace, curly quotes and case).
    public var excerpt: String
    public var tags: [String]?
    public init(category: String, description: String, excerpt: String, tags: [String]? = nil) {
        self.category = category; self.description = description; self.excerpt = excerpt; self.tags = tags
    }
}

/// `occurrences/put`: replaces one record revision's occurrences.
public struct PutOccurrences: KindredRequest {
    public static let method = "occurrences/put"
    public struct Result: Decodable, Sendable, Hashable {
        public struct Accepted: Decodable, Sendable, Hashable {
            public var index: Int
            public var occurrenceId: Int
            public var excerpt: String
            public var start: Int
            public var end: Int
        }
        public struct Rejected: Decodable, Sendable, Hashable { public var index: Int; public var field: String; public var reason: String }
        public var recordId: String
        public var revision: Int
        public var accepted: Int
        public var occurrences: [Accepted]
        public var rejected: [Rejected]
        /// `stored`, or `waiting` (no embedder yet).
        public var vectors: String
    }
    public var owner: String
    public var recordId: String
    public var revision: Int
    public var occurrences: [OccurrenceInput]
    public init(owner: String, recordId: String, revision: Int, occurrences: [OccurrenceInput]) {
        self.owner = owner; self.recordId = recordId; self.revision = revision; self.occurrences = occurrences
    }
}

/// The answer of `patterns/refresh` and `patterns/rebuild`; `occurrences == occurrencesInGroups + pending`.
public struct RefreshSummary: Decodable, Sendable, Hashable {
    public var recordsGrouped: Int
    public var activeGroups: Int
    public var groupsCreated: Int
    public var groupsChanged: Int
    public var groupsDormant: Int
    /// Themes the refresh created and changed, and active themes afterwards (`Themes`).
    public var themesCreated: Int
    public var themesChanged: Int
    public var activeThemes: Int
    public var occurrences: Int
    public var occurrencesInGroups: Int
    /// Occurrences in a group now that were in none before this refresh; `seeded` of them in groups it created.
    public var placed: Int
    public var seeded: Int
    /// The engine's placements into a group after it was created (groups created earlier in the same refresh included).
    public var assigned: Int
    public var evicted: Int
    public var pending: Int
    public var owners: Int
    public var passageOccurrences: Int
    public var vectorsComputed: Int
    public var waitingForEmbedder: Int
    public var durationMs: Int
}

/// `patterns/refresh`: places what changed (progress, cancellable; one transaction).
public struct RefreshPatterns: KindredRequest {
    public static let method = "patterns/refresh"
    public typealias Result = RefreshSummary
    /// Every owner when nil.
    public var owner: String?
    public init(owner: String? = nil) { self.owner = owner }
}

/// `patterns/rebuild`: regroups from scratch, keeping corrections.
public struct RebuildPatterns: KindredRequest {
    public static let method = "patterns/rebuild"
    public typealias Result = RefreshSummary
    public var owner: String?
    public init(owner: String? = nil) { self.owner = owner }
}

/// `patterns/findings`: recurring patterns with counts of distinct records and their evidence.
public struct Findings: KindredRequest {
    public static let method = "patterns/findings"
    public struct Result: Decodable, Sendable, Hashable {
        public struct Count: Decodable, Sendable, Hashable { public var records: Int; public var eligible: Int }
        public struct Comparison: Decodable, Sendable, Hashable {
            public var current: Count
            public var previous: Count
            public var suppressed: Bool
            public var trend: String?
        }
        public struct Evidence: Decodable, Sendable, Hashable {
            public var recordId: String
            public var revision: Int
            public var occurrenceId: Int
            public var excerpt: String
            public var date: String?
        }
        public struct Finding: Decodable, Sendable, Hashable {
            public var groupId: Int
            public var version: Int
            /// `recurring` or `related`.
            public var kind: String
            public var category: String
            public var label: String?
            public var labelDescription: String?
            public var description: String
            public var keywords: [String]
            public var generatedLabel: String
            public var records: Int
            public var eligible: Int
            public var summary: String
            public var moreEvidence: Int
            public var comparison: Comparison?
            public var evidence: [Evidence]
        }
        public var eligibleRecords: Int
        public var insufficientHistory: Bool
        public var total: Int
        public var findings: [Finding]
        /// Pass it as `cursor` for the next page.
        public var nextCursor: String?
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
}

/// A correction as `patterns/corrections` and `patterns/group` list it.
public struct CorrectionRecord: Decodable, Sendable, Hashable {
    public var correctionId: Int
    public var kind: String
    public var groupId: Int
    public var occurrenceId: Int?
    public var moveOut: [Int]?
    public var fromGroupId: Int?
    public var note: String?
    public var createdAt: String
    public var undone: Bool
    public var separated: [[String]]
    public var joined: [[String]]
}

/// `patterns/group`: one group with its members and the corrections that name it.
public struct GetGroup: KindredRequest {
    public static let method = "patterns/group"
    public struct Result: Decodable, Sendable, Hashable {
        public struct Member: Decodable, Sendable, Hashable {
            public var occurrenceId: Int
            /// `automatic`, `pinned` or `moved`.
            public var source: String
            public var score: Int?
            public var recordId: String?
            public var revision: Int?
            public var description: String?
            public var excerpt: String?
            public var date: String?
            public var medoid: Bool
            public var exemplar: Bool
        }
        public struct Group: Decodable, Sendable, Hashable {
            public var groupId: Int
            public var category: String
            public var state: String
            public var version: Int
            public var label: String?
            public var labelDescription: String?
            public var description: String?
            public var keywords: [String]
            public var records: Int
            public var medoid: Int?
            public var exemplars: [Int]
            public var mergedInto: Int?
            public var members: [Member]
        }
        public var group: Group
        public var corrections: [CorrectionRecord]
        /// The theme holding the group (nil when it is in no active theme).
        public var theme: GroupTheme?
    }
    public var owner: String
    public var groupId: Int
    public init(owner: String, groupId: Int) { self.owner = owner; self.groupId = groupId }
}

/// `patterns/correct`: dismiss, split, merge or pin.
public struct Correct: KindredRequest {
    public static let method = "patterns/correct"
    public struct Correction: Encodable, Sendable, Hashable {
        public var kind: String
        public var groupId: Int
        public var occurrenceId: Int?
        public var moveOut: [Int]?
        public var fromGroupId: Int?
        public var note: String?
        public static func dismiss(occurrence: Int, from group: Int, note: String? = nil) -> Self {
            Self(kind: "dismiss", groupId: group, occurrenceId: occurrence, note: note)
        }
        public static func pin(occurrence: Int, to group: Int, note: String? = nil) -> Self {
            Self(kind: "pin", groupId: group, occurrenceId: occurrence, note: note)
        }
        public static func split(_ group: Int, moveOut: [Int], note: String? = nil) -> Self {
            Self(kind: "split", groupId: group, moveOut: moveOut, note: note)
        }
        public static func merge(_ from: Int, into group: Int, note: String? = nil) -> Self {
            Self(kind: "merge", groupId: group, fromGroupId: from, note: note)
        }
    }
    public struct Result: Decodable, Sendable, Hashable { public var correctionId: Int; public var affectedGroups: [Int] }
    public var owner: String
    public var correction: Correction
    public init(owner: String, correction: Correction) { self.owner = owner; self.correction = correction }
}

/// `patterns/corrections`.
public struct ListCorrections: KindredRequest {
    public static let method = "patterns/corrections"
    public struct Result: Decodable, Sendable, Hashable { public var corrections: [CorrectionRecord] }
    public var owner: String
    public init(owner: String) { self.owner = owner }
}

/// `patterns/undoCorrection`.
public struct UndoCorrection: KindredRequest {
    public static let method = "patterns/undoCorrection"
    public struct Result: Decodable, Sendable, Hashable { public var correctionId: Int; public var undone: Bool; public var affectedGroups: [Int] }
    public var owner: String
    public var correctionId: Int
    public init(owner: String, correctionId: Int) { self.owner = owner; self.correctionId = correctionId }
}

/// `patterns/setLabel`: a client-written label for the group at `version` (nil clears it).
public struct SetLabel: KindredRequest {
    public static let method = "patterns/setLabel"
    public struct Result: Decodable, Sendable, Hashable { public var ok: Bool; public var groupId: Int; public var version: Int; public var label: String? }
    public var owner: String
    public var groupId: Int
    public var version: Int
    public var label: String?
    public var description: String?
    public init(owner: String, groupId: Int, version: Int, label: String?, description: String? = nil) {
        self.owner = owner; self.groupId = groupId; self.version = version; self.label = label; self.description = description
    }

    // `label` is required: null clears it, so it is written even when nil.
    enum CodingKeys: String, CodingKey { case owner, groupId, version, label, description }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(owner, forKey: .owner)
        try c.encode(groupId, forKey: .groupId)
        try c.encode(version, forKey: .version)
        try c.encode(label, forKey: .label)
        try c.encodeIfPresent(description, forKey: .description)
    }
}
