import Foundation
import Grouping
import JSONRPC
import KindredCore
import Storage

/// Why a judge gave no usable answer.
struct JudgeFailure: Error, CustomStringConvertible {
    let description: String
}

/// Something that can answer one `patterns/judge` question (the params of the request).
protocol JudgeAsker {
    /// `client` or `openai`: what stored verdicts say answered them.
    var name: String { get }
    func ask(_ params: JSONValue) -> Result<JSONValue, JudgeFailure>
}

/// The judge's answer, checked.
struct JudgeAnswer: Equatable {
    var match: Bool
    var sharedElement: String
    var difference: String
    var label: String?

    /// `{match, sharedElement, difference?, label?}`: unknown keys and wrong types are refused with
    /// the field named; a yes must name the shared element.
    static func parse(_ v: JSONValue) throws(JudgeFailure) -> JudgeAnswer {
        guard case .object(let o) = v else { throw JudgeFailure(description: "the answer must be an object, got \(v.typeName)") }
        for key in o.keys.sorted() where !["match", "sharedElement", "difference", "label"].contains(key) {
            throw JudgeFailure(description: "\(key): unknown field (expected match, sharedElement, difference, label)")
        }
        guard case .bool(let match)? = o["match"] else {
            throw JudgeFailure(description: "match: must be true or false, got \(o["match"]?.typeName ?? "nothing")")
        }
        func text(_ key: String, max: Int) throws(JudgeFailure) -> String? {
            switch o[key] {
            case nil, .null?: return nil
            case .string(let s)?:
                guard s.utf8.count <= max else { throw JudgeFailure(description: "\(key): at most \(max) bytes, got \(s.utf8.count)") }
                return s
            case let other?: throw JudgeFailure(description: "\(key): must be a string, got \(other.typeName)")
            }
        }
        let shared = try text("sharedElement", max: 2000) ?? ""
        let difference = try text("difference", max: 2000) ?? ""
        let label = try text("label", max: 200)
        if match && shared.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw JudgeFailure(description: "sharedElement: a match must name the specific shared element")
        }
        return JudgeAnswer(match: match, sharedElement: shared, difference: difference,
                           label: label.flatMap { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : $0 })
    }
}

/// What the judge did in one refresh, for its result.
struct JudgeTally {
    /// Questions sent to the judge (not answered from stored verdicts).
    var asked = 0
    /// Questions answered from stored verdicts.
    var remembered = 0
    /// Questions not sent because the refresh's budget (`patterns.judgeBudget`) was spent.
    var wanted = 0
    /// The first failure, after which no more questions are sent in this refresh.
    var problem: String?

    static func + (a: Self, b: Self) -> Self {
        Self(asked: a.asked + b.asked, remembered: a.remembered + b.remembered, wanted: a.wanted + b.wanted, problem: a.problem ?? b.problem)
    }
}

/// Where a judge session reads and keeps verdicts: the refresh's own transaction, or — while the
/// questions are asked outside the writer — a reader to look up and a short write per answer.
struct VerdictAccess {
    let find: (_ owner: String, _ occurrence: Int64, _ recordRevision: Int, _ group: (id: Int64, version: Int)?, _ seed: Int64?) throws -> StoredVerdict?
    let keep: (_ owner: String, StoredVerdict) throws -> Void

    /// Both on one store (inside the caller's transaction).
    static func on(_ store: RecordStore) -> VerdictAccess {
        VerdictAccess(find: { try store.verdict(owner: $0, occurrence: $1, recordRevision: $2, group: $3, seed: $4) },
                      keep: { try store.storeVerdict(owner: $0, $1) })
    }
}

/// The judge of one owner's refresh: a verdict stored for the question is used as it is; otherwise
/// the asker is asked and its answer stored. After the first failure (timeout, error, bad answer)
/// nothing more is sent in this refresh: the remaining questions are answered unknown, so their
/// occurrences wait. Without an asker (and no failure), an unstored question is answered unknown.
final class JudgeSession {
    let owner: String
    let verdicts: VerdictAccess
    let occurrences: [Int64: Occurrence]
    let corrections: [Correction]
    let instruction: String
    let asker: (any JudgeAsker)?
    /// Questions this session may send (`patterns.judgeBudget`).
    let budget: Int
    var tally = JudgeTally()
    /// Answers given in this refresh (a question comes back within a refresh while its sides stay the same).
    private var memo: [JudgeQuestion.Key: Verdict] = [:]
    private let log: (String) -> Void

    init(owner: String, verdicts: VerdictAccess, occurrences: [Int64: Occurrence], corrections: [Correction], instruction: String,
         asker: (any JudgeAsker)?, unavailable: String?, budget: Int = .max, log: @escaping (String) -> Void) {
        self.owner = owner
        self.budget = budget
        self.verdicts = verdicts
        self.occurrences = occurrences
        self.corrections = corrections
        self.instruction = instruction
        self.asker = asker
        self.log = log
        tally.problem = unavailable
    }

    func judge(_ q: JudgeQuestion) -> Verdict {
        if let known = memo[q.key] { return known }
        let verdict = decide(q)
        memo[q.key] = verdict
        return verdict
    }

