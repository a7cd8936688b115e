import KindredCLI
import Service

/// A mistyped owner or kind answered with the names that exist, instead of an empty result that
/// reads like "nothing recurs" or "nothing matched".
enum Inventory {
    /// "demo (336 records), me (2 records)", or "none" for an empty database.
    static func owners(_ service: KindredService) throws -> String {
        let owners = try service.ownerCounts()
        return owners.isEmpty ? "none" : owners.map { "\($0.owner) (\(records($0.records)))" }.joined(separator: ", ")
    }

    static func records(_ n: Int) -> String { "\(n) record\(n == 1 ? "" : "s")" }

    /// The sentence for an owner without records: where, and which owners the file does hold.
    static func noRecords(_ service: KindredService, owner: String) throws -> String {
        "owner '\(owner)' has no records in \(service.databasePath) (owners there: \(try owners(service)))"
    }

    /// Fails with exit 4 when `owner` has no records, naming the owners there are.
    static func requireOwner(_ service: KindredService, _ owner: String) throws {
        guard try service.kindCounts(owner: owner).isEmpty else { return }
        throw CommandError(description: try noRecords(service, owner: owner), code: ExitCode.notFound)
    }

    /// Fails with a usage error (exit 2) naming every kind in `kinds` that none of `owner`'s records
    /// has, and the kinds there are. Kinds are compared exactly, as the service filters them.
    static func requireKinds(_ service: KindredService, owner: String, _ kinds: [String]) throws {
        guard !kinds.isEmpty else { return }
        let counts = try service.kindCounts(owner: owner)
        if counts.isEmpty { throw CommandError(description: try noRecords(service, owner: owner), code: ExitCode.notFound) }
        let known = Set(counts.compactMap(\.kind))
        let unknown = kinds.filter { !known.contains($0) }
        guard !unknown.isEmpty else { return }
        let listed = counts.compactMap { c in c.kind.map { "\($0) (\(records(c.records)))" } }
        let without = counts.first { $0.kind == nil }.map { "; \(records($0.records)) without a kind" } ?? ""
        let there = listed.isEmpty ? "none of its records has a kind" : "its kinds are \(listed.joined(separator: ", "))"
        throw Arguments.UsageError(description: "--kind: owner '\(owner)' has no records of kind "
            + unknown.map { "'\($0)'" }.joined(separator: " or ") + "; \(there)\(without)")
    }
}
