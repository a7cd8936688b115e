import JSONRPC
import KindredCore
import Synchronization

/// Progress the server starts on its own (LSP "server-initiated progress"): a token created with
/// `window/workDoneProgress/create`, then `$/progress` begin, reports and end. Nothing is sent to
/// a client that did not declare `window.workDoneProgress`, or that refused the token.
final class WorkDoneProgress: Sendable {
    private let server: Server
    private let token: JSONValue?
    private let lastPercentage = Mutex<Int>(-1)
    private static let counter = Atomic<Int>(0)

    /// Asks the client for a token (waiting for its answer, at most 10 s). Call it off the reading thread.
    init(server: Server, isCancelled: () -> Bool) {
        self.server = server
        guard server.clientCapabilities?["window"]?["workDoneProgress"]?.boolValue == true else {
            token = nil
            return
        }
        let n = WorkDoneProgress.counter.add(1, ordering: .relaxed).newValue
        let t: JSONValue = .string("kindred-progress-\(n)")
        if case .result = server.request("window/workDoneProgress/create", ["token": t], timeout: 10, isCancelled: isCancelled) {
            token = t
        } else {
            token = nil
        }
    }

    var tokenValue: JSONValue? { token }

    func begin(_ title: String, message: String? = nil, cancellable: Bool = false) {
        var value: JSONObject = ["kind": "begin", "title": .string(title), "cancellable": .bool(cancellable), "percentage": 0]
        if let message { value["message"] = .string(message) }
        send(value)
        lastPercentage.withLock { $0 = 0 }
    }

    /// A report; the percentage never goes back (LSP asks it to rise), and an unchanged one with the
    /// same message is not sent again.
    func report(_ message: String, percentage: Int) {
        let p = max(0, min(100, percentage))
        let rises = lastPercentage.withLock { last -> Int in
            last = max(last, p)
            return last
        }
        send(["kind": "report", "message": .string(message), "percentage": .from(rises)])
    }

    func end(_ message: String) { send(["kind": "end", "message": .string(message)]) }

    private func send(_ value: JSONObject) {
        guard let token else { return }
        server.notify("$/progress", ["token": token, "value": .object(value)])
    }
}
