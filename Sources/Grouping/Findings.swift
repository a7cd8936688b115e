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

    /// The trend word of `current` against `previous`: "more" or "less often" only for a difference
    /// beyond chance — a two-proportion z-test (pooled), |z| ≥ 1.96 (95 %, two-sided) — otherwise
    /// "about as often" (8 of 163 against 8 of 173 is about as often).
    public static func between(_ current: Fraction, _ previous: Fraction) -> Trend {
        guard current.denominator > 0, previous.denominator > 0 else { return .aboutTheSame }
        let n1 = Double(current.denominator), n2 = Double(previous.denominator)
        let p1 = Double(current.count) / n1, p2 = Double(previous.count) / n2
        let pooled = Double(current.count + previous.count) / (n1 + n2)
        let variance = pooled * (1 - pooled) * (1 / n1 + 1 / n2)
        guard variance > 0 else { return .aboutTheSame }
        let z = (p1 - p2) / variance.squareRoot()
        return z >= 1.96 ? .moreOftenRecently : z <= -1.96 ? .lessOftenRecently : .aboutTheSame
    }
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
