import Foundation
import Grouping
import KindredCore
import JSONRPC

/// `patterns/refresh`: `owner?` (every owner when absent).
struct PatternsRefresh: MethodParams {
    static let method = "patterns/refresh"
    static let kind = MethodKind.write
    static let keys = ["owner"]

    var owner: String?

    init(_ p: Params) throws(ResponseError) { owner = try p.optionalName("owner") }
}

/// `patterns/rebuild`: `owner?`, as `patterns/refresh`.
struct PatternsRebuild: MethodParams {
    static let method = "patterns/rebuild"
    static let kind = MethodKind.write
    static let keys = ["owner"]

    var owner: String?

    init(_ p: Params) throws(ResponseError) { owner = try p.optionalName("owner") }
}

/// `patterns/findings`: `owner`, `from?`, `to?`, `compareFrom?`, `compareTo?`, `category?`, `includeRelated?`.
struct PatternsFindings: MethodParams {
    static let method = "patterns/findings"
    static let kind = MethodKind.read
    static let keys = ["owner", "from", "to", "compareFrom", "compareTo", "category", "includeRelated"]

    var owner: String
    var query: FindingsQuery

    init(_ p: Params) throws(ResponseError) {
        owner = try p.name("owner")
        query = FindingsQuery()
        query.period = try Self.period(p, "from", "to")
        query.comparePeriod = try Self.period(p, "compareFrom", "compareTo")
        query.category = try p.optionalName("category", maxLength: 128)
        query.includeRelated = try p.optionalBool("includeRelated") ?? true
    }

    static func period(_ p: Params, _ fromKey: String, _ toKey: String) throws(ResponseError) -> Period? {
        let from = try p.optionalDate(fromKey), to = try p.optionalDate(toKey)
        guard from != nil || to != nil else { return nil }
        let period = Period(from: from ?? "0000-01-01", to: to ?? "9999-12-31")
        guard period.from <= period.to else { throw p.fail(toKey, "must not be before \(fromKey)") }
        return period
    }
}

/// `patterns/group`: `owner`, `groupId`.
struct PatternsGroup: MethodParams {
    static let method = "patterns/group"
    static let kind = MethodKind.read
    static let keys = ["owner", "groupId"]

    var owner: String
    var groupID: Int64

    init(_ p: Params) throws(ResponseError) {
        owner = try p.name("owner")
        groupID = try p.int("groupId")
    }
}

/// `patterns/setLabel`: `owner`, `groupId`, `version`, `label` (null clears it), `description?`.
struct PatternsSetLabel: MethodParams {
    static let method = "patterns/setLabel"
    static let kind = MethodKind.write
    static let keys = ["owner", "groupId", "version", "label", "description"]

    var owner: String
    var groupID: Int64
    var version: Int64
    var label: String?
    var description: String?

    init(_ p: Params) throws(ResponseError) {
        owner = try p.name("owner")
        groupID = try p.int("groupId")
        version = try p.int("version")
        guard p.object["label"] != nil else { throw p.fail("label", "is required (null clears the label)") }
        label = try p.optionalString("label")
        if let label, label.isEmpty { throw p.fail("label", "must not be empty (null clears the label)") }
        if let label, label.utf8.count > 512 { throw p.fail("label", "must be at most 512 bytes") }
        description = try p.optionalString("description")
    }
}

/// `patterns/correct`: `owner`, `correction` (see `CorrectionParams`).
struct PatternsCorrect: MethodParams {
    static let method = "patterns/correct"
    static let kind = MethodKind.write
    static let keys = ["owner", "correction"]

    var owner: String
    var request: CorrectionRequest

    init(_ p: Params) throws(ResponseError) {
        owner = try p.name("owner")
        request = try CorrectionParams.decode(p)
    }
}

/// `patterns/corrections`: `owner`.
struct PatternsCorrections: MethodParams {
    static let method = "patterns/corrections"
    static let kind = MethodKind.read
    static let keys = ["owner"]

    var owner: String

    init(_ p: Params) throws(ResponseError) { owner = try p.name("owner") }
}

/// `patterns/undoCorrection`: `owner`, `correctionId`.
struct PatternsUndoCorrection: MethodParams {
    static let method = "patterns/undoCorrection"
    static let kind = MethodKind.write
    static let keys = ["owner", "correctionId"]

    var owner: String
    var correctionID: Int64

    init(_ p: Params) throws(ResponseError) {
        owner = try p.name("owner")
        correctionID = try p.int("correctionId")
    }
}
