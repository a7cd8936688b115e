import KindredCore
import JSONRPC

/// Typed access to request params; every failure is a -32602 naming the field.
struct Params {
    let object: JSONObject
    let prefix: String

    init(_ params: JSONValue?, prefix: String = "") throws(ResponseError) {
        switch params {
        case .object(let o)?: object = o
        case nil, .null?: object = [:]
        default: throw ResponseError.invalidParams(field: prefix.isEmpty ? "params" : prefix, reason: "must be an object")
        }
        self.prefix = prefix
    }

    init(object: JSONObject, prefix: String) {
        self.object = object
        self.prefix = prefix
    }

    func path(_ key: String) -> String { prefix.isEmpty ? key : "\(prefix).\(key)" }
    func fail(_ key: String, _ reason: String) -> ResponseError { .invalidParams(field: path(key), reason: reason) }

    func has(_ key: String) -> Bool { object[key].map { !$0.isNull } ?? false }

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
        guard !s.isEmpty else { throw fail(key, "must not be empty") }
        guard s.utf8.count <= maxLength else { throw fail(key, "must be at most \(maxLength) bytes") }
        return s
    }

    func int(_ key: String) throws(ResponseError) -> Int64 {
        guard let v = object[key], !v.isNull else { throw fail(key, "is required") }
        guard case .int(let i) = v else { throw fail(key, "must be an integer, got \(v == .null ? "null" : v.typeName)") }
        return i
    }

    func optionalInt(_ key: String, range: ClosedRange<Int64>? = nil) throws(ResponseError) -> Int64? {
        guard has(key) else { return nil }
        let i = try int(key)
        if let range, !range.contains(i) { throw fail(key, "must be between \(range.lowerBound) and \(range.upperBound)") }
        return i
    }

    func optionalBool(_ key: String) throws(ResponseError) -> Bool? {
        guard has(key) else { return nil }
        guard case .bool(let b) = object[key]! else { throw fail(key, "must be a boolean") }
        return b
    }

    func stringArray(_ key: String) throws(ResponseError) -> [String]? {
        guard has(key) else { return nil }
        guard case .array(let a) = object[key]! else { throw fail(key, "must be an array of strings") }
        var out: [String] = []
        for (i, e) in a.enumerated() {
            guard case .string(let s) = e else { throw ResponseError.invalidParams(field: "\(path(key))[\(i)]", reason: "must be a string") }
            out.append(s)
        }
        return out
    }

    func optionalObject(_ key: String) throws(ResponseError) -> Params? {
        guard has(key) else { return nil }
        guard case .object(let o) = object[key]! else { throw fail(key, "must be an object") }
        return Params(object: o, prefix: path(key))
    }

    func array(_ key: String) throws(ResponseError) -> [JSONValue] {
        guard let v = object[key], !v.isNull else { throw fail(key, "is required") }
        guard case .array(let a) = v else { throw fail(key, "must be an array") }
        return a
    }

    /// A vector of finite numbers of the given dimension.
    func vector(_ key: String, dimension: Int) throws(ResponseError) -> [Float]? {
        guard has(key) else { return nil }
        guard case .array(let a) = object[key]! else { throw fail(key, "must be an array of numbers") }
        guard a.count == dimension else { throw fail(key, "must have \(dimension) dimensions, got \(a.count)") }
        var out = [Float]()
        out.reserveCapacity(dimension)
        for (i, e) in a.enumerated() {
            guard let d = e.doubleValue else { throw ResponseError.invalidParams(field: "\(path(key))[\(i)]", reason: "must be a number") }
            let f = Float(d)
            guard f.isFinite else { throw ResponseError.invalidParams(field: "\(path(key))[\(i)]", reason: "must be finite (no NaN or Infinity)") }
            out.append(f)
        }
        return out
    }

    /// ISO-8601 date (`2024-05-01`) or timestamp (`2024-05-01T09:30:00Z`).
    func optionalDate(_ key: String) throws(ResponseError) -> String? {
        guard let s = try optionalString(key) else { return nil }
        guard ISODate.isValid(s) else { throw fail(key, "must be an ISO-8601 date (YYYY-MM-DD) or timestamp") }
        return s
    }
}

enum ISODate {
    /// Accepts YYYY-MM-DD optionally followed by `T` or space and a time with optional fraction and zone.
    static func isValid(_ s: String) -> Bool {
        let b = Array(s.utf8)
        guard b.count >= 10 else { return false }
        func digits(_ r: Range<Int>) -> Int? {
            var v = 0
            for i in r { guard i < b.count, (48...57).contains(b[i]) else { return nil }; v = v * 10 + Int(b[i] - 48) }
            return v
        }
        guard let _ = digits(0..<4), b[4] == 45, let m = digits(5..<7), b[7] == 45, let d = digits(8..<10),
              (1...12).contains(m), (1...31).contains(d) else { return false }
        if b.count == 10 { return true }
        guard b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: " "), b.count >= 16,
              let h = digits(11..<13), b[13] == 58, let mi = digits(14..<16), h < 24, mi < 60 else { return false }
        var i = 16
        if i < b.count, b[i] == 58 {
            guard let sec = digits(17..<19), sec < 61 else { return false }
            i = 19
            if i < b.count, b[i] == 46 {
                i += 1
                let st = i
                while i < b.count, (48...57).contains(b[i]) { i += 1 }
                guard i > st else { return false }
            }
        }
        if i == b.count { return true }
        if b[i] == UInt8(ascii: "Z") { return i + 1 == b.count }
        guard b[i] == 43 || b[i] == 45, b.count == i + 6, digits((i + 1)..<(i + 3)) != nil, b[i + 3] == 58,
              digits((i + 4)..<(i + 6)) != nil else { return false }
        return true
    }
}
