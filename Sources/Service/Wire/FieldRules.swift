import KindredCore
import JSONRPC
import LinearAlgebra

/// The rules a params value must meet beyond its JSON type, each failing with an invalid-params
/// error that names `field` (a full path such as `records[3].tags[0]`). `Params` and `ParamsDecoder`
/// both read through these, so a rule and its message exist once.
enum FieldRules {
    /// An owner, record id, category, kind or tag: see `Names`.
    static func name(_ s: String, field: String, maxLength: Int = 512) throws(ResponseError) {
        try nonEmpty(s, field: field, maxLength: maxLength)
        if let reason = Names.problem(s) { throw .invalidParams(field: field, reason: reason) }
    }

    static func nonEmpty(_ s: String, field: String, maxLength: Int = 512) throws(ResponseError) {
        guard !s.isEmpty else { throw .invalidParams(field: field, reason: "must not be empty") }
        guard s.utf8.count <= maxLength else { throw .invalidParams(field: field, reason: "must be at most \(maxLength) bytes") }
    }

    /// ISO-8601 date (`2024-05-01`) or timestamp (`2024-05-01T09:30:00Z`).
    static func date(_ s: String, field: String) throws(ResponseError) {
        guard ISODate.isValid(s) else { throw .invalidParams(field: field, reason: "must be an ISO-8601 date (YYYY-MM-DD) or timestamp") }
    }

    /// An array of names (tags, kinds, ids); `nonEmpty` also refuses empty strings.
    static func names(_ value: JSONValue, field: String, nonEmpty: Bool = false) throws(ResponseError) -> [String] {
        guard case .array(let a) = value else { throw .invalidParams(field: field, reason: "must be an array of strings") }
        var out: [String] = []
        out.reserveCapacity(a.count)
        for (i, e) in a.enumerated() {
            let element = "\(field)[\(i)]"
            guard case .string(let s) = e else { throw .invalidParams(field: element, reason: "must be a string") }
            if nonEmpty, s.isEmpty { throw .invalidParams(field: element, reason: "must not be empty") }
            if let reason = Names.problem(s) { throw .invalidParams(field: element, reason: reason) }
            out.append(s)
        }
        return out
    }

    /// An integer: a JSON number with no fractional part (`5`, `5.0` and `5e0` alike), within Int64.
    static func integer(_ v: JSONValue, field: String, what: String = "an integer") throws(ResponseError) -> Int64 {
        switch v {
        case .int(let i): return i
        case .double(let d) where d.isFinite && d.rounded(.towardZero) == d:
            // 2^63 is exactly representable; every smaller integral double converts exactly.
            guard d >= -9_223_372_036_854_775_808.0, d < 9_223_372_036_854_775_808.0 else {
                throw .invalidParams(field: field, reason: "must be between \(Int64.min) and \(Int64.max)")
            }
            return Int64(d)
        case .double: throw .invalidParams(field: field, reason: "must be \(what), got a number with a fraction")
        default: throw .invalidParams(field: field, reason: "must be \(what), got \(v.typeName)")
        }
    }

    /// An object whose keys are the caller's own (metadata): each key is checked as a name.
    static func openObject(_ value: JSONValue, field: String) throws(ResponseError) -> JSONObject {
        guard case .object(let o) = value else { throw .invalidParams(field: field, reason: "must be an object") }
        for k in o.keys {
            if let reason = Names.problem(k) { throw .invalidParams(field: field, reason: "key \(JSONWriter.string(.string(k))) \(reason)") }
        }
        return o
    }

    /// A vector of `dimension` finite numbers that can be scaled to unit length: a JSON array of
    /// numbers, or a string of base64 holding the float32 values little-endian (4 bytes each, as
    /// OpenAI's `encoding_format: "base64"` sends them; see `VectorParam`).
    static func vector(_ value: JSONValue, field: String, dimension: Int) throws(ResponseError) -> [Float] {
        func fail(_ reason: String) -> ResponseError { .invalidParams(field: field, reason: reason) }
        switch value {
        case .array, .string: break
        default: throw fail("must be an array of numbers or a base64 string of little-endian float32, got \(value.typeName)")
        }
        guard dimension > 0 else {
            throw fail("cannot be checked yet: the index's dimension is not known until the embedding provider first answers (index.dimension is unset and no vectors are stored); set index.dimension")
        }
        let out: [Float]
        if case .string(let s) = value {
            out = try VectorParam.floats(base64: s, dimension: dimension, field: field)
        } else {
            guard case .array(let a) = value else { preconditionFailure() }
            guard a.count == dimension else { throw fail("must have \(dimension) dimensions, got \(a.count)") }
            var numbers = [Float]()
            numbers.reserveCapacity(dimension)
            for (i, e) in a.enumerated() {
                guard let d = e.doubleValue else { throw .invalidParams(field: "\(field)[\(i)]", reason: "must be a number") }
                let f = Float(d)
                guard f.isFinite else { throw .invalidParams(field: "\(field)[\(i)]", reason: "must be finite (no NaN or Infinity)") }
                numbers.append(f)
            }
            out = numbers
        }
        if out.allSatisfy({ $0 == 0 }) { throw fail("must not be all zeros") }
        guard Vectors.hasDirection(out) else {
            throw fail("must have a length between \(Vectors.minimumNorm) and the largest Float32, to be scaled to unit length")
        }
        return out
    }

    /// Refuses the first key of `object` not in `keys`; `data.accepted` lists the keys, `data.unknown`
    /// every unknown one (as paths below `prefix`).
    static func refuseUnknown(_ object: JSONObject, keys: [String], prefix: String, what: String) throws(ResponseError) {
        let unknown = object.keys.filter { !keys.contains($0) }
        guard let first = unknown.first else { return }
        func path(_ key: String) -> String { prefix.isEmpty ? key : "\(prefix).\(key)" }
        throw .invalidParams(
            field: path(first), reason: "is not \(what) (accepted: \(keys.joined(separator: ", ")))",
            extra: ["accepted": .from(keys), "unknown": .from(unknown.map(path))])
    }
}
