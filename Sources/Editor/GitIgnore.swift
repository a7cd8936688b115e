import Foundation

/// The rules of one `.gitignore` file, read as git reads them: blank lines and `#` comments are
/// skipped; `!` re-includes; a trailing `/` matches folders only; a pattern with a `/` before its
/// end is anchored to the file's folder (a leading `/` too), one without matches a name at any
/// depth below it; `**` spans folders. The last matching rule decides.
struct GitIgnore: Sendable {
    struct Rule: Sendable {
        let glob: Glob
        let negated: Bool
        let foldersOnly: Bool
        let anchored: Bool
    }

    let rules: [Rule]

    init(text: String) {
        var rules: [Rule] = []
        for raw in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            var line = Substring(raw)
            // Trailing spaces are dropped unless escaped.
            while line.last == " " && !line.hasSuffix("\\ ") { line = line.dropLast() }
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            var negated = false
            if line.hasPrefix("!") { negated = true; line = line.dropFirst() } else if line.hasPrefix("\\!") || line.hasPrefix("\\#") { line = line.dropFirst() }
            var foldersOnly = false
            if line.hasSuffix("/") { foldersOnly = true; line = line.dropLast() }
            guard !line.isEmpty else { continue }
            let anchored = line.contains("/")
            if line.hasPrefix("/") { line = line.dropFirst() }
            guard !line.isEmpty else { continue }
            rules.append(Rule(glob: Glob(String(line)), negated: negated, foldersOnly: foldersOnly, anchored: anchored))
        }
        self.rules = rules
    }

    /// The rules of `<folder>/.gitignore`, nil when there is none.
    static func load(folder: String) -> GitIgnore? {
        guard let data = FileManager.default.contents(atPath: folder + "/.gitignore"), let text = String(data: data, encoding: .utf8) else { return nil }
        let rules = GitIgnore(text: text)
        return rules.rules.isEmpty ? nil : rules
    }

    /// What the rules say of `path` (relative to the `.gitignore`'s folder): true ignored, false
    /// re-included, nil no rule matches.
    func verdict(_ path: String, isFolder: Bool) -> Bool? {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        for rule in rules.reversed() where !rule.foldersOnly || isFolder {
            if rule.glob.matches(rule.anchored ? path : name) { return !rule.negated }
        }
        return nil
    }
}

/// The `.gitignore` files in force in one folder of a walk: its own and its parents'.
struct IgnoreStack: Sendable {
    /// Each file's rules with its folder (relative to the root, "" for the root).
    var levels: [(folder: String, rules: GitIgnore)] = []

    /// Whether `path` (relative to the root) is ignored: the deepest `.gitignore` with a matching
    /// rule decides.
    func ignores(_ path: String, isFolder: Bool) -> Bool {
        for level in levels.reversed() {
            let relative = level.folder.isEmpty ? path : String(path.dropFirst(level.folder.count + 1))
            if let v = level.rules.verdict(relative, isFolder: isFolder) { return v }
        }
        return false
    }

    /// The stack one folder down (`folder` relative to the root), with its `.gitignore` if any.
    func entering(_ folder: String, absolute: String) -> IgnoreStack {
        guard let rules = GitIgnore.load(folder: absolute) else { return self }
        var next = self
        next.levels.append((folder, rules))
        return next
    }
}
