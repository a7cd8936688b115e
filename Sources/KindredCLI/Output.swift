import Foundation
public import KindredCore

/// Writing to stdout/stderr for the CLI (never used by `serve`, whose stdout is the protocol).
///
/// A reader that goes away (`kindred cluster status | head`) ends the program the way the shell
/// expects of a command in a pipe: quietly, killed by SIGPIPE, whatever a library has done with the
/// signal's disposition (nats.c ignores it, and Foundation's `FileHandle.write` then traps on the
/// EPIPE it gets).
public enum Output {
    public static func out(_ s: String) { write(1, s + "\n") }

    public static func err(_ s: String) { write(2, s + "\n") }

    public static func json(_ v: JSONValue) { out(JSONWriter.string(v)) }

    /// `s` to standard output as it is (no newline added).
    public static func raw(_ s: String) { write(1, s) }

    /// Writes all of `s` to `fd`; a closed pipe ends the program quietly (see above).
    static func write(_ fd: Int32, _ s: String) {
        var bytes = Array(s.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            var done = 0
            while done < buffer.count {
                let n = Foundation.write(fd, buffer.baseAddress! + done, buffer.count - done)
                if n > 0 { done += n; continue }
                if n < 0 && errno == EINTR { continue }
                if n < 0 && errno == EPIPE { brokenPipe() }
                return
            }
        }
    }

    /// Ends the program as the default action of SIGPIPE would: no message, exit status 141 in a shell.
    static func brokenPipe() -> Never {
        signal(SIGPIPE, SIG_DFL)
        raise(SIGPIPE)
        exit(128 + SIGPIPE)
    }
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
        Output.write(2, "\r\(title) [\(bar)] \(count)")
    }

    public func finish() {
        guard enabled else { return }
        update(total, force: true)
        Output.write(2, "\n")
    }
}
