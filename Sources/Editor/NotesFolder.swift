import Foundation

/// Which files of a workspace folder are notes: those an `include` glob matches and no `exclude`
/// glob (nor one of their folders), outside hidden folders (`.git`, `.kindred`, `.obsidian`), not
/// hidden themselves, and not ignored by a `.gitignore` of the folder (unless `gitignore` is off).
/// Globs are relative to the folder's root.
struct NotesFolder: Sendable {
    static let defaultExtensions = ["md", "markdown", "txt"]

    let root: String
    let extensions: [String]
    /// nil: a file name that ends in one of `extensions` (in any case).
    let include: [Glob]?
    let exclude: [Glob]
    let gitignore: Bool

    init(root: String, extensions: [String] = Self.defaultExtensions, include: [String]? = nil, exclude: [String] = [], gitignore: Bool = true) {
        self.root = NotesFolder.standardized(root)
        let extensions = extensions.map { $0.lowercased() }
        self.extensions = extensions
        self.include = include.map { $0.map { Glob($0, braces: true) } }
        self.exclude = exclude.map { Glob($0, braces: true) }
        self.gitignore = gitignore
    }

    /// The watchers' glob: `**/*.{md,txt}` for the extensions, or the include globs.
    var watchedGlobs: [String] {
        if let include { return include.map(\.pattern) }
        let all = extensions.sorted()
        return [all.count == 1 ? "**/*.\(all[0])" : "**/*.{\(all.joined(separator: ","))}"]
    }

    /// Every note below the root, sorted by path.
    func notes() -> [String] {
        var out: [String] = []
        walk(absolute: root, relative: "", ignores: gitignore ? IgnoreStack().entering("", absolute: root) : IgnoreStack(), into: &out)
        return out.sorted()
    }

    private func walk(absolute: String, relative: String, ignores: IgnoreStack, into out: inout [String]) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: absolute) else { return }
        for name in names.sorted() where !name.hasPrefix(".") {
            let path = absolute + "/" + name, rel = relative.isEmpty ? name : relative + "/" + name
            // Symbolic links are not followed (a link to a folder above would never end).
            let type = (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType
            if type == .typeDirectory {
                guard !ignores.ignores(rel, isFolder: true), !excluded(rel) else { continue }
                walk(absolute: path, relative: rel, ignores: gitignore ? ignores.entering(rel, absolute: path) : ignores, into: &out)
            } else if type == .typeRegular, included(rel), !excluded(rel), !ignores.ignores(rel, isFolder: false) {
                out.append(path)
            }
        }
    }

    func included(_ relative: String) -> Bool {
        if let include { return include.contains { $0.matches(relative) } }
        let name = relative.split(separator: "/").last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return false }
        return extensions.contains(name[name.index(after: dot)...].lowercased())
    }

    /// Whether an exclude glob matches `relative` or one of its folders.
    func excluded(_ relative: String) -> Bool {
        guard !exclude.isEmpty else { return false }
        var prefix = ""
        for name in relative.split(separator: "/") {
            prefix = prefix.isEmpty ? String(name) : prefix + "/" + name
            if exclude.contains(where: { $0.matches(prefix) }) { return true }
        }
        return false
    }

    /// Whether `path` (absolute) is a note of this folder: below it, in no hidden or ignored
    /// folder, included and not excluded. Reads the `.gitignore` files on its way.
    func holds(_ path: String) -> Bool {
        guard let relative = relativePath(path) else { return false }
        let parts = relative.split(separator: "/").map(String.init)
        guard !parts.contains(where: { $0.hasPrefix(".") }), included(relative), !excluded(relative) else { return false }
        guard gitignore else { return true }
        var ignores = IgnoreStack().entering("", absolute: root)
        var folder = ""
        for name in parts.dropLast() {
            folder = folder.isEmpty ? name : folder + "/" + name
            if ignores.ignores(folder, isFolder: true) { return false }
            ignores = ignores.entering(folder, absolute: root + "/" + folder)
        }
        return !ignores.ignores(relative, isFolder: false)
    }

    /// `path` relative to the root, when it is below it.
    func relativePath(_ path: String) -> String? {
        let prefix = root.hasSuffix("/") ? root : root + "/"
        guard path.hasPrefix(prefix), path.count > prefix.count else { return nil }
        return String(path.dropFirst(prefix.count))
    }

    /// An absolute path without `.`, `..`, repeated or trailing slashes (symbolic links are kept).
    static func standardized(_ path: String) -> String {
        var parts: [Substring] = []
        for p in path.split(separator: "/") {
            switch p {
            case ".": continue
            case "..": _ = parts.popLast()
            default: parts.append(p)
            }
        }
        return "/" + parts.joined(separator: "/")
    }
}
