import KindredCore

/// One MCP tool as a service method: its name and description for the model, the JSON Schemas of
/// its arguments and of its structured result, and how the arguments become the method's params.
struct MCPToolSpec: Sendable {
    var name: String
    var title: String
    var description: String
    /// The service method it calls (the owner is added by the server).
    var method: String
    var input: JSONValue
    var output: JSONValue
    /// When set, the arguments go into this params key (`correction` of `patterns/correct`).
    var wrap: String?

    func params(_ arguments: JSONObject) -> JSONObject {
        guard let wrap else { return arguments }
        return [wrap: .object(arguments)]
    }

    /// The argument a params field of the method is (`correction.moveOut` → `moveOut`).
    func argument(_ field: String) -> String {
        guard let wrap, field.hasPrefix(wrap + ".") else { return field }
        return String(field.dropFirst(wrap.count + 1))
    }

    var argumentNames: [String] { input["properties"]?.objectValue.map { o in Array(o.makeIterator()).map(\.key) } ?? [] }
}

/// Every tool of `kindred mcp`. Schemas are JSON text, read once.
enum MCPToolCatalog {
    static func schema(_ text: String) -> JSONValue { (try? JSONParser.parse(text)) ?? .null }

    static let filters = #"""
        {"type": "object", "additionalProperties": false,
         "description": "Optional filters, combined with AND.",
         "properties": {
          "kinds": {"type": "array", "items": {"type": "string"}, "description": "Only records of these kinds (e.g. dream, note)."},
          "tags": {"type": "array", "items": {"type": "string"}, "description": "Only records with these tags (see tagsMode)."},
          "tagsMode": {"type": "string", "enum": ["any", "all"], "description": "Records with any (default) or all of the tags."},
          "from": {"type": "string", "description": "Only records dated on or after this ISO-8601 date (YYYY-MM-DD)."},
          "to": {"type": "string", "description": "Only records dated on or before this ISO-8601 date."},
          "metadata": {"type": "object", "description": "Only records whose metadata has these exact key/value pairs."}}}
        """#

    static let hits = #"""
        {"type": "object", "required": ["results", "mode"],
         "properties": {
          "results": {"type": "array", "items": {"type": "object", "required": ["id", "score"],
            "properties": {"id": {"type": "string"}, "revision": {"type": "integer"}, "score": {"type": "number"},
                           "kind": {"type": ["string", "null"]}, "date": {"type": ["string", "null"]},
                           "passage": {"type": "object"}, "highlight": {"type": "object"}}}},
          "mode": {"type": "string"},
          "degraded": {"type": "object"},
          "pending": {"type": "integer"}}}
        """#

    static let specs: [MCPToolSpec] = [
        MCPToolSpec(
            name: "search", title: "Search the person's records",
            description: """
                Find the person's own records (journal entries, dream accounts, notes) about a situation, person, place or \
                feeling, described in natural language, e.g. "the dream where I kept missing a train". Returns up to `limit` \
                records, best first, each with its id, date, kind, the passage that matched and its best sentence \
                (`highlight`). `score` ranks hits within one answer (higher is closer; in hybrid mode a cosine similarity \
                plus a small keyword bonus, about 0 to 1.15): it is not a probability. `pending` > 0 means that many \
                records are not searchable by meaning yet. Read-only; use get_record for a whole text.
                """,
            method: "search/query",
            input: schema(#"""
                {"type": "object", "additionalProperties": false, "required": ["text"],
                 "properties": {
                  "text": {"type": "string", "description": "What to look for, in natural language or keywords."},
                  "mode": {"type": "string", "enum": ["hybrid", "semantic", "keyword"],
                           "description": "hybrid (default): meaning and words; semantic: meaning only; keyword: words only."},
                  "limit": {"type": "integer", "minimum": 1, "maximum": 1000, "description": "How many records at most (default 10)."},
                  "filters": \#(filters)}}
                """#),
            output: schema(hits)),
        MCPToolSpec(
            name: "get_record", title: "Read one record",
            description: """
                Read one of the person's records in full by its id (ids come from search, similar and findings evidence): \
                text, kind, date, tags, metadata and permissions, and whether it is in the search index (`indexed`).
                """,
            method: "records/get",
            input: schema(#"""
                {"type": "object", "additionalProperties": false, "required": ["id"],
                 "properties": {"id": {"type": "string", "description": "The record id."}}}
                """#),
            output: schema(#"""
                {"type": "object", "required": ["record", "indexed"],
                 "properties": {
                  "record": {"type": "object", "required": ["id", "revision", "text"],
                             "properties": {"id": {"type": "string"}, "revision": {"type": "integer"}, "text": {"type": "string"},
                                            "kind": {"type": ["string", "null"]}, "date": {"type": ["string", "null"]},
                                            "tags": {"type": "array"}, "metadata": {"type": "object"}, "permissions": {"type": "object"}}},
                  "indexed": {"type": "boolean"}, "passages": {"type": "integer"}}}
                """#)),
        MCPToolSpec(
            name: "similar", title: "Records like one record",
            description: """
                Find the person's records closest in meaning to one record ("more like this"), best first; the record \
                itself is left out. Same result shape and score meaning as search. Read-only.
                """,
            method: "search/similar",
            input: schema(#"""
                {"type": "object", "additionalProperties": false, "required": ["id"],
                 "properties": {
                  "id": {"type": "string", "description": "The record to start from."},
                  "limit": {"type": "integer", "minimum": 1, "maximum": 1000, "description": "How many records at most (default 10)."},
                  "filters": \#(filters)}}
                """#),
            output: schema(hits)),
        MCPToolSpec(
            name: "findings", title: "Recurring patterns",
            description: """
                The person's recurring patterns: groups of records that share one specific situation (e.g. missing a \
                train, a strict teacher). Each finding counts distinct records: "4 of 12 eligible records in this period" \
                means 4 of the 12 records the person wrote in the period and allowed for pattern analysis, not 4 of all \
                the dreams or days they had. kind "recurring" is at least 3 records, "related" exactly 2. `evidence` gives \
                one excerpt per counted record (record id, date, exact words), to quote and to open with get_record. With \
                compareFrom/compareTo each finding also has both fractions and a trend in plain words ("recorded more \
                often recently"), or `suppressed` when a period has too few records to compare. These are counts of \
                records, not a diagnosis. Long histories give long answers: use limit (then cursor) and \
                evidenceLimit. Call refresh_patterns first when records changed. Read-only.
                """,
            method: "patterns/findings",
            input: schema(#"""
                {"type": "object", "additionalProperties": false,
                 "properties": {
                  "from": {"type": "string", "description": "Start of the period, ISO-8601 date (inclusive); all records when absent."},
                  "to": {"type": "string", "description": "End of the period, ISO-8601 date (inclusive)."},
                  "compareFrom": {"type": "string", "description": "Start of a period to compare with (usually an earlier one)."},
                  "compareTo": {"type": "string", "description": "End of the period to compare with."},
                  "category": {"type": "string", "description": "Only this category (person, place, object, action, emotion, theme, passage, ...)."},
                  "includeRelated": {"type": "boolean", "description": "Also list groups of exactly 2 records (default true)."},
                  "kinds": {"type": "array", "items": {"type": "string"}, "minItems": 1,
                            "description": "Count only records of these kinds (e.g. [\"dream\"]), in the denominators too."},
                  "limit": {"type": "integer", "minimum": 1, "maximum": 1000, "description": "Findings per answer (all when absent)."},
                  "cursor": {"type": "string", "description": "nextCursor of the previous answer, for the next findings."},
                  "evidenceLimit": {"type": "integer", "minimum": 1, "maximum": 1000,
                                    "description": "Evidence items per finding (all when absent); moreEvidence says how many were left out."}}}
                """#),
            output: schema(#"""
                {"type": "object", "required": ["eligibleRecords", "findings", "insufficientHistory", "total"],
                 "properties": {
                  "eligibleRecords": {"type": "integer", "description": "Records in the period that count (the denominator)."},
                  "total": {"type": "integer", "description": "Findings in all (this answer may hold fewer: see nextCursor)."},
                  "nextCursor": {"type": "string"},
                  "insufficientHistory": {"type": "boolean"},
                  "findings": {"type": "array", "items": {"type": "object",
                    "required": ["groupId", "kind", "category", "records", "eligible", "summary", "evidence"],
                    "properties": {"groupId": {"type": "integer"}, "kind": {"type": "string"}, "category": {"type": "string"},
                                   "records": {"type": "integer"}, "eligible": {"type": "integer"}, "summary": {"type": "string"},
                                   "evidence": {"type": "array"}, "comparison": {"type": "object"}}}}}}
                """#)),
        MCPToolSpec(
            name: "group", title: "One pattern in full",
            description: """
                One pattern group in full: every member (occurrence id, record id, date, exact excerpt, and how it joined: \
                automatic with a similarity score in thousandths, pinned or moved by a correction), the representative \
                (`medoid`) and supporting examples, `records` (distinct records) and the corrections that name the group. \
                Use its occurrence ids with the correct tool. Read-only.
                """,
            method: "patterns/group",
            input: schema(#"""
                {"type": "object", "additionalProperties": false, "required": ["groupId"],
                 "properties": {"groupId": {"type": "integer", "description": "The group id (from findings)."}}}
                """#),
            output: schema(#"""
                {"type": "object", "required": ["group", "corrections"],
                 "properties": {
                  "group": {"type": "object", "required": ["groupId", "category", "state", "version", "members", "records"],
                            "properties": {"groupId": {"type": "integer"}, "category": {"type": "string"}, "state": {"type": "string"},
                                           "version": {"type": "integer"}, "records": {"type": "integer"}, "members": {"type": "array"}}},
                  "corrections": {"type": "array"}}}
                """#)),
        MCPToolSpec(
            name: "themes", title: "Broader themes above the patterns",
            description: """
                The person's broader themes: each is a set of specific pattern groups of one category that share a broader \
                situation (for example missing trains and lifts that never arrive: "difficulty reaching a destination"), \
                with a label, its group ids (open one with the group tool), `records` (distinct records its groups hold) \
                over `eligible` records, a summary sentence and one representative excerpt per example group. Say that \
                a theme is a broad likeness the records share, not a specific recurring situation. Read-only.
                """,
            method: "patterns/themes",
            input: schema(#"""
                {"type": "object", "additionalProperties": false,
                 "properties": {
                  "category": {"type": "string", "description": "Only themes of this occurrence category."},
                  "kinds": {"type": "array", "items": {"type": "string"}, "description": "Only records of these kinds count (e.g. dream)."},
                  "from": {"type": "string", "description": "Count records dated on or after this ISO-8601 date."},
                  "to": {"type": "string", "description": "Count records dated on or before this ISO-8601 date."},
                  "limit": {"type": "integer", "minimum": 1, "maximum": 1000, "description": "Themes per page."},
                  "cursor": {"type": "string", "description": "nextCursor of the previous page."}}}
                """#),
            output: schema(#"""
                {"type": "object", "required": ["themes", "eligibleRecords", "total"],
                 "properties": {
                  "eligibleRecords": {"type": "integer"}, "total": {"type": "integer"}, "nextCursor": {"type": "string"},
                  "themes": {"type": "array", "items": {"type": "object",
                    "required": ["themeId", "label", "groups", "records", "eligible", "summary", "evidence"],
                    "properties": {"themeId": {"type": "integer"}, "label": {"type": "string"}, "category": {"type": "string"},
                                   "groups": {"type": "array", "items": {"type": "integer"}}, "records": {"type": "integer"},
                                   "eligible": {"type": "integer"}, "summary": {"type": "string"}, "evidence": {"type": "array"}}}}}}
                """#)),
        MCPToolSpec(
            name: "refresh_patterns", title: "Refresh the patterns",
            description: """
                Bring the patterns up to date after records were added, edited, deleted or excluded, or after a \
                correction. Only what changed is recomputed, and a second refresh with nothing new changes nothing. \
                Returns counts of this run: groups created, changed and gone dormant, occurrences assigned and still pending.
                """,
            method: "patterns/refresh",
            input: schema(#"{"type": "object", "additionalProperties": false, "properties": {}}"#),
            output: schema(#"""
                {"type": "object", "required": ["groupsCreated", "groupsChanged", "groupsDormant", "assigned", "pending"],
                 "properties": {"groupsCreated": {"type": "integer"}, "groupsChanged": {"type": "integer"},
                                "groupsDormant": {"type": "integer"}, "assigned": {"type": "integer"}, "pending": {"type": "integer"},
                                "durationMs": {"type": "integer"}}}
                """#)),
        MCPToolSpec(
            name: "correct", title: "Correct a pattern or a theme",
            description: """
                Record the person's own decision about a pattern group or a theme; use it only when they asked for the \
                change. Groups: kind "dismiss": occurrenceId does not belong in groupId; "split": the occurrences in \
                moveOut leave groupId and form a group of their own; "merge": fromGroupId is merged into groupId; "pin": \
                occurrenceId stays in groupId; "exclude": occurrenceId (now in groupId) belongs to no pattern and joins no \
                group until the correction is undone. Themes (ids from the themes tool): "themeRemove": groupId leaves themeId; \
                "themeSplit": the groups in moveOut leave themeId and form a theme of their own; "themeMerge": \
                fromThemeId is merged into themeId; "themePin": groupId stays in themeId; "themeDismiss": themeId is not \
                a theme. `note` keeps the person's reason in a few words. Later refreshes never undo a correction. A \
                correction that contradicts an earlier one is refused with an error naming both. Returns the correction \
                id and the groups (or themes) it changed.
                """,
            method: "patterns/correct",
            input: schema(#"""
                {"type": "object", "additionalProperties": false, "required": ["kind"],
                 "properties": {
                  "kind": {"type": "string", "enum": ["dismiss", "split", "merge", "pin", "exclude",
                                                      "themeRemove", "themeSplit", "themeMerge", "themePin", "themeDismiss"]},
                  "groupId": {"type": "integer", "description": "Group kinds: the group corrected (for merge, the one kept). themeRemove and themePin: the group."},
                  "occurrenceId": {"type": "integer", "description": "dismiss, pin and exclude: the occurrence (from the group tool)."},
                  "moveOut": {"type": "array", "items": {"type": "integer"}, "description": "split: the occurrences that leave; themeSplit: the groups that leave."},
                  "fromGroupId": {"type": "integer", "description": "merge: the group merged into groupId."},
                  "themeId": {"type": "integer", "description": "Theme kinds: the theme corrected (for themeMerge, the one kept)."},
                  "fromThemeId": {"type": "integer", "description": "themeMerge: the theme merged into themeId."},
                  "note": {"type": "string", "description": "The person's reason, at most 1000 bytes."}}}
                """#),
            output: schema(#"""
                {"type": "object", "required": ["correctionId", "affectedGroups"],
                 "properties": {"correctionId": {"type": "integer"}, "affectedGroups": {"type": "array", "items": {"type": "integer"}},
                                "affectedThemes": {"type": "array", "items": {"type": "integer"}}}}
                """#),
            wrap: "correction"),
        MCPToolSpec(
            name: "index_status", title: "Index status",
            description: """
                How many of the person's records are stored, searchable (permission on), embedded for search by meaning, \
                and still waiting for the embedder (`pendingEmbeddings`), with the embedding model in use. Use it to tell \
                whether search by meaning covers every record yet. Read-only.
                """,
            method: "index/status",
            input: schema(#"{"type": "object", "additionalProperties": false, "properties": {}}"#),
            output: schema(#"""
                {"type": "object", "required": ["records", "searchable", "vectors", "pendingEmbeddings", "indexVersion"],
                 "properties": {"records": {"type": "integer"}, "searchable": {"type": "integer"}, "vectors": {"type": "integer"},
                                "pendingEmbeddings": {"type": "integer"}, "indexVersion": {"type": "string"}, "model": {"type": "string"}}}
                """#)),
    ]
}
