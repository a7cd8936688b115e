/// Errors of the grouping engine. Messages name the records and occurrences involved.
public enum GroupingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A correction would make two records both must-link and cannot-link.
    case contradiction(recordA: String, recordB: String, occurrences: [Int64])
    case unknownGroup(Int64)
    case unknownOccurrence(Int64)
    case notAMember(occurrence: Int64, group: Int64)
    case invalidCorrection(String)
    /// `setLabel` named a version that is no longer current.
    case staleVersion(group: Int64, current: Int, given: Int)
    case dimensionMismatch(occurrence: Int64, expected: Int, found: Int)
    case cancelled

    public var description: String {
        switch self {
        case let .contradiction(a, b, occ):
            let o = occ.isEmpty ? "" : " (occurrences \(occ.map(String.init).joined(separator: ", ")))"
            return "records \(a) and \(b) would be both kept together and kept apart\(o)"
        case let .unknownGroup(g): return "unknown group \(g)"
        case let .unknownOccurrence(o): return "unknown occurrence \(o)"
        case let .notAMember(o, g): return "occurrence \(o) is not a member of group \(g)"
        case let .invalidCorrection(m): return "invalid correction: \(m)"
        case let .staleVersion(g, current, given):
            return "group \(g) is at version \(current), label was written for version \(given)"
        case let .dimensionMismatch(o, e, f): return "occurrence \(o) has dimension \(f), expected \(e)"
        case .cancelled: return "cancelled"
        }
    }
}
