/// An inclusive period of dates, compared on the first 10 characters (`YYYY-MM-DD`).
public struct Period: Sendable, Hashable, Codable {
    public var from: String
    public var to: String

    public init(from: String, to: String) {
        self.from = String(from.prefix(10))
        self.to = String(to.prefix(10))
    }

    public func contains(_ date: String?) -> Bool {
        guard let d = date?.prefix(10) else { return false }
        return String(d) >= from && String(d) <= to
    }
}

/// "4 of 12 eligible records".
public struct Fraction: Sendable, Hashable, Codable {
    public var count: Int
    public var denominator: Int

    public init(count: Int, denominator: Int) {
        self.count = count
        self.denominator = denominator
    }
}

/// One piece of linked evidence: one per distinct record counted.
public struct Evidence: Sendable, Hashable, Codable {
    public var recordID: String
    public var recordRevision: Int
    public var occurrenceID: Int64
    public var excerpt: String
    public var date: String?
}

/// A deterministic label: a key phrase of the group (at most 40 characters) plus c-TF-IDF keywords
/// within the category; `text` is at most 60 characters and no keyword is a stopword.
public struct GeneratedLabel: Sendable, Hashable, Codable {
    public var description: String
    public var keywords: [String]
    public var text: String { keywords.isEmpty ? description : "\(description) (\(keywords.joined(separator: ", ")))" }
}

public enum Trend: String, Sendable, Hashable, Codable {
    case moreOftenRecently = "recorded more often recently"
    case lessOftenRecently = "recorded less often recently"
    case aboutTheSame = "recorded about as often"
}

/// Both fractions of a period comparison; `suppressed` when a denominator is too small.
public struct Comparison: Sendable, Hashable, Codable {
    public var current: Fraction
    public var previous: Fraction
    public var suppressed: Bool
    /// nil when suppressed.
    public var trend: Trend?
}

public enum FindingKind: String, Sendable, Hashable, Codable {
    /// ≥ `recurringThreshold` distinct records.
    case recurring
    /// exactly `relatedThreshold` distinct records.
    case related
}

public struct Finding: Sendable, Hashable, Codable {
    public var groupID: Int64
    public var groupVersion: Int
    public var category: String
    public var kind: FindingKind
    /// Distinct eligible records in the period, with the period's eligible-record denominator.
    public var fraction: Fraction
    public var comparison: Comparison?
    public var label: GeneratedLabel
    /// The client-written label, if still valid.
    public var clientLabel: String?
    /// Exactly one item per counted record, ordered by (date, record id).
    public var evidence: [Evidence]
    /// Plain sentence built from the calculated count, e.g. "4 of 12 eligible records in this period".
    public var summary: String
}

public struct FindingsReport: Sendable, Hashable, Codable {
    public var findings: [Finding]
    /// Eligible records in the period.
    public var denominator: Int
    /// True when there is no recurring finding (show related examples or an insufficient-history message).
    public var insufficientHistory: Bool
}

/// What to report.
public struct FindingsQuery: Sendable, Hashable, Codable {
    public var period: Period?
    public var comparePeriod: Period?
    public var category: String?
    public var includeRelated: Bool

    public init(period: Period? = nil, comparePeriod: Period? = nil, category: String? = nil, includeRelated: Bool = true) {
        self.period = period
        self.comparePeriod = comparePeriod
        self.category = category
        self.includeRelated = includeRelated
    }
}
