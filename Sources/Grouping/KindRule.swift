/// Records of two kinds never share a group made automatically.
///
/// A dream and a waking note that resemble each other are two situations (one recurs at night, the
/// other in the day), and a finding counts records of one kind ("5 of 40 dreams"). So, with the
/// kind of an occurrence's record (`Occurrence.recordKind`; "" for a record without one, a kind of
/// its own):
/// - an occurrence joins a group only when its record is of the kind of the group's representative's
///   record (`JoinRule.swift`; `GroupProfile.kind`), and so does a member an undo moves back
///   (`Undo.swift`);
/// - a seed's records are all of the kind of the occurrence it grows from (`Seeding.swift`);
/// - two groups combine only when their representatives' records are of one kind
///   (`Combination.swift`, `SimilarityCombination.swift`).
/// A person's corrections are theirs to make across kinds: a merge, a pin or a split is not refused
/// for it. Within one kind nothing changes, so an owner whose records have one kind (or none) gets
/// exactly the groups they got before.
extension Workspace {
    /// The kind of group `gid`'s representative's record; nil for a group without a representative.
    func representativeKind(_ gid: Int64) -> String? {
        guard let m = state.groups[gid]?.medoid, let i = occurrences.index(forKey: m) else { return nil }
        return occurrences.values[i].recordKind
    }
}
