/// A correction as `patterns/corrections` and `patterns/group` list it.
public struct CorrectionRecord: Codable, Sendable, Hashable {
    public var correctionId: Int
    public var createdAt: String
    public var undone: Bool
    @Nullable public var note: String?
    public var kind: String
    public var groupId: Int
    public var occurrenceId: Int?
    public var moveOut: [Int]?
    public var fromGroupId: Int?
    public var separated: [[String]]
    /// The records it says belong together (merge, pin).
    public var joined: [String]
    public init(correctionId: Int, createdAt: String, undone: Bool, note: String?, kind: String, groupId: Int, occurrenceId: Int? = nil,
                moveOut: [Int]? = nil, fromGroupId: Int? = nil, separated: [[String]], joined: [String]) {
        self.correctionId = correctionId; self.createdAt = createdAt; self.undone = undone; self.note = note; self.kind = kind
        self.groupId = groupId; self.occurrenceId = occurrenceId; self.moveOut = moveOut; self.fromGroupId = fromGroupId
        self.separated = separated; self.joined = joined
    }
}

/// A theme correction as `patterns/corrections` lists it (docs/patterns.md): `newThemeId` for a
/// split, `groups` (those it let go) for a dismiss.
public struct ThemeCorrectionRecord: Codable, Sendable, Hashable {
    public var correctionId: Int
    public var createdAt: String
    public var undone: Bool
    @Nullable public var note: String?
    public var kind: String
    public var themeId: Int
    public var groupId: Int?
    public var moveOut: [Int]?
    public var newThemeId: Int?
    public var fromThemeId: Int?
    public var groups: [Int]?
    public init(correctionId: Int, createdAt: String, undone: Bool, note: String?, kind: String, themeId: Int, groupId: Int? = nil,
                moveOut: [Int]? = nil, newThemeId: Int? = nil, fromThemeId: Int? = nil, groups: [Int]? = nil) {
        self.correctionId = correctionId; self.createdAt = createdAt; self.undone = undone; self.note = note; self.kind = kind
        self.themeId = themeId; self.groupId = groupId; self.moveOut = moveOut; self.newThemeId = newThemeId
        self.fromThemeId = fromThemeId; self.groups = groups
    }
}

/// `patterns/correct`: a group correction (dismiss, split, merge, pin) or a theme correction
/// (`themeRemove`, `themeSplit`, `themeMerge`, `themePin`, `themeDismiss`). Corrections are stored
/// apart from groups and themes and honoured by every later refresh; `patterns/undoCorrection`
/// undoes one by its id.
public struct PatternsCorrect: KindredRequest {
    public struct Correction: Codable, Sendable, Hashable {
        /// The keys a correction object may hold (each kind takes its own, docs/patterns.md).
        public static let fields = ["kind", "groupId", "note", "occurrenceId", "moveOut", "fromGroupId", "themeId", "fromThemeId"]

        public var kind: String
        public var groupId: Int?
        public var occurrenceId: Int?
        public var moveOut: [Int]?
        public var fromGroupId: Int?
        public var themeId: Int?
        public var fromThemeId: Int?
        public var note: String?

        public static func dismiss(occurrence: Int, from group: Int, note: String? = nil) -> Self {
            Self(kind: "dismiss", groupId: group, occurrenceId: occurrence, note: note)
        }
        /// `occurrence` (now in `group`) belongs to no pattern: it joins no group until undone.
        public static func exclude(occurrence: Int, from group: Int, note: String? = nil) -> Self {
            Self(kind: "exclude", groupId: group, occurrenceId: occurrence, note: note)
        }
        public static func pin(occurrence: Int, to group: Int, note: String? = nil) -> Self {
            Self(kind: "pin", groupId: group, occurrenceId: occurrence, note: note)
        }
        public static func split(_ group: Int, moveOut: [Int], note: String? = nil) -> Self {
            Self(kind: "split", groupId: group, moveOut: moveOut, note: note)
        }
        public static func merge(_ from: Int, into group: Int, note: String? = nil) -> Self {
            Self(kind: "merge", groupId: group, fromGroupId: from, note: note)
        }
        /// `group` leaves `theme` and never joins it again.
        public static func themeRemove(group: Int, from theme: Int, note: String? = nil) -> Self {
            Self(kind: "themeRemove", groupId: group, themeId: theme, note: note)
        }
        /// `moveOut` groups go to a new theme and never share one with the groups that stay.
        public static func themeSplit(_ theme: Int, moveOut: [Int], note: String? = nil) -> Self {
            Self(kind: "themeSplit", moveOut: moveOut, themeId: theme, note: note)
        }
        public static func themeMerge(_ from: Int, into theme: Int, note: String? = nil) -> Self {
            Self(kind: "themeMerge", themeId: theme, fromThemeId: from, note: note)
        }
        public static func themePin(group: Int, to theme: Int, note: String? = nil) -> Self {
            Self(kind: "themePin", groupId: group, themeId: theme, note: note)
        }
        public static func themeDismiss(_ theme: Int, note: String? = nil) -> Self {
            Self(kind: "themeDismiss", themeId: theme, note: note)
        }
    }
    /// `affectedGroups` for a group correction, `affectedThemes` for a theme correction.
    public struct Result: Codable, Sendable, Hashable {
        public var correctionId: Int
        public var affectedGroups: [Int]?
        public var affectedThemes: [Int]?
        public init(correctionId: Int, affectedGroups: [Int]? = nil, affectedThemes: [Int]? = nil) {
            self.correctionId = correctionId; self.affectedGroups = affectedGroups; self.affectedThemes = affectedThemes
        }
    }
    public var owner: String
    public var correction: Correction
    public init(owner: String, correction: Correction) { self.owner = owner; self.correction = correction }
    public static let spec = MethodSpec("patterns/correct", for: Self.self)
}

