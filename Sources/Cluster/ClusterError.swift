public import JSONRPC
import KindredCore

extension ErrorCode {
    /// The shard of the request's owner has no node serving it right now (starting, failing over
    /// or moving); `data.retryable` is true and the same request may be sent again.
    public static let shardUnavailable = ErrorCode(rawValue: -32060)
}

extension ResponseError {
    static func shardUnavailable(_ shard: Int, _ reason: String) -> ResponseError {
        ResponseError(code: .shardUnavailable, message: "shard \(shard) is unavailable: \(reason); retry",
                      data: ["shard": .from(shard), "retryable": true])
    }
}
