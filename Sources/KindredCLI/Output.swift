import Foundation
public import KindredCore

/// Writing to stdout/stderr for the CLI (never used by `serve`, whose stdout is the protocol).
public enum Output {
    public static func out(_ s: String) {
        FileHandle.standardOutput.write(Data((s + "\n").utf8))
    }

    public static func err(_ s: String) {
        FileHandle.standardError.write(Data((s + "\n").utf8))
    }

    public static func json(_ v: JSONValue) { out(JSONWriter.string(v)) }
}

/// A progress bar on stderr, redrawn at most ten times a second; silent when stderr is not a terminal.
public final class ProgressBar {
    public let title: String
    public let total: Int
    /// Shows `57%` rather than `done/total` (when the count is a percentage).
    public let percent: Bool
    private var last = Date.distantPast
    private let enabled: Bool

    public init(title: String, total: Int, percent: Bool = false) {
        self.title = title
        self.total = total
        self.percent = percent
        enabled = isatty(2) != 0 || ProcessInfo.processInfo.environment["KINDRED_PROGRESS"] == "1"
    }

    public func update(_ done: Int, force: Bool = false) {
        guard enabled else { return }
        let now = Date()
        guard force || now.timeIntervalSince(last) > 0.1 else { return }
        last = now
        let width = 30
        let frac = total > 0 ? min(1, Double(done) / Double(total)) : 1
        let filled = Int(frac * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let count = percent ? "\(Int(frac * 100))%" : "\(min(done, total))/\(total)"
        FileHandle.standardError.write(Data("\r\(title) [\(bar)] \(count)".utf8))
    }

    public func finish() {
        guard enabled else { return }
        update(total, force: true)
        FileHandle.standardError.write(Data("\n".utf8))
    }
}
