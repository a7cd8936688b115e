import KindredCLI
import KindredCore
import Service

/// `kindred patterns correct …` and `kindred patterns label …`: a person's decisions about their
/// groups, through the same methods as a client's (`patterns/correct`, `patterns/undoCorrection`,
/// `patterns/setLabel`), stored apart from the groups and kept by every later refresh.
enum CorrectCommand {
    static let help = """
        kindred patterns correct — tell the grouping it was wrong; every later refresh keeps it

        USAGE:
          kindred patterns correct dismiss GROUP_ID OCCURRENCE_ID --db PATH --owner OWNER [--note TEXT] [--json]
          kindred patterns correct exclude GROUP_ID OCCURRENCE_ID --db PATH --owner OWNER [--note TEXT] [--json]
          kindred patterns correct pin GROUP_ID OCCURRENCE_ID --db PATH --owner OWNER [--note TEXT] [--json]
          kindred patterns correct split GROUP_ID OCCURRENCE_ID... --db PATH --owner OWNER [--note TEXT] [--json]
          kindred patterns correct merge GROUP_ID FROM_GROUP_ID --db PATH --owner OWNER [--note TEXT] [--json]
          kindred patterns correct undo CORRECTION_ID --db PATH --owner OWNER [--json]

        KINDS:
          dismiss    this entry does not belong in this group: it leaves it and never joins it again
                     (another group takes it only on clearly stronger evidence, or a judge's yes)
          exclude    this entry belongs to no pattern: it leaves its group and joins none until undone
          pin        this entry belongs here: it stays whatever later refreshes find
          split      these entries are another situation: they move to a new group, kept apart
          merge      these two groups are one situation: FROM_GROUP_ID's entries move into GROUP_ID
          undo       take a correction back (its id is printed when it is made, and by `show`)

        `kindred patterns show GROUP_ID` lists a group's occurrences (OCCURRENCE_ID) and its
        corrections (CORRECTION_ID). --note says why ("two different teachers"); `show` prints it.

        OPTIONS:
          --db PATH          SQLite file (must exist)
          --owner OWNER      whose patterns
          --note TEXT        why, kept with the correction (at most 1000 bytes)
          --json             print the JSON-RPC result
          --config PATH      configuration file
          --set key=value    override one configuration key
          --help             show this help

        Exit status: 0 done, 1 failure (no database at PATH, or a correction that contradicts an
        earlier one: stderr says which), 2 usage error, 4 no such group, occurrence or correction.
        """

    static let labelHelp = """
        kindred patterns label — name a group

        USAGE: kindred patterns label GROUP_ID LABEL --db PATH --owner OWNER [--description TEXT] [--json]
               kindred patterns label GROUP_ID --clear --db PATH --owner OWNER [--json]

        The label is the group's until its members change (a refresh that changes them moves its
        version on; label it again then). Findings, `show`, the map and the timeline print it in
        place of the generated one. --clear takes it away.

        OPTIONS:
          --db PATH            SQLite file (must exist)
          --owner OWNER        whose patterns
          --description TEXT   a longer description kept with the label
          --clear              remove the label
          --json               print the JSON-RPC result
          --config PATH        configuration file
          --set key=value      override one configuration key
          --help               show this help

        Exit status: 0 done, 1 failure (no database at PATH), 2 usage error, 4 no such group.
        """

    /// The kinds of correction the command line makes.
    static let kinds = ["dismiss", "exclude", "pin", "split", "merge", "undo"]

    static func options(_ argv: [String], extra: Set<String> = []) throws -> Arguments {
        try Arguments(argv, valued: ServiceFactory.commonOptions.union(["owner", "note"]).union(extra), flags: ["help", "json", "clear"])
    }

