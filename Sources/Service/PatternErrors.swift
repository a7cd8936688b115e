import Grouping
import KindredCore
import JSONRPC
import Storage

extension ResponseError {
    /// The one place grouping engine errors become JSON-RPC errors.
    static func grouping(_ error: GroupingError, owner: String) -> ResponseError {
        switch error {
        case let .contradiction(a, b, occurrences):
            return ResponseError(
                code: .constraintConflict, message: "constraint conflict: \(error.description)",
                data: ["recordA": .string(a), "recordB": .string(b), "records": .from([a, b]),
                       "occurrences": .array(occurrences.map { .int($0) }),
                       "reason": "a correction keeps these records together and another keeps them apart"])
        case let .unknownGroup(g):
            return .notFound("group", id: String(g), owner: owner)
        case let .unknownOccurrence(o):
            return .notFound("occurrence", id: String(o), owner: owner)
        case let .notAMember(o, g):
            return .invalidParams(field: "correction.occurrenceId", reason: error.description,
                                  extra: ["occurrenceId": .int(o), "groupId": .int(g)])
        case let .invalidCorrection(reason):
            return .invalidParams(field: "correction", reason: reason)
        case let .staleVersion(g, current, given):
            return ResponseError(
                code: .staleGroupVersion, message: "stale group version: \(error.description)",
                data: ["groupId": .int(g), "currentVersion": .from(current), "version": .from(given), "field": "version"])
        case .dimensionMismatch:
            return .internalError(error.description)
        case .cancelled:
            return .cancelled
        }
    }
}

extension KindredService {
    /// Runs `body` on the writer, mapping engine errors once and everything else to a storage failure.
    func withPatternWriter<T>(owner: String, _ body: (RecordStore) throws -> T) throws(ResponseError) -> T {
        try Self.answering(owner: owner) { try writer.with { store in try Self.interruptible(store, body) } }
    }

    func withPatternReader<T>(owner: String, _ body: (RecordStore) throws -> T) throws(ResponseError) -> T {
        try Self.answering(owner: owner) { try readers.with { store in try Self.interruptible(store, body) } }
    }
}
