import Foundation
import Grouping
import KindredCore
import JSONRPC

/// The `correction` object of `patterns/correct`. Each kind takes its own fields besides `kind`,
/// `groupId` and `note`; a field another kind uses is refused (`correction.moveOut` on a dismiss).
enum CorrectionParams {
    static let common = ["kind", "groupId", "note"]
    static let kindFields: [(kind: String, fields: [String])] = [
        ("dismiss", ["occurrenceId"]), ("split", ["moveOut"]), ("merge", ["fromGroupId"]), ("pin", ["occurrenceId"]),
        ("exclude", ["occurrenceId"]),
    ] + ThemeCorrectionParams.kindFields
    static var keys: [String] {
        var all = common
        for (_, fields) in kindFields { for f in fields where !all.contains(f) { all.append(f) } }
        return all
    }

    static func decode(_ p: Params) throws(ResponseError) -> CorrectionRequest {
        guard let c = try p.optionalObject("correction", keys: keys, what: "a correction field") else { throw p.fail("correction", "is required") }
        let kindName = try c.string("kind")
        guard let fields = kindFields.first(where: { $0.kind == kindName })?.fields else {
            throw c.fail("kind", "must be one of \(kindFields.map(\.kind).joined(separator: ", "))")
        }
        try c.refuseUnknown(common + fields, what: "a field of a \(kindName) correction")
        if ThemeCorrectionParams.kindFields.contains(where: { $0.kind == kindName }) { throw c.fail("kind", "\(kindName) is a theme correction") }
        let group = try c.int("groupId")
        let note = try c.optionalString("note")
        if let note, note.utf8.count > 1000 { throw c.fail("note", "must be at most 1000 bytes") }
        let kind: CorrectionKind
        switch kindName {
        case "dismiss": kind = .dismiss(occurrence: try c.int("occurrenceId"), group: group)
        case "pin": kind = .pin(occurrence: try c.int("occurrenceId"), group: group)
        case "exclude": kind = .exclude(occurrence: try c.int("occurrenceId"), group: group)
        case "merge": kind = .merge(into: group, from: try c.int("fromGroupId"))
        default:
            let items = try c.array("moveOut")
            var ids: [Int64] = []
            for (i, v) in items.enumerated() {
                ids.append(try FieldRules.integer(v, field: c.path("moveOut") + "[\(i)]", what: "an occurrence id (integer)"))
            }
            guard !ids.isEmpty else { throw c.fail("moveOut", "must name at least one occurrence") }
            kind = .split(group: group, moveOut: ids)
        }
        return CorrectionRequest(kind: kind, note: note, createdAt: ISO8601DateFormatter().string(from: Date()))
    }
}
