import Foundation

/// Where the embedding models live on disk.
public enum ModelLocation {
    /// Folder name of the bundled default model.
    public static let defaultModelName = "all-MiniLM-L6-v2"
    /// Folder name of the multilingual model, installed on request by `scripts/fetch-e5-model.sh`.
    public static let multilingualModelName = "multilingual-e5-small"

    /// The folder of the model `embedder.model` names: multilingual-e5-small (also as
    /// `intfloat/multilingual-e5-small`) lives beside the default model, under its own name; any
    /// other name reads the default folder.
    public static func directory(forModel model: String) -> String {
        directory(forModel: model, environment: ProcessInfo.processInfo.environment)
    }

    static func directory(forModel model: String, environment env: [String: String]) -> String {
        let name = model.split(separator: "/").last.map { $0.lowercased() } ?? ""
        guard name == multilingualModelName else { return defaultDirectory(environment: env) }
        return dataHome(env) + "/kindred/models/" + multilingualModelName
    }

    /// `$KINDRED_MODEL_DIR`, else `$XDG_DATA_HOME/kindred/models/all-MiniLM-L6-v2`,
    /// else `~/.local/share/kindred/models/all-MiniLM-L6-v2`. Empty variables count as unset.
    public static func defaultDirectory() -> String {
        defaultDirectory(environment: ProcessInfo.processInfo.environment)
    }

    static func defaultDirectory(environment env: [String: String]) -> String {
        if let dir = env["KINDRED_MODEL_DIR"], !dir.isEmpty { return dir }
        return dataHome(env) + "/kindred/models/" + defaultModelName
    }

    private static func dataHome(_ env: [String: String]) -> String {
        if let xdg = env["XDG_DATA_HOME"], !xdg.isEmpty { return xdg }
        let home = env["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/share"
    }
}
