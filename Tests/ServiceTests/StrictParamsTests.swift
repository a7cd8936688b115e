import Testing
import KindredCore
import JSONRPC
@testable import Service

/// Every method's params are read strictly: unknown keys, at any depth, are refused by name.
@Suite struct StrictParamsTests {
    static let methods = KindredService.routes.map(\.method)

    @Test(arguments: methods)
    func everyMethodRefusesAnUnknownKeyByName(method: String) throws {
        let f = try ServiceFixture()
        let e = try #require(f.callError(method, ["bogusKey": 1]))
        #expect(e.code == .invalidParams)
        #expect(e.data?["field"] == "bogusKey")
        #expect(e.data?["unknown"] == ["bogusKey"])
        #expect(e.message.contains("bogusKey"))
        let route = try #require(KindredService.route(method))
        #expect(e.data?["accepted"] == .from(route.keys + ["workDoneToken"]))
    }

    @Test(arguments: methods)
    func everyMethodAcceptsAWorkDoneToken(method: String) throws {
        let f = try ServiceFixture()
        let e = f.callError(method, ["workDoneToken": "t1"])
        #expect(e?.data?["field"] != "workDoneToken")
        #expect(e?.data?["unknown"] == nil)
    }

    static let nested: [(String, JSONValue, String)] = [
        ("search/query", ["owner": "o", "text": "x", "filters": ["kind": ["note"]]], "filters.kind"),
        ("search/query", ["owner": "o", "text": "x", "filter": ["kinds": ["note"]]], "filter"),
        ("search/similar", ["owner": "o", "id": "a", "filters": ["tags": ["t"], "tag": "t"]], "filters.tag"),
        ("records/upsert", ["owner": "o", "records": [rec("a"), rec("b"), rec("c"), rec("d", extra: ["permission": ["search": false]])]], "records[3].permission"),
        ("records/upsert", ["owner": "o", "records": [rec("a", extra: ["permissions": ["search": true, "delete": true]])]], "records[0].permissions.delete"),
        ("records/setPermissions", ["owner": "o", "id": "a", "permissions": ["delete": true]], "permissions.delete"),
        ("occurrences/put", ["owner": "o", "recordId": "a", "revision": 1,
                             "occurrences": [["category": "c", "description": "d", "excerpt": "e", "cat": "c"]]], "occurrences[0].cat"),
        ("patterns/findings", ["owner": "o", "kind": ["dream"]], "kind"),
        ("patterns/correct", ["owner": "o", "correction": ["kind": "dismiss", "groupId": 1, "occurrenceId": 2, "moveOut": [2]]], "correction.moveOut"),
        ("patterns/correct", ["owner": "o", "correction": ["kind": "pin", "groupId": 1, "occurrenceId": 2, "fromGroupId": 3]], "correction.fromGroupId"),
        ("patterns/correct", ["owner": "o", "correction": ["kind": "merge", "groupId": 1, "fromGroupId": 3, "occurrenceId": 2]], "correction.occurrenceId"),
        ("patterns/correct", ["owner": "o", "correction": ["kind": "split", "groupId": 1, "moveOut": [2], "fromGroupId": 3]], "correction.fromGroupId"),
        ("patterns/correct", ["owner": "o", "correction": ["kind": "dismiss", "groupId": 1, "occurrenceId": 2, "reason": "x"]], "correction.reason"),
    ]

    @Test(arguments: nested)
    func nestedUnknownKeysAreNamedByTheirPath(method: String, params: JSONValue, field: String) throws {
        let f = try ServiceFixture()
        let e = try #require(f.callError(method, params))
        #expect(e.code == .invalidParams)
        #expect(e.data?["field"] == .string(field))
        #expect(e.message.contains(field))
        // Nothing was written by a refused upsert.
        #expect(try f.call("index/status", ["owner": "o"])["records"] == 0)
    }

    @Test func aKnownCorrectionFieldOfAnotherKindSaysWhichKindItIs() throws {
        let f = try ServiceFixture()
        let e = try #require(f.callError("patterns/correct", ["owner": "o", "correction": ["kind": "dismiss", "groupId": 1, "occurrenceId": 2, "moveOut": [2]]]))
        #expect(e.data?["reason"]?.stringValue?.contains("dismiss correction") == true)
        #expect(e.data?["accepted"] == ["kind", "groupId", "note", "occurrenceId"])
    }

    // MARK: integers

