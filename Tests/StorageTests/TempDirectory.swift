import Foundation

/// A fresh directory under the system temp folder, removed when the value is released.
final class TempDirectory {
    let url: URL
    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("kindred-test-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}