    static func run(_ argv: [String]) throws -> Int32 {
        let args = try options(argv)
        if args.has("help") { Output.out(help); return ExitCode.ok }
        guard let kind = args.positionals.first else { throw Arguments.UsageError(description: "expected a kind: \(kinds.joined(separator: ", "))") }
        guard kinds.contains(kind) else {
            throw Arguments.UsageError(description: "unknown correction kind '\(kind)' (expected \(kinds.joined(separator: ", ")))")
        }
        if args.has("clear") { throw Arguments.UsageError(description: "--clear is an option of `patterns label`") }
        let ids = try args.positionals.dropFirst().map { p in
            guard let id = Int64(p) else { throw Arguments.UsageError(description: "\(kind): '\(p)' is not an id (an integer)") }
            return id
        }
        let owner = try args.required("owner")
        func need(_ shape: String, _ ok: Bool) throws {
            guard ok else { throw Arguments.UsageError(description: "\(kind) expects \(shape)") }
        }
        let method: String
        var params: JSONObject = ["owner": .string(owner)]
        var correction: JSONObject = ["kind": .string(kind)]
        switch kind {
        case "dismiss", "pin", "exclude":
            try need("GROUP_ID OCCURRENCE_ID", ids.count == 2)
            correction["groupId"] = .int(ids[0]); correction["occurrenceId"] = .int(ids[1])
        case "split":
            try need("GROUP_ID and one or more OCCURRENCE_ID", ids.count >= 2)
            correction["groupId"] = .int(ids[0]); correction["moveOut"] = .array(ids.dropFirst().map { .int($0) })
        case "merge":
            try need("GROUP_ID FROM_GROUP_ID", ids.count == 2)
            correction["groupId"] = .int(ids[0]); correction["fromGroupId"] = .int(ids[1])
        default:
            try need("one CORRECTION_ID", ids.count == 1)
            if args.value("note") != nil { throw Arguments.UsageError(description: "--note is not taken by undo") }
        }
        if kind == "undo" {
            method = "patterns/undoCorrection"
            params["correctionId"] = .int(ids[0])
        } else {
            method = "patterns/correct"
            if let note = args.value("note") { correction["note"] = .string(note) }
            params["correction"] = .object(correction)
        }
        let service = try ServiceFactory.open(args, missing: .refuse)
        defer { service.close() }
        try Inventory.requireOwner(service, owner)
        // The members before the correction, so that what it names is told with its records.
        var before: [JSONValue] = []
        if kind != "undo", !args.has("json"),
           case .success(let g) = PatternsCommand.call(service, "patterns/group", ["owner": .string(owner), "groupId": .int(ids[0])]) {
            before = g["group"]?["members"]?.arrayValue ?? []
        }
        let result = try PatternsCommand.answer(PatternsCommand.call(service, method, params), options: [
            "owner": "--owner", "correction.note": "--note", "correctionId": "CORRECTION_ID", "correction.groupId": "GROUP_ID",
            "correction.occurrenceId": "OCCURRENCE_ID", "correction.moveOut": "OCCURRENCE_ID", "correction.fromGroupId": "FROM_GROUP_ID"])
        if args.has("json") { Output.json(result); return ExitCode.ok }
        let affected = (result["affectedGroups"]?.arrayValue ?? []).compactMap(\.intValue).map { "group \($0)" }
        let changed = affected.isEmpty ? "no group changed yet" : "changed: " + affected.joined(separator: ", ")
        if kind == "undo" {
            Output.out("correction \(ids[0]) undone (\(changed)); the next refresh places what it had kept apart")
        } else {
            let id = result["correctionId"]?.intValue ?? 0
            let what = PatternsCommand.correctionWords(.object(correction), members: before)
            Output.out("correction \(id): \(what) (\(changed))")
            Output.out("kept by every later refresh; take it back with `kindred patterns correct undo \(id)`")
        }
        return ExitCode.ok
    }

    static func label(_ argv: [String]) throws -> Int32 {
        let args = try options(argv, extra: ["description"])
        if args.has("help") { Output.out(labelHelp); return ExitCode.ok }
        if args.value("note") != nil { throw Arguments.UsageError(description: "--note is an option of `patterns correct`") }
        guard let first = args.positionals.first, let group = Int64(first) else {
            throw Arguments.UsageError(description: "expected GROUP_ID (an integer) then LABEL")
        }
        let words = args.positionals.dropFirst().joined(separator: " ")
        if args.has("clear") {
            guard words.isEmpty, args.value("description") == nil else { throw Arguments.UsageError(description: "--clear takes no LABEL or --description") }
        } else {
            guard words.contains(where: { !$0.isWhitespace }) else { throw Arguments.UsageError(description: "LABEL is required (or --clear)") }
        }
        let owner = try args.required("owner")
        let service = try ServiceFactory.open(args, missing: .refuse)
        defer { service.close() }
        try Inventory.requireOwner(service, owner)
        let options = ["owner": "--owner", "groupId": "GROUP_ID", "label": "LABEL", "description": "--description"]
        // The label is written for the group's current version, read just before.
        let current = try PatternsCommand.answer(PatternsCommand.call(service, "patterns/group", ["owner": .string(owner), "groupId": .int(group)]),
                                                 options: options)
        var params: JSONObject = ["owner": .string(owner), "groupId": .int(group), "version": current["group"]?["version"] ?? .null,
                                  "label": args.has("clear") ? .null : .string(words)]
        if let d = args.value("description") { params["description"] = .string(d) }
        let result = try PatternsCommand.answer(PatternsCommand.call(service, "patterns/setLabel", params), options: options)
        if args.has("json") { Output.json(result); return ExitCode.ok }
        Output.out(args.has("clear") ? "group \(group): label cleared"
                                     : "group \(group) (version \(result["version"]?.intValue ?? 0)) is now labelled \"\(words)\"")
        return ExitCode.ok
    }
}
