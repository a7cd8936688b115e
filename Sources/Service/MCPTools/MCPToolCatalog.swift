import KindredProtocol

/// Every tool of `kindred mcp`: what the model reads of each tool, and the request type its
/// schemas come from.
enum MCPToolCatalog {
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
            request: SearchQuery.self, omit: ["vector"], require: ["text"]),
        MCPToolSpec(
            name: "get_record", title: "Read one record",
            description: """
                Read one of the person's records in full by its id (ids come from search, similar and findings evidence): \
                text, kind, date, tags, metadata and permissions, and whether it is in the search index (`indexed`).
                """,
            request: RecordsGet.self, omit: ["passages"]),
        MCPToolSpec(
            name: "similar", title: "Records like one record",
            description: """
                Find the person's records closest in meaning to one record ("more like this"), best first; the record \
                itself is left out. Same result shape and score meaning as search. Read-only.
                """,
            request: SearchSimilar.self),
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
            request: PatternsFindings.self),
        MCPToolSpec(
            name: "group", title: "One pattern in full",
            description: """
                One pattern group in full: every member (occurrence id, record id, date, exact excerpt, and how it joined: \
                automatic with a similarity score in thousandths, pinned or moved by a correction), the representative \
                (`medoid`) and supporting examples, `records` (distinct records) and the corrections that name the group. \
                Use its occurrence ids with the correct tool. Read-only.
                """,
            request: PatternsGroup.self),
        MCPToolSpec(
            name: "themes", title: "Broader themes above the patterns",
            description: """
                The person's broader themes: each is a set of specific pattern groups of one category that share a broader \
                situation (for example missing trains and lifts that never arrive: "difficulty reaching a destination"), \
                with a label, its group ids (open one with the group tool), `records` (distinct records its groups hold) \
                over `eligible` records, a summary sentence and one representative excerpt per example group. Say that \
                a theme is a broad likeness the records share, not a specific recurring situation. Read-only.
                """,
            request: PatternsThemes.self),
        MCPToolSpec(
            name: "refresh_patterns", title: "Refresh the patterns",
            description: """
                Bring the patterns up to date after records were added, edited, deleted or excluded, or after a \
                correction. Only what changed is recomputed, and a second refresh with nothing new changes nothing. \
                Returns counts of this run: groups created, changed and gone dormant, occurrences assigned and still pending.
                """,
            request: PatternsRefresh.self),
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
            request: PatternsCorrect.self, wrap: "correction"),
        MCPToolSpec(
            name: "index_status", title: "Index status",
            description: """
                How many of the person's records are stored, searchable (permission on), embedded for search by meaning, \
                and still waiting for the embedder (`pendingEmbeddings`), with the embedding model in use. Use it to tell \
                whether search by meaning covers every record yet. Read-only.
                """,
            request: IndexStatus.self),
    ]
}
