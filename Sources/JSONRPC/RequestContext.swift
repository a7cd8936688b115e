public import KindredCore
import Synchronization

/// Set when a request is cancelled; long loops poll it.
public final class CancellationToken: Sendable {
    private let flag = Atomic<Bool>(false)
    public init() {}
    public var isCancelled: Bool { flag.load(ordering: .relaxed) }
    public func cancel() { flag.store(true, ordering: .relaxed) }
    /// Throws `ResponseError.cancelled` once cancelled.
    public func check() throws(ResponseError) { if isCancelled { throw ResponseError.cancelled } }
}

/// `window/logMessage` types (LSP `MessageType`).
public enum LogType: Int, Sendable { case error = 1, warning = 2, info = 3, log = 4 }

/// What a handler gets besides its params: cancellation, progress and logging.
public struct RequestContext: Sendable {
    public let id: JSONValue
    public let method: String
    public let token: CancellationToken
    /// The client's `workDoneToken`, when it asked for progress.
    public let workDoneToken: JSONValue?
    let notify: @Sendable (String, JSONValue) -> Void

    public init(id: JSONValue, method: String, token: CancellationToken = CancellationToken(), workDoneToken: JSONValue? = nil,
                notify: @escaping @Sendable (String, JSONValue) -> Void = { _, _ in }) {
        self.id = id
        self.method = method
        self.token = token
        self.workDoneToken = workDoneToken
        self.notify = notify
    }

    public var isCancelled: Bool { token.isCancelled }
    public func checkCancelled() throws(ResponseError) { try token.check() }

    public func log(_ type: LogType, _ message: String) {
        notify("window/logMessage", ["type": .int(Int64(type.rawValue)), "message": .string(message)])
    }

    /// Sends `$/progress` when the request carried a `workDoneToken`; otherwise does nothing.
    public func progress(_ kind: String, title: String? = nil, message: String? = nil, percentage: Int? = nil) {
        guard let workDoneToken else { return }
        var value: JSONObject = ["kind": .string(kind)]
        if let title { value["title"] = .string(title) }
        if let message { value["message"] = .string(message) }
        if let percentage { value["percentage"] = .int(Int64(max(0, min(100, percentage)))) }
        notify("$/progress", ["token": workDoneToken, "value": .object(value)])
    }
}
