import Grouping
import Storage

/// An engine's pending mark as the columns of its row (`PendingMarkRow`) and back. The row's owner
/// is the scope's; a scope of another owner (which no state holds) is not stored.
extension PatternCodec {
    static func markRow(_ occurrence: Int64, _ m: PendingMark, owner: String) -> PendingMarkRow {
        PendingMarkRow(occurrence: occurrence, evaluatedAt: m.evaluatedAt.map { Int64($0) },
                       category: m.scope.flatMap { $0.owner == owner ? $0.category : nil },
                       certificate: m.certificate.map {
                           .init(at: Int64($0.at), candidates: $0.candidates, kthScore: $0.kthScore.map { Int64($0) }, kthGroup: $0.kthGroup,
                                 stamp: Int64($0.stamp))
                       })
    }

    static func mark(_ row: PendingMarkRow, owner: String) -> PendingMark {
        PendingMark(evaluatedAt: row.evaluatedAt.map { Int($0) },
                    certificate: row.certificate.map {
                        PendingCertificate(at: Int($0.at), candidates: $0.candidates, kthScore: $0.kthScore.map { Int($0) }, kthGroup: $0.kthGroup,
                                           stamp: Int($0.stamp))
                    },
                    scope: row.category.map { Scope(owner: owner, category: $0) })
    }
}
