import KindredCore
import JSONRPC
import KindredProtocol

/// Decodes a request's params into its protocol type (`RecordsDelete`, …) as strictly as the wire
/// demands: an object's keys outside its type's set are refused before anything else is read, and
/// every failure is an invalid-params error naming the field by its full path (`records[3].tags[0]`),
/// with the messages of `FieldRules`. Absent and null are alike: nil for an optional, "is required"
/// otherwise. Some types carry a rule of their own wherever they appear: `[String]` is a list of
/// names, `[Float]` a vector of the index's dimension, `[String: KindredJSON]` an open object whose
/// keys are names. Rules the types cannot say are the request's `check` (`ServedRequest`).
struct ParamsDecoder: Decoder, SingleValueDecodingContainer {
    /// What the object decoded here may hold.
    enum Keys {
        /// Already refused (the top-level params), or a value that is not an object.
        case checked
        /// The keys of a nested object, and what one of them is called ("a record field").
        case accept([String], role: String)
        /// A nested value whose type declares no keys: read as an object, it is a mistake of ours.
        case undeclared
    }

    let value: JSONValue
    /// The path of `value`; empty for the params object itself.
    let field: String
    let rules: ParamRules
    var keys: Keys = .checked
    /// The rules of this object's fields by key, checked as each is read, so that a bad name is named
    /// before a later field's type error, in the order the fields are read (`ServedRequest.readRules`
    /// for the params object, `ParamsObject.readRules` for a nested one).
    var readRules: [String: ReadRule] = [:]
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// The params of `R`: an object (absent and null are an empty one), holding only the keys of its
    /// catalogue entry and `workDoneToken`.
    static func request<R: ServedRequest>(_: R.Type, _ params: JSONValue?, rules: ParamRules) throws(ResponseError) -> R {
        let object: JSONObject
        switch params {
        case .object(let o)?: object = o
        case nil, .null?: object = [:]
        default: throw .invalidParams(field: "params", reason: "must be an object")
        }
        try FieldRules.refuseUnknown(object, keys: R.spec.keys + ParamRules.everywhere, prefix: "", what: "a parameter of \(R.method)")
        var decoder = ParamsDecoder(value: .object(object), field: "", rules: rules)
        decoder.readRules = R.readRules
        let request: R
        do { request = try R.read(decoder) } catch { throw Self.responseError(error) }
        try request.check(rules)
        return request
    }

    /// A decoding error as the wire answers it: ours as thrown, another type's own (from a custom
    /// `init(from:)`) naming the field of its coding path.
    static func responseError(_ error: any Error) -> ResponseError {
        if let e = error as? ResponseError { return e }
        guard let e = error as? DecodingError else { return .internalError(String(describing: error)) }
        let context: DecodingError.Context
        switch e {
        case .dataCorrupted(let c), .keyNotFound(_, let c), .typeMismatch(_, let c), .valueNotFound(_, let c): context = c
        @unknown default: return .internalError(String(describing: error))
        }
        return .invalidParams(field: path(context.codingPath), reason: context.debugDescription)
    }

    static func path(_ keys: [any CodingKey]) -> String {
        keys.reduce("") { path, key in
            if let i = key.intValue { return "\(path)[\(i)]" }
            return path.isEmpty ? key.stringValue : "\(path).\(key.stringValue)"
        }
    }

    func child(_ key: any CodingKey, field: String) -> ParamsDecoder {
        ParamsDecoder(value: member(key), field: field, rules: rules, keys: .undeclared, codingPath: codingPath + [key])
    }

    /// The decoder of this object's member `key`, for a type that reads its fields itself
    /// (`ParamsReadable`); the member's rule (`readRules`) is its caller's to apply.
    func member(_ key: String) -> ParamsDecoder {
        child(MemberKey(stringValue: key), field: field.isEmpty ? key : "\(field).\(key)")
    }

    /// Member `key` decoded, nil when absent or null, its rule (if any) applied: for a type that
    /// reads its fields itself, in its own order.
    func optional<T: Decodable>(_ key: String, _ type: T.Type = T.self, rule: ReadRule? = nil) throws -> T? {
        let m = member(key)
        guard !m.value.isNull else { return nil }
        let v = try m.decode(T.self)
        if let rule, let s = v as? String { try rule.check(s, field: m.field) }
        if let rule, let i = v as? Int { try rule.check(Int64(i), field: m.field) }
        return v
    }

    /// Member `key` decoded, which must be present; its rule (if any) applied.
    func required<T: Decodable>(_ key: String, _ type: T.Type = T.self, rule: ReadRule? = nil) throws -> T {
        let m = member(key)
        guard let v = try optional(key, T.self, rule: rule) else { throw m.fail("is required") }
        return v
    }