extension PatternsCorrect.Correction: FieldNotes {
    public static let fieldNotes: [String: FieldNote] = [
        "kind": FieldNote(oneOf: ["dismiss", "split", "merge", "pin", "exclude",
                                  "themeRemove", "themeSplit", "themeMerge", "themePin", "themeDismiss"]),
        "groupId": "Group kinds: the group corrected (for merge, the one kept). themeRemove and themePin: the group.",
        "occurrenceId": "dismiss, pin and exclude: the occurrence (from the group tool).",
        "moveOut": "split: the occurrences that leave; themeSplit: the groups that leave.",
        "fromGroupId": "merge: the group merged into groupId.",
        "themeId": "Theme kinds: the theme corrected (for themeMerge, the one kept).",
        "fromThemeId": "themeMerge: the theme merged into themeId.",
        "note": "The person's reason, at most 1000 bytes.",
    ]
}

/// `patterns/corrections`.
public struct PatternsCorrections: KindredRequest {
    public struct Result: Codable, Sendable, Hashable {
        public var corrections: [CorrectionRecord]
        public var themeCorrections: [ThemeCorrectionRecord]?
        public init(corrections: [CorrectionRecord], themeCorrections: [ThemeCorrectionRecord]?) {
            self.corrections = corrections; self.themeCorrections = themeCorrections
        }
    }
    public var owner: String
    public init(owner: String) { self.owner = owner }
    public static let spec = MethodSpec("patterns/corrections", for: Self.self)
}

/// `patterns/undoCorrection`.
public struct PatternsUndoCorrection: KindredRequest {
    /// `affectedThemes` when the correction undone was a theme correction.
    public struct Result: Codable, Sendable, Hashable {
        public var correctionId: Int
        public var undone: Bool
        public var affectedGroups: [Int]
        public var affectedThemes: [Int]?
        public init(correctionId: Int, undone: Bool, affectedGroups: [Int], affectedThemes: [Int]? = nil) {
            self.correctionId = correctionId; self.undone = undone; self.affectedGroups = affectedGroups; self.affectedThemes = affectedThemes
        }
    }
    public var owner: String
    public var correctionId: Int
    public init(owner: String, correctionId: Int) { self.owner = owner; self.correctionId = correctionId }
    public static let spec = MethodSpec("patterns/undoCorrection", for: Self.self)
}

/// `patterns/setLabel`: a client-written label for the group at `version` (nil clears it).
public struct PatternsSetLabel: KindredRequest {
    public struct Result: Codable, Sendable, Hashable {
        public var ok: Bool
        public var groupId: Int
        public var version: Int
        @Nullable public var label: String?
        public init(ok: Bool, groupId: Int, version: Int, label: String?) { self.ok = ok; self.groupId = groupId; self.version = version; self.label = label }
    }
    public var owner: String
    public var groupId: Int
    public var version: Int
    /// Required: null clears the label.
    @Nullable public var label: String?
    public var description: String?
    public init(owner: String, groupId: Int, version: Int, label: String?, description: String? = nil) {
        self.owner = owner; self.groupId = groupId; self.version = version; self.label = label; self.description = description
    }
    public static let spec = MethodSpec("patterns/setLabel", for: Self.self)
}
