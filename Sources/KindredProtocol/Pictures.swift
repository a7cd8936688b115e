/// `patterns/map`: the owner's groups placed by PCA of their centroids, as SVG.
public struct PatternsMap: KindredRequest {
    public struct Result: Codable, Sendable, Hashable {
        public struct Circle: Codable, Sendable, Hashable {
            public var groupId: Int
            public var label: String
            public var category: String
            /// The kind of the group's records ("" for records without one).
            public var kind: String?
            public var records: Int
            public var x: Double
            public var y: Double
            /// False: numbered in its circle and listed under the legend.
            public var labelBeside: Bool
            /// The theme the group is in (with `patterns.themes` on; null when none).
            @Nullable public var themeId: Int?
            public init(groupId: Int, label: String, category: String, kind: String?, records: Int, x: Double, y: Double, labelBeside: Bool, themeId: Int?) {
                self.groupId = groupId; self.label = label; self.category = category; self.kind = kind; self.records = records
                self.x = x; self.y = y; self.labelBeside = labelBeside; self.themeId = themeId
            }
        }
        /// With `patterns.themes` on: the themes drawn, each around its groups.
        public struct Theme: Codable, Sendable, Hashable {
            public var themeId: Int, label: String, groups: [Int]
            public init(themeId: Int, label: String, groups: [Int]) { self.themeId = themeId; self.label = label; self.groups = groups }
        }
        /// Plain SVG 1.1.
        public var svg: String
        public var eligibleRecords: Int
        public var explainedVariance: [Double]
        public var groups: [Circle]
        public var themes: [Theme]?
        public init(svg: String, eligibleRecords: Int, explainedVariance: [Double], groups: [Circle], themes: [Theme]?) {
            self.svg = svg; self.eligibleRecords = eligibleRecords; self.explainedVariance = explainedVariance; self.groups = groups; self.themes = themes
        }
    }
    public var owner: String
    public var category: String?
    public var from: String?
    public var to: String?
    public init(owner: String, category: String? = nil, from: String? = nil, to: String? = nil) {
        self.owner = owner; self.category = category; self.from = from; self.to = to
    }
    public static let spec = MethodSpec("patterns/map", for: Self.self)
}

/// `patterns/timeline`: the top recurring findings as small multiples of monthly bars, as SVG.
public struct PatternsTimeline: KindredRequest {
    public struct Result: Codable, Sendable, Hashable {
        public struct Bin: Codable, Sendable, Hashable {
            public var start: String, records: Int, eligible: Int
            public init(start: String, records: Int, eligible: Int) { self.start = start; self.records = records; self.eligible = eligible }
        }
        /// As a finding's, with `trend` null when there is none.
        public struct Comparison: Codable, Sendable, Hashable {
            public var current, previous: PatternsFindings.Result.Count
            public var suppressed: Bool
            @Nullable public var trend: String?
            public init(current: PatternsFindings.Result.Count, previous: PatternsFindings.Result.Count, suppressed: Bool, trend: String?) {
                self.current = current; self.previous = previous; self.suppressed = suppressed; self.trend = trend
            }
        }
        public struct Panel: Codable, Sendable, Hashable {
            public var groupId: Int
            public var label: String
            public var category: String
            public var records: Int
            public var eligible: Int
            public var bins: [Bin]
            public var comparison: Comparison?
            public init(groupId: Int, label: String, category: String, records: Int, eligible: Int, bins: [Bin], comparison: Comparison? = nil) {
                self.groupId = groupId; self.label = label; self.category = category; self.records = records; self.eligible = eligible
                self.bins = bins; self.comparison = comparison
            }
        }
        public var svg: String
        public var eligibleRecords: Int
        public var binMonths: Int
        public var undatedRecords: Int
        public var findings: [Panel]
        public init(svg: String, eligibleRecords: Int, binMonths: Int, undatedRecords: Int, findings: [Panel]) {
            self.svg = svg; self.eligibleRecords = eligibleRecords; self.binMonths = binMonths; self.undatedRecords = undatedRecords; self.findings = findings
        }
    }
    public var owner: String
    public var from: String?
    public var to: String?
    public var compareFrom: String?
    public var compareTo: String?
    public var category: String?
    /// 1 … 24, default 6.
    public var limit: Int?
    public init(owner: String, from: String? = nil, to: String? = nil, compareFrom: String? = nil, compareTo: String? = nil,
                category: String? = nil, limit: Int? = nil) {
        self.owner = owner; self.from = from; self.to = to; self.compareFrom = compareFrom; self.compareTo = compareTo
        self.category = category; self.limit = limit
    }
    public static let spec = MethodSpec("patterns/timeline", for: Self.self)
}
