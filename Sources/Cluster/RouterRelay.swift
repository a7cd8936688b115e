public import JSONRPC
public import KindredCore

extension Router {
    /// Answers one request from the node leading its owner's shard, as `forward` does, with the
    /// node's work relayed to this router's client as in one process: its `$/progress` and
    /// `window/logMessage` notifications, its requests to the client (`patterns/judge`), and the
    /// client's `$/cancelRequest` back to the node.
    public func forward(_ method: String, _ params: JSONValue?, context ctx: RequestContext) throws(ResponseError) -> JSONValue {
        let shard = try shard(of: method, params)
        try ctx.checkCancelled()
        var rng = SystemRandomNumberGenerator()
        let id = String(rng.next(), radix: 16) + String(rng.next(), radix: 16)
        let subject = Relay.subject(id)
        let connection = connection
        let subscription = try? connection.subscribe(subject) { data, reply in
            switch RelayMessage(data) {
            case let .notify(method, params)?:
                Self.relay(method, params, to: ctx)
            case let .request(method, params, timeoutMs)?:
                let answer = ctx.client?.request(method, params, timeout: Double(timeoutMs) / 1000, isCancelled: { ctx.isCancelled }) ?? .closed
                if let reply { try? connection.publish(reply, RelayMessage.encode(answer)) }
            case nil:
                break
            }
        }
        // What the node sent before its answer is delivered before the answer is.
        defer { subscription?.drain(timeoutMs: 2000) }
        let relay = Relay(id: id, subject: subscription == nil ? nil : subject, workDoneToken: ctx.workDoneToken,
                          capabilities: ctx.client?.clientCapabilities)
        return try ctx.token.whileRegistered(onCancel: { try? connection.publish(Relay.cancelSubject, Array(id.utf8)) }) { () throws(ResponseError) -> JSONValue in
            try send(shard, Wire.request(method, params, relay: relay), isCancelled: { ctx.isCancelled })
        }
    }

    /// Passes a node's notification to the client as the local server would send it.
    static func relay(_ method: String, _ params: JSONValue, to ctx: RequestContext) {
        switch method {
        case "$/progress":
            guard let value = params["value"], let kind = value["kind"]?.stringValue else { return }
            ctx.progress(kind, title: value["title"]?.stringValue, message: value["message"]?.stringValue,
                         percentage: value["percentage"]?.intValue.map { Int($0) })
        case "window/logMessage":
            guard let message = params["message"]?.stringValue else { return }
            ctx.log(LogType(rawValue: Int(params["type"]?.intValue ?? 4)) ?? .log, message)
        default:
            break
        }
    }
}
