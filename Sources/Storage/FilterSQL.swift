import KindredCore

/// Turns search filters into a SQL predicate over `records r` with bound arguments (never interpolated values).
enum FilterSQL {
    static func predicate(owner: String, filters: SearchFilters) -> (sql: String, args: [SQLValue]) {
        var parts = ["r.owner = ?", "r.perm_search = 1"]
        var args: [SQLValue] = [.text(owner)]
        if let kinds = filters.kinds {
            parts.append("r.kind IN (SELECT value FROM json_each(?))")
            args.append(.text(JSONWriter.string(.from(kinds))))
        }
        if let tags = filters.tags, !tags.isEmpty {
            let list = JSONWriter.string(.from(Array(Set(tags)).sorted()))
            switch filters.tagsMode {
            case .any:
                parts.append("EXISTS (SELECT 1 FROM json_each(r.tags) t WHERE t.value IN (SELECT value FROM json_each(?)))")
                args.append(.text(list))
            case .all:
                parts.append("(SELECT count(DISTINCT t.value) FROM json_each(r.tags) t WHERE t.value IN (SELECT value FROM json_each(?))) = ?")
                args.append(.text(list))
                args.append(.from(Set(tags).count))
            }
        }
        if let from = filters.from {
            parts.append("r.date IS NOT NULL AND r.date >= ?")
            args.append(.text(from))
        }
        if let to = filters.to {
            // Inclusive: a record dated 2024-05-01T09:00 is within `to: "2024-05-01"`.
            parts.append("r.date IS NOT NULL AND substr(r.date, 1, length(?)) <= ?")
            args.append(.text(to))
            args.append(.text(to))
        }
        if let md = filters.metadata {
            for (key, value) in md {
                let path = "$." + JSONWriter.string(.string(key))
                switch value {
                case .null:
                    parts.append("json_type(r.metadata, ?) = 'null'")
                    args.append(.text(path))
                case .bool(let b):
                    parts.append("json_type(r.metadata, ?) = ?")
                    args.append(.text(path))
                    args.append(.text(b ? "true" : "false"))
                case .int(let i):
                    parts.append("json_extract(r.metadata, ?) = ?")
                    args.append(.text(path))
                    args.append(.int(i))
                case .double(let d):
                    parts.append("json_extract(r.metadata, ?) = ?")
                    args.append(.text(path))
                    args.append(.double(d))
                case .string(let s):
                    parts.append("json_type(r.metadata, ?) = 'text' AND json_extract(r.metadata, ?) = ?")
                    args.append(.text(path))
                    args.append(.text(path))
                    args.append(.text(s))
                case .array, .object:
                    parts.append("json_extract(r.metadata, ?) = json(?)")
                    args.append(.text(path))
                    args.append(.text(JSONWriter.string(value)))
                }
            }
        }
        return (parts.joined(separator: " AND "), args)
    }
}
