import Foundation

/// Where the default embedding model lives on disk.
public enum ModelLocation {
    /// Folder name of the bundled default model.
    public static let defaultModelName = "all-MiniLM-L6-v2"

    /// `$KINDRED_MODEL_DIR`, else `$XDG_DATA_HOME/kindred/models/all-MiniLM-L6-v2`,
    /// else `~/.local/share/kindred/models/all-MiniLM-L6-v2`. Empty variables count as unset.
    public static func defaultDirectory() -> String {
        defaultDirectory(environment: ProcessInfo.processInfo.environment)
    }

    static func defaultDirectory(environment env: [String: String]) -> String {
        if let dir = env["KINDRED_MODEL_DIR"], !dir.isEmpty { return dir }
        let dataHome: String
        if let xdg = env["XDG_DATA_HOME"], !xdg.isEmpty {
            dataHome = xdg
        } else {
            let home = env["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            dataHome = home + "/.local/share"
        }
        return dataHome + "/kindred/models/" + defaultModelName
    }
}
