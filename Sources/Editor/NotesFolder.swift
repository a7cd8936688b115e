import Foundation

/// Which files of a workspace folder are notes: those whose name ends in one of `extensions`,
/// outside hidden folders (`.git`, `.kindred`, `.obsidian`) and not hidden themselves.
struct NotesFolder: Sendable {
    static let defaultExtensions = ["md", "markdown", "txt"]

    let root: String
    let extensions: Set<String>

    init(root: String, extensions: [String] = Self.defaultExtensions) {
        self.root = NotesFolder.standardized(root)
        self.extensions = Set(extensions.map { $0.lowercased() })
    }

    /// Every note below the root, sorted by path.
    func notes() -> [String] {
        let url = URL(fileURLWithPath: root, isDirectory: true)
        guard let walk = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.isRegularFileKey],
                                                        options: [.skipsHiddenFiles, .skipsPackageDescendants]) else { return [] }
        var out: [String] = []
        for case let file as URL in walk {
            guard (try? file.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true else { continue }
            let path = NotesFolder.standardized(file.path)
            if holds(path) { out.append(path) }
        }
        return out.sorted()
    }

    /// Whether `path` (absolute) is a note of this folder: below it, in no hidden folder, with a
    /// note's extension.
    func holds(_ path: String) -> Bool {
        guard let relative = relativePath(path) else { return false }
        let parts = relative.split(separator: "/")
        guard let name = parts.last, !parts.contains(where: { $0.hasPrefix(".") }) else { return false }
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return false }
        return extensions.contains(name[name.index(after: dot)...].lowercased())
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