    private struct MemberKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    private func member(_ key: any CodingKey) -> JSONValue {
        if let i = key.intValue { return value[i] ?? .null }
        return value[key.stringValue] ?? .null
    }

    func fail(_ reason: String) -> ResponseError { .invalidParams(field: field.isEmpty ? "params" : field, reason: reason) }

    /// The value, which must be present (not absent, not null).
    func present() throws(ResponseError) -> JSONValue {
        guard !value.isNull else { throw fail("is required") }
        return value
    }

    // MARK: Decoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let o) = try present() else { throw fail("must be an object") }
        switch keys {
        case .checked: break
        case .accept(let names, let role): try FieldRules.refuseUnknown(o, keys: names, prefix: field, what: role)
        case .undeclared: throw ResponseError.internalError("\(field): \(Key.self) is not a ParamsObject, so its keys are unknown")
        }
        return KeyedDecodingContainer(ParamsObjectReader<Key>(object: o, decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let a) = try present() else { throw fail("must be an array") }
        return ParamsListReader(array: a, decoder: self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    // MARK: single values

    func decodeNil() -> Bool { value.isNull }

    func decode(_: Bool.Type) throws -> Bool {
        guard case .bool(let b) = try present() else { throw fail("must be a boolean") }
        return b
    }

    func decode(_: String.Type) throws -> String {
        let v = try present()
        guard case .string(let s) = v else { throw fail("must be a string, got \(v.typeName)") }
        return s
    }

    func decode(_: Double.Type) throws -> Double {
        let v = try present()
        guard let d = v.doubleValue else { throw fail("must be a number, got \(v.typeName)") }
        return d
    }

    func decode(_: Float.Type) throws -> Float { Float(try decode(Double.self)) }

    func decode(_: Int64.Type) throws -> Int64 { try FieldRules.integer(try present(), field: field) }

    /// An integer that must also fit `T` (every JSON integer fits Int64; Int is 64 bits where Kindred runs).
    func integer<T: FixedWidthInteger>(_: T.Type) throws -> T {
        let i = try decode(Int64.self)
        guard let t = T(exactly: i) else { throw fail("must be between \(T.min) and \(T.max)") }
        return t
    }

    func decode(_: Int.Type) throws -> Int { try integer(Int.self) }
    func decode(_: Int8.Type) throws -> Int8 { try integer(Int8.self) }
    func decode(_: Int16.Type) throws -> Int16 { try integer(Int16.self) }
    func decode(_: Int32.Type) throws -> Int32 { try integer(Int32.self) }
    func decode(_: UInt.Type) throws -> UInt { try integer(UInt.self) }
    func decode(_: UInt8.Type) throws -> UInt8 { try integer(UInt8.self) }
    func decode(_: UInt16.Type) throws -> UInt16 { try integer(UInt16.self) }
    func decode(_: UInt32.Type) throws -> UInt32 { try integer(UInt32.self) }
    func decode(_: UInt64.Type) throws -> UInt64 { try integer(UInt64.self) }

    /// A value of any type: the types with a rule of their own, or `T` decoded from here, an object
    /// held to `T`'s keys when `T` is a `ParamsObject`.
    func decode<T: Decodable>(_: T.Type) throws -> T {
        if T.self == [String].self {
            return try FieldRules.names(present(), field: field) as! T
        }
        if T.self == [Float].self {
            return try FieldRules.vector(present(), field: field, dimension: rules.dimension) as! T
        }
        if T.self == [String: KindredJSON].self {
            let object = try FieldRules.openObject(present(), field: field)
            return Dictionary(object.map { ($0.key, KindredJSON($0.value)) }, uniquingKeysWith: { $1 }) as! T
        }
        if let readable = T.self as? any ParamsReadable.Type { return try readable.read(self) as! T }
        var decoder = self
        if let object = T.self as? any ParamsObject.Type {
            decoder.keys = .accept(object.fields, role: object.role)
            decoder.readRules = object.readRules
        }
        return try T(from: decoder)
    }
}

/// A nested object of a request's params: the keys it may hold (its type's), what one is called,
/// and its fields' rules, checked as each is read.
protocol ParamsObject {
    static var fields: [String] { get }
    static var role: String { get }
    static var readRules: [String: ReadRule] { get }
}

extension ParamsObject {
    static var readRules: [String: ReadRule] { [:] }
}

/// A nested value of a request's params that reads itself from its decoder, because what its
/// fields mean depends on one of them (a correction's `kind`) or its errors say more than its type.
protocol ParamsReadable {
    static func read(_ decoder: ParamsDecoder) throws -> Self
}
