import JSONRPC
import KindredProtocol

/// `patterns/group`: `owner`, `groupId`.
extension PatternsGroup: ServedRequest {
    func check(_ rules: ParamRules) throws(ResponseError) {}
}

/// `patterns/setLabel`: `owner`, `groupId`, `version`, `label` (null clears it), `description?`.
extension PatternsSetLabel: ServedRequest {
    static var readRules: [String: ReadRule] { ["owner": .name(), "label": .present(absent: "is required (null clears the label)")] }

    func check(_ rules: ParamRules) throws(ResponseError) {
        if let label, label.isEmpty { throw .invalidParams(field: "label", reason: "must not be empty (null clears the label)") }
        if let label { try ReadRule.maxBytes(512).check(label, field: "label") }
    }
}

/// `patterns/correct`: `owner`, `correction` (read by its kind: `CorrectionChecks.swift`).
extension PatternsCorrect: ServedRequest {
    func check(_ rules: ParamRules) throws(ResponseError) {}
}

/// `patterns/corrections`: `owner`.
extension PatternsCorrections: ServedRequest {
    func check(_ rules: ParamRules) throws(ResponseError) {}
}

/// `patterns/undoCorrection`: `owner`, `correctionId`.
extension PatternsUndoCorrection: ServedRequest {
    func check(_ rules: ParamRules) throws(ResponseError) {}
}

