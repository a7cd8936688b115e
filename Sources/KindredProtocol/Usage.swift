/// `usage/daily`: an owner's use of remote providers per UTC day and provider, with the daily limits.
public struct UsageDaily: KindredRequest {
    public static let spec = MethodSpec("usage/daily", [.required("owner"), .optional("from"), .optional("to")],
        result: ["owner", "days", "limits", "today"])
    public struct Result: Codable, Sendable, Hashable {
        public struct Day: Codable, Sendable, Hashable {
            public var day: String
            public var provider: String
            public var calls: Int
            public var attempts: Int
            public var inputCharacters: Int
            public var tokens: Int?
        }
        public struct Limits: Codable, Sendable, Hashable {
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