    @Test func integralNumbersAreIntegersWhateverTheirSpelling() throws {
        let f = try ServiceFixture()
        #expect(try f.upsert("o", [rec("a", axis: 0, extra: ["revision": 1.0]), rec("b", axis: 1, extra: ["revision": 2e0])]) == ["created", "created"])
        #expect(try f.call("records/get", ["owner": "o", "id": "b"])["record"]?["revision"] == .int(2))
        #expect(try f.upsert("o", [rec("a", axis: 0, extra: ["revision": .double(1)])]) == ["unchanged"])
        let found = try f.call("search/query", ["owner": "o", "vector": .from(axisVector(1)), "limit": 1.0])
        #expect(found["results"]?.arrayValue?.map { $0["id"] } == ["b"])
        #expect(f.callError("search/query", ["owner": "o", "text": "x", "limit": 1e5])?.code == .limitExceeded)
        let fraction = try #require(f.callError("search/query", ["owner": "o", "text": "x", "limit": 1.5]))
        #expect(fraction.code == .invalidParams && fraction.data?["field"] == "limit")
        #expect(f.callError("search/query", ["owner": "o", "text": "x", "limit": 0.0])?.data?["field"] == "limit")
        #expect(f.callError("records/upsert", ["owner": "o", "records": [rec("c", extra: ["revision": 1e300])]])?.data?["field"] == "records[0].revision")
        #expect(f.callError("records/upsert", ["owner": "o", "records": [rec("c", extra: ["revision": 9.3e18])]])?.data?["field"] == "records[0].revision")
        // Integral group, version and correction ids reach the method (which then finds nothing).
        #expect(f.callError("patterns/group", ["owner": "o", "groupId": 3.0])?.code == .notFound)
        #expect(f.callError("patterns/undoCorrection", ["owner": "o", "correctionId": 2e0])?.code == .notFound)
        #expect(f.callError("patterns/group", ["owner": "o", "groupId": 3.5])?.data?["field"] == "groupId")
        #expect(f.callError("patterns/setLabel", ["owner": "o", "groupId": 1, "version": 1.25, "label": "x"])?.data?["field"] == "version")
        #expect(f.callError("patterns/correct", ["owner": "o", "correction": ["kind": "split", "groupId": 1, "moveOut": [1.5]]])?.data?["field"]
                == "correction.moveOut[0]")
        #expect(f.callError("occurrences/put", ["owner": "o", "recordId": "a", "revision": 1.0, "occurrences": []]) == nil)
    }

    // MARK: NUL

    static let nul: [(String, JSONValue, String)] = [
        ("records/upsert", ["owner": "alice\u{0}mallory", "records": [rec("a")]], "owner"),
        ("records/upsert", ["owner": "\u{0}", "records": [rec("a")]], "owner"),
        ("records/upsert", ["owner": "o", "records": [rec("diary-1\u{0}zzz")]], "records[0].id"),
        ("records/upsert", ["owner": "o", "records": [rec("a", extra: ["kind": "no\u{0}te"])]], "records[0].kind"),
        ("records/upsert", ["owner": "o", "records": [rec("a", extra: ["tags": ["ok", "t\u{0}"]])]], "records[0].tags[1]"),
        ("records/upsert", ["owner": "o", "records": [rec("a", extra: ["metadata": ["k\u{0}": "v"]])]], "records[0].metadata"),
        ("records/delete", ["owner": "o", "ids": ["a", "diary-1\u{0}zzz"]], "ids[1]"),
        ("records/get", ["owner": "alice\u{0}", "id": "a"], "owner"),
        ("records/get", ["owner": "o", "id": "a\u{0}"], "id"),
        ("records/setPermissions", ["owner": "o", "id": "a\u{0}b", "permissions": ["search": false]], "id"),
        ("search/query", ["owner": "alice\u{0}mallory", "text": "x"], "owner"),
        ("search/query", ["owner": "o", "text": "x", "filters": ["tags": ["t\u{0}"]]], "filters.tags[0]"),
        ("search/query", ["owner": "o", "text": "x", "filters": ["kinds": ["note", "n\u{0}"]]], "filters.kinds[1]"),
        ("search/query", ["owner": "o", "text": "x", "filters": ["metadata": ["k\u{0}": "v"]]], "filters.metadata"),
        ("search/similar", ["owner": "o", "id": "a\u{0}"], "id"),
        ("index/status", ["owner": "o\u{0}"], "owner"),
        ("occurrences/put", ["owner": "o", "recordId": "a\u{0}", "revision": 1, "occurrences": []], "recordId"),
        ("occurrences/put", ["owner": "o", "recordId": "a", "revision": 1,
                             "occurrences": [["category": "per\u{0}son", "description": "d", "excerpt": "e"]]], "occurrences[0].category"),
        ("occurrences/put", ["owner": "o", "recordId": "a", "revision": 1,
                             "occurrences": [["category": "person", "description": "d", "excerpt": "e", "tags": ["\u{0}"]]]], "occurrences[0].tags[0]"),
        ("patterns/refresh", ["owner": "o\u{0}"], "owner"),
        ("patterns/rebuild", ["owner": "\u{0}"], "owner"),
        ("patterns/findings", ["owner": "o", "category": "person\u{0}x"], "category"),
        ("patterns/group", ["owner": "o\u{0}", "groupId": 1], "owner"),
        ("patterns/correct", ["owner": "o\u{0}", "correction": ["kind": "dismiss", "groupId": 1, "occurrenceId": 2]], "owner"),
        ("patterns/corrections", ["owner": "o\u{0}"], "owner"),
        ("patterns/undoCorrection", ["owner": "o\u{0}", "correctionId": 1], "owner"),
        ("patterns/setLabel", ["owner": "o\u{0}", "groupId": 1, "version": 1, "label": "x"], "owner"),
    ]

    @Test(arguments: nul)
    func nulIsRefusedInNames(method: String, params: JSONValue, field: String) throws {
        let f = try ServiceFixture()
        _ = try f.upsert("o", [rec("a", axis: 0)])
        let e = try #require(f.callError(method, params))
        #expect(e.code == .invalidParams)
        #expect(e.data?["field"] == .string(field))
        #expect(e.data?["reason"]?.stringValue?.contains("U+0000") == true)
        #expect(try f.call("index/status", [:])["records"] == 1)
        #expect(try f.call("records/get", ["owner": "o", "id": "a"])["record"]?["id"] == "a")
    }

    /// Swift compares strings by canonical equivalence, SQLite byte for byte: a name not in NFC is
    /// refused, so "\u{E9}lise" and "e\u{301}lise" can never be one owner here and two there.
    @Test(arguments: [
        ("records/upsert", ["owner": "e\u{301}lise", "records": [rec("a", axis: 0)]] as JSONValue, "owner"),
        ("records/upsert", ["owner": "o", "records": [rec("e\u{301}t\u{E9}", axis: 0)]] as JSONValue, "records[0].id"),
        ("records/get", ["owner": "\u{E9}lise", "id": "e\u{301}"] as JSONValue, "id"),
        ("search/query", ["owner": "e\u{301}lise", "vector": .from(axisVector(0))] as JSONValue, "owner"),
        ("records/upsert", ["owner": "o", "records": [rec("b", axis: 0, extra: ["tags": ["cafe\u{301}"]])]] as JSONValue, "records[0].tags[0]"),
    ])
    func namesNotInNFCAreRefused(method: String, params: JSONValue, field: String) throws {
        let f = try ServiceFixture()
        _ = try f.upsert("\u{E9}lise", [rec("\u{E9}t\u{E9}", axis: 0)])
        let e = try #require(f.callError(method, params))
        #expect(e.code == .invalidParams)
        #expect(e.data?["field"] == .string(field))
        #expect(e.data?["reason"]?.stringValue?.contains("NFC") == true)
        // The NFC spellings name the one owner and record that exist.
        #expect(try f.call("records/get", ["owner": "\u{E9}lise", "id": "\u{E9}t\u{E9}"])["record"]?["id"] == "\u{E9}t\u{E9}")
        #expect(try f.searchIDs("\u{E9}lise", vector: axisVector(0)) == ["\u{E9}t\u{E9}"])
    }

    @Test func textsAndMetadataValuesMayHoldNULAndOtherControlCharactersAreKeptInIDs() throws {
        let f = try ServiceFixture()
        let id = "line\nbreak\u{1}tab\t\u{7f}"
        #expect(try f.upsert("o", [rec(id, text: "c\u{0}d", axis: 0, extra: ["metadata": ["k": "v\u{0}w"], "tags": ["a\tb"]])]) == ["created"])
        let got = try f.call("records/get", ["owner": "o", "id": .string(id)])
        #expect(got["record"]?["id"] == .string(id))
        #expect(got["record"]?["tags"] == ["a\tb"])
        #expect(try f.call("records/delete", ["owner": "o", "ids": [.string(id)]])["deleted"] == [.string(id)])
    }

    // MARK: vectors

    static let directionless: [(String, [Float])] = [
        ("all zeros", [Float](repeating: 0, count: 8)),
        ("underflowing", [Float](repeating: 1e-30, count: 8)),
        ("one subnormal", [Float.leastNormalMagnitude / 4] + [Float](repeating: 0, count: 7)),
        ("overflowing", [Float](repeating: 3e38, count: 8)),
    ]

    @Test(arguments: directionless)
    func vectorsWithoutADirectionAreRefusedInSearchAsInUpsert(name: String, vector: [Float]) throws {
        let f = try ServiceFixture()
        _ = try f.upsert("o", [rec("a", axis: 0)])
        let q = try #require(f.callError("search/query", ["owner": "o", "vector": .from(vector)]))
        #expect(q.code == .invalidParams && q.data?["field"] == "vector")
        let u = try #require(f.callError("records/upsert", ["owner": "o", "records": [rec("b", extra: ["vector": .from(vector)])]]))
        #expect(u.code == .invalidParams && u.data?["field"] == "records[0].vector")
        #expect(q.data?["reason"] == u.data?["reason"])
    }

    @Test func aShortVectorThatCanBeNormalisedIsAccepted() throws {
        let f = try ServiceFixture()
        var v = [Float](repeating: 0, count: 8)
        v[5] = 1e-9
        _ = try f.upsert("o", [rec("a", axis: 0), rec("b", extra: ["vector": .from(v)])])
        #expect(try f.searchIDs("o", vector: v, limit: 1) == ["b"])
    }
}
