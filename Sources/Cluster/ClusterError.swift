public import JSONRPC
import KindredCore

extension ResponseError {
    static func shardUnavailable(_ shard: Int, _ reason: String) -> ResponseError {
        ResponseError(code: .shardUnavailable, message: "shard \(shard) is unavailable: \(reason); retry",
                      data: ["shard": .from(shard), "retryable": true])
    }
}
