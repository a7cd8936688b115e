public import KindredCore
import Foundation

/// Builds the effective configuration: defaults < file < KINDRED_* environment < flags.
public enum ConfigLoader {
    public static func load(file: String?, environment: [String: String], overrides: [(String, String)] = []) throws -> Config {
        var config = Config()
        let path = file ?? environment["KINDRED_CONFIG"]
        if let path, !path.isEmpty {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ConfigError(key: "", reason: "cannot read config file \(path)")
            }
            do {
                try config.apply(json: try JSONParser.parse([UInt8](data)))
            } catch let e as JSONParseError {
                throw ConfigError(key: "", reason: "config file \(path) is not valid JSON: \(e)")
            }
        }
        try config.apply(environment: environment)
        for (k, v) in overrides { try config.set(k, text: v) }
        return config
    }
}
