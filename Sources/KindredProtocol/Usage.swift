/// `usage/daily`: an owner's use of remote providers per UTC day and provider, with the daily limits.
public struct UsageDaily: KindredRequest {
    public struct Result: Codable, Sendable, Hashable {
        public struct Day: Codable, Sendable, Hashable {
            public var day: String
            public var provider: String
            public var calls: Int
            public var attempts: Int
            public var inputCharacters: Int
            public var tokens: Int?
            public init(day: String, provider: String, calls: Int, attempts: Int, inputCharacters: Int, tokens: Int? = nil) {
                self.day = day; self.provider = provider; self.calls = calls; self.attempts = attempts
                self.inputCharacters = inputCharacters; self.tokens = tokens
            }
        }
        public struct Limits: Codable, Sendable, Hashable {
            public var dailyCallLimit: Int?
            public var dailyCharacterLimit: Int?
            public init(dailyCallLimit: Int? = nil, dailyCharacterLimit: Int? = nil) {
                self.dailyCallLimit = dailyCallLimit; self.dailyCharacterLimit = dailyCharacterLimit
            }
        }
        public var owner: String
        public var days: [Day]
        public var limits: Limits
        public var today: String
        public init(owner: String, days: [Day], limits: Limits, today: String) {
            self.owner = owner; self.days = days; self.limits = limits; self.today = today
        }
    }
    public var owner: String
    /// UTC days, `YYYY-MM-DD`, inclusive.
    public var from: String?
    public var to: String?
    public init(owner: String, from: String? = nil, to: String? = nil) { self.owner = owner; self.from = from; self.to = to }
    public static let spec = MethodSpec("usage/daily", for: Self.self)
}
