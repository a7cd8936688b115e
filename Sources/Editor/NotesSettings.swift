import JSONRPC
import KindredCore

/// What the editor may set in `initializationOptions`: which files are notes and how soon an
/// unsaved edit is indexed. Unknown keys are refused, naming them.
struct NotesSettings: Sendable, Equatable {
    var extensions = NotesFolder.defaultExtensions
    /// Globs relative to each workspace folder; nil: the files with one of `extensions`.
    var include: [String]?
    var exclude: [String] = []
    var gitignore = true
    /// Quiet time after the last `didChange` before the buffer's text is indexed.
    var editDelayMs = 300
    var maxFileBytes: Int?

    static let keys = ["extensions", "include", "exclude", "gitignore", "editDelayMs", "maxFileBytes"]

    init() {}

    init(_ options: JSONValue?) throws(ResponseError) {
        guard let options, !options.isNull else { return }
        guard let o = options.objectValue else {
            throw ResponseError.invalidParams(field: "initializationOptions", reason: "must be an object (keys: \(Self.keys.joined(separator: ", ")))")
        }
        for key in o.keys where !Self.keys.contains(key) {
            throw ResponseError.invalidParams(field: "initializationOptions.\(key)", reason: "is not a setting of kindred lsp (settings: \(Self.keys.joined(separator: ", ")))")
        }
        if let v = o["extensions"], !v.isNull {
            extensions = try Self.strings(v, field: "extensions", example: "\"md\"").map { s throws(ResponseError) in
                guard !s.contains("/") else { throw ResponseError.invalidParams(field: "initializationOptions.extensions", reason: "must be file extensions such as \"md\", got '\(s)'") }
                return s.hasPrefix(".") ? String(s.dropFirst()) : s
            }
        }
        if let v = o["include"], !v.isNull { include = try Self.globs(v, field: "include") }
        if let v = o["exclude"], !v.isNull {
            exclude = v.arrayValue?.isEmpty == true ? [] : try Self.globs(v, field: "exclude")
        }
        if let v = o["gitignore"], !v.isNull {
            guard let b = v.boolValue else { throw ResponseError.invalidParams(field: "initializationOptions.gitignore", reason: "must be true or false") }
            gitignore = b
        }
        if let v = o["editDelayMs"], !v.isNull {
            guard let n = v.intValue, (0...60_000).contains(n) else {
                throw ResponseError.invalidParams(field: "initializationOptions.editDelayMs", reason: "must be an integer of milliseconds, 0 … 60000")
            }
            editDelayMs = Int(n)
        }
        if let v = o["maxFileBytes"], !v.isNull {
            guard let n = v.intValue, n >= 1 else {
                throw ResponseError.invalidParams(field: "initializationOptions.maxFileBytes", reason: "must be a positive integer of bytes")
            }
            maxFileBytes = Int(n)
        }
    }

    private static func strings(_ v: JSONValue, field: String, example: String) throws(ResponseError) -> [String] {
        guard let list = v.arrayValue, !list.isEmpty else {
            throw ResponseError.invalidParams(field: "initializationOptions.\(field)", reason: "must be a non-empty array of strings (\(example))")
        }
        var out: [String] = []
        for (i, item) in list.enumerated() {
            guard let s = item.stringValue, !s.isEmpty else {
                throw ResponseError.invalidParams(field: "initializationOptions.\(field)[\(i)]", reason: "must be a non-empty string (\(example))")
            }
            out.append(s)
        }
        return out
    }

    /// Globs relative to the folder: no leading `/`, no `..`.
    private static func globs(_ v: JSONValue, field: String) throws(ResponseError) -> [String] {
        let list = try strings(v, field: field, example: "\"journal/**/*.md\"")
        for (i, g) in list.enumerated() where g.hasPrefix("/") || g.split(separator: "/").contains("..") {
            throw ResponseError.invalidParams(field: "initializationOptions.\(field)[\(i)]", reason: "must be a glob relative to the workspace folder, got '\(g)'")
        }
        return list
    }

    func folder(_ root: String) -> NotesFolder {
        NotesFolder(root: root, extensions: extensions, include: include, exclude: exclude, gitignore: gitignore)
    }
}
