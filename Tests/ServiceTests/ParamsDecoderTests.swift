import Testing
import KindredCore
import JSONRPC
import KindredProtocol
@testable import Service

/// `ParamsDecoder` reads params into protocol types with the wire's errors, naming each field by its
/// path; `ResultEncoder` writes results in the types' key order.
@Suite struct ParamsDecoderTests {
    /// A request with the shapes the decoder must handle: integers, a nested object, a list of them, names, a vector.
    struct Probe: ServedRequest {
        static let spec = MethodSpec("test/probe", for: Self.self)
        struct Result: Codable, Sendable {}
        struct Inner: Codable, Sendable, ParamsObject {
            static let fields = ["flag"]
            static let role = "an inner field"
            var flag: Bool?
        }
        /// A nested type that is no `ParamsObject`: its keys are unknown, a mistake the decoder reports.
        struct Loose: Codable, Sendable { var x: Int? }
        var n: Int
        var inner: Inner?
        var list: [Inner]?
        var tags: [String]?
        var vector: [Float]?
        var loose: Loose?
        func check(_ rules: ParamRules) throws(ResponseError) {
            guard n >= 0 else { throw .invalidParams(field: "n", reason: "must not be negative") }
        }
    }

    static let rules = ParamRules(dimension: 3, defaultLimit: 10, maxLimit: 100)

    func error(_ params: JSONValue?) -> ResponseError? {
        do { _ = try ParamsDecoder.request(Probe.self, params, rules: Self.rules); return nil } catch { return error }
    }

    static let refused: [(JSONValue?, String, String)] = [
        ([1], "params", "must be an object"),
        (nil, "n", "is required"),
        (["n": .null], "n", "is required"),
        (["n": "1"], "n", "must be an integer, got string"),
        (["n": 1.5], "n", "must be an integer, got a number with a fraction"),
        (["n": 1e30], "n", "must be between \(Int64.min) and \(Int64.max)"),
        (["n": -1], "n", "must not be negative"),
        (["n": 1, "inner": 3], "inner", "must be an object"),
        (["n": 1, "inner": ["flag": "yes"]], "inner.flag", "must be a boolean"),
        (["n": 1, "inner": ["flagg": true]], "inner.flagg", "is not an inner field (accepted: flag)"),
        (["n": 1, "list": ["flag": true]], "list", "must be an array"),
        (["n": 1, "list": [["flag": true], 7]], "list[1]", "must be an object"),
        (["n": 1, "list": [["flag": true], ["flag": 1]]], "list[1].flag", "must be a boolean"),
        (["n": 1, "tags": "t"], "tags", "must be an array of strings"),
        (["n": 1, "tags": ["a", 2]], "tags[1]", "must be a string"),
        (["n": 1, "tags": ["a\u{0}b"]], "tags[0]", "must not contain U+0000 (NUL)"),
        (["n": 1, "vector": [1, 2]], "vector", "must have 3 dimensions, got 2"),
        (["n": 1, "vector": [0, 0, 0]], "vector", "must not be all zeros"),
        (["n": 1, "vector": true], "vector", "must be an array of numbers or a base64 string of little-endian float32, got boolean"),
    ]

    @Test(arguments: refused)
    func refusesNamingTheField(params: JSONValue?, field: String, reason: String) throws {
        let e = try #require(error(params))
        #expect(e.code == .invalidParams)
        #expect(e.data?["field"] == .string(field))
        #expect(e.data?["reason"] == .string(reason))
        #expect(e.message == "invalid params: \(field): \(reason)")
    }

    @Test func anUnknownKeyIsRefusedBeforeAnythingElse() throws {
        let e = try #require(error(["n": "not a number", "zz": 1, "yy": 2]))
        #expect(e.data?["field"] == "zz")
        #expect(e.data?["unknown"] == ["zz", "yy"])
        #expect(e.data?["accepted"] == .from(Probe.spec.keys + ["workDoneToken"]))
    }

    @Test func decodesEveryShape() throws {
        let p = try ParamsDecoder.request(Probe.self, ["n": 2.0, "inner": ["flag": true], "list": [["flag": .null], [:]], "tags": ["a", "b"],
                                                       "vector": [1, 0, 0], "workDoneToken": "t"], rules: Self.rules)
        #expect(p.n == 2)
        #expect(p.inner?.flag == true)
        #expect(p.list?.map(\.flag) == [nil, nil])
        #expect(p.tags == ["a", "b"])
        #expect(p.vector == [1, 0, 0])
    }

    @Test func aNestedTypeWithoutKeysIsOurMistakeNotTheCallers() throws {
        let e = try #require(error(["n": 1, "loose": ["x": 1]]))
        #expect(e.code == .internalError)
    }

    /// A request whose fields carry rules checked as each is read (`ReadRule`).
    struct Ruled: ServedRequest {
        static let spec = MethodSpec("test/ruled", for: Self.self)
        static var readRules: [String: ReadRule] {
            ["count": .positive, "category": .category, "label": .present(absent: "is required (null clears it)")]
        }
        struct Result: Codable, Sendable {}
        var count: Int
        var later: Bool?
        var category: String?
        @Nullable var label: String?
        func check(_ rules: ParamRules) throws(ResponseError) {}
    }

    static let ruled: [(JSONValue, String, String)] = [
        (["count": 0, "later": "no", "label": .null], "count", "must be a positive integer"),
        (["count": 1, "category": .string(String(repeating: "c", count: 129)), "label": 5], "category", "must be at most 128 bytes"),
        (["count": 1], "label", "is required (null clears it)"),
        (["count": 1, "label": 5], "label", "must be a string, got number"),
    ]

    /// A rule fails as its field is read: before a later field's type error.
    @Test(arguments: ruled)
    func aRuleFailsAsItsFieldIsRead(params: JSONValue, field: String, reason: String) throws {
        do {
            _ = try ParamsDecoder.request(Ruled.self, params, rules: Self.rules)
            Issue.record("accepted \(params)")
        } catch {
            #expect(error.data?["field"] == .string(field))
            #expect(error.data?["reason"] == .string(reason))
        }
    }

    @Test func aLabelSentAsNullIsAccepted() throws {
        let r = try ParamsDecoder.request(Ruled.self, ["count": 2, "label": .null], rules: Self.rules)
        #expect(r.count == 2 && r.label == nil)
    }

    struct Sparse: Codable, Sendable {
        @Nullable var shown: String?
        var left: String?
    }

    @Test func aNullableFieldIsNullAndAnOptionalOneLeftOut() throws {
        #expect(JSONWriter.string(try ResultEncoder.json(Sparse(shown: nil, left: nil))) == #"{"shown":null}"#)
        #expect(JSONWriter.string(try ResultEncoder.json(Sparse(shown: "a", left: "b"))) == #"{"shown":"a","left":"b"}"#)
    }

    struct Answer: Codable, Sendable {
        struct Limits: Codable, Sendable, ExplicitNulls { var calls: Int?; var chars: Int? }
        var z: Int
        var a: String?
        var limits: Limits
        var ratio: Double
    }

    @Test func resultsKeepTheTypesKeyOrderAndItsNulls() throws {
        let json = try ResultEncoder.json(Answer(z: 1, a: nil, limits: .init(calls: 5, chars: nil), ratio: 0.5))
        #expect(json == ["z": 1, "limits": ["calls": 5, "chars": .null], "ratio": 0.5])
        #expect(JSONWriter.string(json) == #"{"z":1,"limits":{"calls":5,"chars":null},"ratio":0.5}"#)
    }
}
