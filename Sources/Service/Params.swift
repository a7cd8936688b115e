import Foundation
import KindredCore
import JSONRPC

/// What decoding needs from the configuration.
struct ParamRules: Sendable {
    var dimension: Int
    var defaultLimit: Int
    var maxLimit: Int
}

/// A params object read strictly: a key outside the request's documented set is refused before
/// anything else is read (-32602 naming the key by its full path, such as `filters.kind`), and every
/// typed read names the field when it fails.
struct Params {
    let object: JSONObject
    let prefix: String
    let rules: ParamRules

    /// `workDoneToken` is accepted by every method (the server reads it; methods that report
    /// progress use it).
    static let everywhere = ["workDoneToken"]

    /// The top-level params of `method`, which takes `keys`.
    init(_ params: JSONValue?, method: String, keys: [String], rules: ParamRules) throws(ResponseError) {
        switch params {
        case .object(let o)?: object = o
        case nil, .null?: object = [:]
        default: throw ResponseError.invalidParams(field: "params", reason: "must be an object")
        }
        prefix = ""
        self.rules = rules
        try refuseUnknown(keys + Self.everywhere, what: "a parameter of \(method)")
    }

    /// A nested object at `prefix` (such as `filters` or `records[3]`), which may hold `keys`.
    init(object: JSONObject, prefix: String, keys: [String], what: String, rules: ParamRules) throws(ResponseError) {
        self.object = object
        self.prefix = prefix
        self.rules = rules
        try refuseUnknown(keys, what: what)
    }

    func path(_ key: String) -> String { prefix.isEmpty ? key : "\(prefix).\(key)" }
    func fail(_ key: String, _ reason: String) -> ResponseError { .invalidParams(field: path(key), reason: reason) }

    /// Refuses the first key not in `keys`; `data.accepted` lists the keys, `data.unknown` every unknown one.
    func refuseUnknown(_ keys: [String], what: String) throws(ResponseError) {
        try FieldRules.refuseUnknown(object, keys: keys, prefix: prefix, what: what)
    }

    func has(_ key: String) -> Bool { object[key].map { !$0.isNull } ?? false }

    // MARK: strings

    func string(_ key: String) throws(ResponseError) -> String {
        guard let v = object[key], !v.isNull else { throw fail(key, "is required") }
        guard case .string(let s) = v else { throw fail(key, "must be a string, got \(v.typeName)") }
        return s
    }

    func optionalString(_ key: String) throws(ResponseError) -> String? {
        guard has(key) else { return nil }
        return try string(key)
    }

    func nonEmptyString(_ key: String, maxLength: Int = 512) throws(ResponseError) -> String {
        let s = try string(key)
        try FieldRules.nonEmpty(s, field: path(key), maxLength: maxLength)
        return s
    }

    /// An owner, record id, category, kind or tag: see `Names`.
    func name(_ key: String, maxLength: Int = 512) throws(ResponseError) -> String {
        let s = try string(key)
        try FieldRules.name(s, field: path(key), maxLength: maxLength)
        return s
    }

    func optionalName(_ key: String, maxLength: Int = 512) throws(ResponseError) -> String? {
        guard has(key) else { return nil }
        return try name(key, maxLength: maxLength)
    }

    /// An array of names (tags, kinds, ids); `nonEmpty` also refuses empty strings.
    func names(_ key: String, nonEmpty: Bool = false) throws(ResponseError) -> [String]? {
        guard has(key) else { return nil }
        return try FieldRules.names(object[key]!, field: path(key), nonEmpty: nonEmpty)
    }

    // MARK: numbers and booleans

    /// An integer: a JSON number with no fractional part (`5`, `5.0` and `5e0` alike), within Int64.
    func int(_ key: String) throws(ResponseError) -> Int64 {
        guard let v = object[key], !v.isNull else { throw fail(key, "is required") }
        return try FieldRules.integer(v, field: path(key))
    }

    func optionalInt(_ key: String, range: ClosedRange<Int64>? = nil) throws(ResponseError) -> Int64? {
        guard has(key) else { return nil }
        let i = try int(key)
        if let range, !range.contains(i) { throw fail(key, "must be between \(range.lowerBound) and \(range.upperBound)") }
        return i
    }

    func positiveInt(_ key: String) throws(ResponseError) -> Int64 {
        let i = try int(key)
        guard i > 0 else { throw fail(key, "must be a positive integer") }
        return i
    }

    func optionalBool(_ key: String) throws(ResponseError) -> Bool? {
        guard has(key) else { return nil }
        guard case .bool(let b) = object[key]! else { throw fail(key, "must be a boolean") }
        return b
    }

    // MARK: structure

    /// A nested object that may hold `keys`; nil when absent or null.
    func optionalObject(_ key: String, keys: [String], what: String) throws(ResponseError) -> Params? {
        guard has(key) else { return nil }
        guard case .object(let o) = object[key]! else { throw fail(key, "must be an object") }
        return try Params(object: o, prefix: path(key), keys: keys, what: what, rules: rules)
    }

    /// A nested object whose keys are the caller's own (metadata): each key is checked as a name.
    func openObject(_ key: String) throws(ResponseError) -> JSONObject? {
        guard has(key) else { return nil }
        return try FieldRules.openObject(object[key]!, field: path(key))
    }

    func array(_ key: String) throws(ResponseError) -> [JSONValue] {
        guard let v = object[key], !v.isNull else { throw fail(key, "is required") }
        guard case .array(let a) = v else { throw fail(key, "must be an array") }
        return a
    }

    /// A vector of `rules.dimension` finite numbers that can be scaled to unit length: a JSON array
    /// of numbers, or a string of base64 holding the float32 values little-endian (4 bytes each, as
    /// OpenAI's `encoding_format: "base64"` sends them; see `VectorParam`).
    func vector(_ key: String) throws(ResponseError) -> [Float]? {
        guard has(key) else { return nil }
        return try FieldRules.vector(object[key]!, field: path(key), dimension: rules.dimension)
    }

    /// ISO-8601 date (`2024-05-01`) or timestamp (`2024-05-01T09:30:00Z`).
    func optionalDate(_ key: String) throws(ResponseError) -> String? {
        guard let s = try optionalString(key) else { return nil }
        try FieldRules.date(s, field: path(key))
        return s
    }
}

/// Owners, record ids, kinds, categories, tags and metadata keys name things: U+0000 is refused in
/// them (C interfaces end strings there, so `"a\u0000b"` could be taken for `"a"`). Every other
/// character is kept as sent, control characters included: ids come from other systems (file names
/// may hold a newline) and must round-trip. Texts, descriptions, labels, notes and metadata values
/// may hold U+0000; they are stored whole.
/// What a name (owner, id, kind, category, tag, metadata key) may not be. Names are compared byte
/// for byte in SQLite but by canonical equivalence in Swift ("\u{E9}" == "e\u{301}"), so a name in
/// another normalisation form than NFC could be one owner in one place and two in another: such
/// names are refused, and for NFC names the two comparisons agree.
enum Names {
    static func problem(_ s: String) -> String? {
        if s.utf8.contains(0) { return "must not contain U+0000 (NUL)" }
        if !isNFC(s) { return "must be in Unicode normalization form C (NFC)" }
        return nil
    }

    static func isNFC(_ s: String) -> Bool {
        // ASCII is always NFC; only other text needs the normalisation.
        if s.utf8.allSatisfy({ $0 < 0x80 }) { return true }
        return s.precomposedStringWithCanonicalMapping.unicodeScalars.elementsEqual(s.unicodeScalars)
    }
}