    private func decide(_ q: JudgeQuestion) -> Verdict {
        guard let occ = occurrences[q.occurrence] else { return .unknown }
        let (group, seed): ((id: Int64, version: Int)?, Int64?) = switch q.target {
        case let .group(id, version): ((id, version), nil)
        case let .seed(representative): (nil, representative)
        }
        do {
            if let stored = try verdicts.find(owner, occ.id, occ.recordRevision, group, seed) {
                tally.remembered += 1
                return stored.match ? .yes(label: stored.label) : .no
            }
        } catch {
            tally.problem = tally.problem ?? "reading stored verdicts failed: \(error)"
            return .unknown
        }
        guard tally.problem == nil, let asker else { return .unknown }
        guard tally.asked < budget else {
            tally.wanted += 1
            return .unknown
        }
        tally.asked += 1
        let answer: JudgeAnswer
        switch asker.ask(params(q, occ)) {
        case .failure(let f):
            fail("patterns/judge: \(f.description)")
            return .unknown
        case .success(let v):
            do { answer = try JudgeAnswer.parse(v) } catch {
                fail("patterns/judge answer: \(error.description)")
                return .unknown
            }
        }
        do {
            try verdicts.keep(owner, StoredVerdict(
                occurrence: occ.id, recordRevision: occ.recordRevision, group: group, seed: seed, match: answer.match,
                sharedElement: answer.sharedElement, difference: answer.difference, label: answer.label, judge: asker.name,
                decidedAt: ISO8601DateFormatter().string(from: Date())))
        } catch {
            fail("storing a verdict failed: \(error)")
            return .unknown
        }
        return answer.match ? .yes(label: answer.label) : .no
    }

    private func fail(_ problem: String) {
        tally.problem = problem
        log("\(problem); occurrences wait for the judge until the next refresh")
    }

    /// The `patterns/judge` params of one question.
    func params(_ q: JudgeQuestion, _ occ: Occurrence) -> JSONValue {
        func item(_ o: Occurrence) -> JSONValue {
            ["recordId": .string(o.recordID), "description": .string(o.description), "excerpt": .string(o.excerpt)]
        }
        var group: JSONObject = ["category": .string(occ.category), "label": q.label.map { .string($0) } ?? .null]
        switch q.target {
        case let .group(id, version):
            group["id"] = .int(id)
            group["version"] = .from(version)
        case .seed:
            group["id"] = q.group.map { .int($0) } ?? .null
        }
        if let rep = occurrences[q.representative] { group["representative"] = item(rep) }
        group["examples"] = .array(q.examples.compactMap { occurrences[$0] }.map(item))
        let records = Set(q.members.compactMap { occurrences[$0]?.recordID })
        return [
            "owner": .string(owner),
            "occurrence": ["id": .int(occ.id), "recordId": .string(occ.recordID), "category": .string(occ.category),
                           "description": .string(occ.description), "excerpt": .string(occ.excerpt)],
            "group": .object(group),
            "notes": .array(Self.notes(between: occ.recordID, and: records, corrections)),
            "instruction": .string(instruction),
        ]
    }

    /// Notes of the corrections in force that name `record` or one of `others` (the records of the
    /// group's members), oldest first: `{correctionId, kind, note, records}`, `records` being the
    /// correction's records among those of the question. A dismissal between the occurrence's
    /// record and a member never reaches a question (the pair is kept apart without asking); its
    /// note reaches every later question about a group that holds either record.
    static func notes(between record: String, and others: Set<String>, _ corrections: [Correction]) -> [JSONValue] {
        var out: [JSONValue] = []
        let asked = others.union([record])
        for c in corrections.sorted(by: { $0.id < $1.id }) {
            guard let note = c.note, !note.isEmpty else { continue }
            var named = Set(c.joined)
            for p in c.separated { named.insert(p.a); named.insert(p.b) }
            let involved = named.intersection(asked)
            guard !involved.isEmpty else { continue }
            out.append(["correctionId": .int(c.id), "kind": .string(PatternJSON.kindName(c.kind)), "note": .string(note),
                        "records": .from(involved.sorted())])
        }
        return out
    }
}

/// The client's own model, asked with `patterns/judge` requests over the connection.
struct ClientJudge: JudgeAsker {
    let client: any ClientChannel
    let timeout: Double
    let isCancelled: () -> Bool
    var name: String { "client" }

    func ask(_ params: JSONValue) -> Result<JSONValue, JudgeFailure> {
        switch client.request("patterns/judge", params, timeout: timeout, isCancelled: isCancelled) {
        case .result(let v): return .success(v)
        case let .error(code, message): return .failure(JudgeFailure(description: "the client answered error \(code): \(message)"))
        case .timedOut: return .failure(JudgeFailure(description: "no answer within \(Int(timeout * 1000)) ms (patterns.judgeTimeoutMs)"))
        case .cancelled: return .failure(JudgeFailure(description: "the refresh was cancelled"))
        case .closed: return .failure(JudgeFailure(description: "the client's input has ended"))
        }
    }
}
