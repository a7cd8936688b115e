/// `usage/daily`: an owner's use of remote providers per UTC day and provider, with the daily limits.
public struct UsageDaily: KindredRequest {
    public static let method = "usage/daily"
    public struct Result: Decodable, Sendable, Hashable {
        public struct Day: Decodable, Sendable, Hashable {
            public var day: String
            public var provider: String
            public var calls: Int
            public var attempts: Int
            public var inputCharacters: Int
            public var tokens: Int?
        }
        public struct Limits: Decodable, Sendable, Hashable {
            public var dailyCallLimit: Int?
            public var dailyCharacterLimit: Int?
        }
        public var owner: String
        public var days: [Day]
        public var limits: Limits
        public var today: String
    }
    public var owner: String
    /// UTC days, `YYYY-MM-DD`, inclusive.
    public var from: String?
    public var to: String?
    public init(owner: String, from: String? = nil, to: String? = nil) { self.owner = owner; self.from = from; self.to = to }
}

/// The method of every typed request this library offers, one per method the service answers.
public enum KindredMethods {
    public static let typed: [any KindredRequest.Type] = [
        UpsertRecords.self, DeleteRecords.self, GetRecord.self, SetPermissions.self, PurgeTombstones.self,
        SearchQuery.self, SearchSimilar.self, IndexStatus.self, RebuildIndex.self, UsageDaily.self,
        PutOccurrences.self, PutOccurrenceItems.self, RefreshPatterns.self, RebuildPatterns.self, Findings.self,
        GetGroup.self, Correct.self, ListCorrections.self, UndoCorrection.self, SetLabel.self,
        PatternMap.self, PatternTimeline.self, Themes.self, CorrectTheme.self,
    ]
}
