import JSONRPC

/// A rule one field of a request meets beyond its JSON type, checked as the field is read (before a
/// later field's type error, in the order the type reads its fields), naming the field by its path.
/// A request or nested object states its fields' rules by key (`ServedRequest.readRules`,
/// `ParamsObject.readRules`); the rules and their messages are `FieldRules`'.
enum ReadRule: Sendable {
    /// An owner, record id, category, kind or tag (`FieldRules.name`).
    case name(maxLength: Int = 512)
    /// A text that must not be empty, of at most `maxLength` bytes.
    case nonEmpty(maxLength: Int)
    /// A text of at most `maxLength` bytes (empty allowed).
    case maxBytes(Int)
    /// An ISO-8601 date or timestamp.
    case date
    /// An integer above zero.
    case positive
    /// A count asked for: at least 1, at most `max` (above it: the limit error, -32005).
    case count(max: Int)
    /// An integer within `range`.
    case range(ClosedRange<Int64>)
    /// A page's cursor, as this method's `cursor` returned it.
    case cursor(PageCursor)
    /// Must be sent, though null is allowed (and means something): absent fails with `reason`.
    case present(absent: String)

    /// A category is at most 128 bytes, every other name 512.
    static let category = ReadRule.name(maxLength: 128)

    func check(_ s: String, field: String) throws(ResponseError) {
        switch self {
        case .name(let maxLength): try FieldRules.name(s, field: field, maxLength: maxLength)
        case .nonEmpty(let maxLength): try FieldRules.nonEmpty(s, field: field, maxLength: maxLength)
        case .maxBytes(let n): guard s.utf8.count <= n else { throw .invalidParams(field: field, reason: "must be at most \(n) bytes") }
        case .date: try FieldRules.date(s, field: field)
        case .cursor(let c): guard c.offset(s) != nil else { throw .invalidParams(field: field, reason: "is not a cursor this method returned") }
        case .positive, .count, .range, .present: break
        }
    }

    func check(_ i: Int64, field: String) throws(ResponseError) {
        switch self {
        case .positive: if i <= 0 { throw .invalidParams(field: field, reason: "must be a positive integer") }
        case .count(let max):
            guard i >= 1 else { throw .invalidParams(field: field, reason: "must be at least 1") }
            guard i <= Int64(max) else { throw .limitExceeded(field: field, limit: max) }
        case .range(let r):
            guard r.contains(i) else { throw .invalidParams(field: field, reason: "must be between \(r.lowerBound) and \(r.upperBound)") }
        default: break
        }
    }
}
