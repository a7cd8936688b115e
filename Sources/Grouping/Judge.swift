/// The evidence judge: an outside decision every automatic membership needs when one is configured.
///
/// The engine proposes; the judge answers. Before an occurrence joins a group (assignment) or
/// founds one (seeding), the engine asks `Judge` about that one pair; only `.yes` makes the
/// membership. `.no` leaves the occurrence pending, and the engine tries the next eligible
/// candidate group; the same question is asked again only after either side changed (a new
/// occurrence id comes with every record revision, a new group version with every membership
/// change), so a caller that remembers verdicts by `JudgeQuestion.key` asks nothing twice.
/// `.unknown` (the judge did not answer) leaves the occurrence pending and fresh, counted in
/// `RefreshStats.waitingForJudge`; the next refresh asks again. With a judge, groups are not
/// combined automatically (the combination sweep is off): a merge correction combines them.
///
/// The engine knows nothing of who the judge is: the service answers from stored verdicts, a
/// client's model or a remote one.
public typealias Judge = (JudgeQuestion) -> Verdict

/// What a judge answers.
public enum Verdict: Sendable, Hashable {
    /// The occurrence belongs; `label` is a suggested group label (applied only to a group without one).
    case yes(label: String?)
    case no
    /// No answer (timeout, error, no judge available): the occurrence waits.
    case unknown
}

/// One question: does occurrence `occurrence` belong with `target`?
public struct JudgeQuestion: Sendable, Hashable {
    public enum Target: Sendable, Hashable {
        /// An existing group at its current version.
        case group(id: Int64, version: Int)
        /// A group seeding would found, named by its representative (the clique's medoid).
        case seed(representative: Int64)
    }

    public let occurrence: Int64
    public let target: Target
    /// The group's representative occurrence (its medoid, or the seed's).
    public let representative: Int64
    /// Supporting examples shown with it (exemplars or the other founding members), ascending,
    /// without the occurrence asked about and without the representative.
    public let examples: [Int64]
    /// Every member occurrence of the group (or of the proposed seed) besides the one asked about,
    /// ascending: whose records' correction notes matter.
    public let members: [Int64]
    /// The group's label, when it has one.
    public let label: String?
    /// The group the representative is in, when it is in one (shown to the judge; not part of the key).
    public let group: Int64?

    public init(occurrence: Int64, target: Target, representative: Int64, examples: [Int64], members: [Int64], label: String?,
                group: Int64? = nil) {
        self.group = group
        self.occurrence = occurrence
        self.target = target
        self.representative = representative
        self.examples = examples
        self.members = members
        self.label = label
    }

    /// What a verdict is remembered by: the occurrence (its id fixes its record revision) and the
    /// group at its version (or the seed's representative).
    public var key: Key { Key(occurrence: occurrence, target: target) }

    public struct Key: Sendable, Hashable {
        public let occurrence: Int64
        public let target: Target
        public init(occurrence: Int64, target: Target) {
            self.occurrence = occurrence
            self.target = target
        }
    }
}

extension Workspace {
    /// Asks the judge whether `occurrence` joins group `gid` as it is now.
    mutating func ask(_ occurrence: Int64, group gid: Int64) -> Verdict {
        guard let judge else { return .yes(label: nil) }
        let g = state.groups[gid]!
        guard let medoid = g.medoid else { return .no }
        let members = g.memberIDs.filter { $0 != occurrence }
        let examples = g.exemplars.filter { $0 != occurrence && $0 != medoid }.sorted()
        let verdict = judge(JudgeQuestion(occurrence: occurrence, target: .group(id: gid, version: g.version),
                                          representative: medoid, examples: examples, members: members, label: g.label))
        switch verdict {
        case .unknown: awaitingJudge.insert(occurrence)
        case .yes: awaitingJudge.remove(occurrence)
        case .no: break
        }
        return verdict
    }

    /// The founding members of a clique that the judge accepts: each member is asked about
    /// against the clique's representative (its medoid) with the other members as examples; the
    /// representative founds the group with those that get a yes. Returns the accepted clique
    /// (representative included; empty when no member was accepted) and the first suggested label.
    mutating func judgeSeed(_ clique: [Occurrence]) -> (members: [Occurrence], label: String?) {
        guard let judge else { return (clique, nil) }
        let ids = clique.map(\.id)
        let sum = GroupGeometry.sum(ids, occurrences)
        guard let rep = GroupGeometry.medoid(ids, sum: sum, occurrences, config: config) else { return ([], nil) }
        var accepted: [Occurrence] = []
        var label: String?
        var unanswered = false
        for member in clique.sorted(by: { $0.id < $1.id }) where member.id != rep {
            let others = ids.filter { $0 != member.id }.sorted()
            let q = JudgeQuestion(occurrence: member.id, target: .seed(representative: rep), representative: rep,
                                  examples: others.filter { $0 != rep }, members: others, label: nil)
            switch judge(q) {
            case .yes(let l):
                awaitingJudge.remove(member.id)
                accepted.append(member)
                if label == nil { label = l }
            case .no:
                break
            case .unknown:
                awaitingJudge.insert(member.id)
                unanswered = true
            }
        }
        guard !accepted.isEmpty else {
            // The representative waits with the members the judge did not answer about.
            if unanswered { awaitingJudge.insert(rep) }
            return ([], nil)
        }
        awaitingJudge.remove(rep)
        return (clique.filter { $0.id == rep } + accepted, label)
    }

    /// A suggested label becomes the group's client label at its current version, unless it has one.
    mutating func adoptSuggested(_ label: String?, for gid: Int64) {
        guard let label, !label.isEmpty, state.groups[gid]!.label == nil, state.groups[gid]!.medoid != nil else { return }
        state.groups[gid]!.label = label
        state.groups[gid]!.labelVersion = state.groups[gid]!.version
    }

    /// Occurrences the judge did not answer about and that are still pending stay fresh (evaluated
    /// in full by the next refresh); the state is then not settled.
    mutating func leaveAwaitingFresh() {
        var waiting = 0
        for id in awaitingJudge.sorted() where state.pending[id] != nil {
            state.pending[id]!.evaluatedAt = nil
            state.pending[id]!.certificate = nil
            pendingChanged.insert(id)
            waiting += 1
        }
        waitingForJudge = waiting
        if waiting > 0 { unsettled = true }
    }
}
