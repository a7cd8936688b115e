import KindredCore
import Remote
public import JSONRPC

extension ResponseError {
    static func notFound(_ what: String, id: String, owner: String) -> ResponseError {
        ResponseError(code: .notFound, message: "\(what) not found: \(id)", data: ["what": .string(what), "id": .string(id), "owner": .string(owner)])
    }
    static func embedderUnavailable(_ reason: String) -> ResponseError {
        ResponseError(code: .embedderUnavailable, message: "embedder unavailable: \(reason)", data: ["reason": .string(reason)])
    }
    /// The embedder failed on this request's work; a remote provider's failure names the provider and HTTP status.
    static func embedderFailed(_ error: any Error) -> ResponseError {
        var data: JSONObject = ["reason": .string(String(describing: error))]
        if let p = error as? ProviderError {
            data["provider"] = .string(p.provider)
            data["status"] = p.status.map { .from($0) } ?? .null
            data["attempts"] = .from(p.attempts)
        }
        return ResponseError(code: .embedderUnavailable, message: "embedder unavailable: \(error)", data: .object(data))
    }
    static func limitExceeded(field: String, limit: Int) -> ResponseError {
        ResponseError(code: .limitExceeded, message: "\(field) exceeds the limit of \(limit)", data: ["field": .string(field), "limit": .int(Int64(limit))])
    }
    static func storage(_ error: any Error) -> ResponseError {
        ResponseError(code: .storageFailure, message: "storage failure: \(error)", data: ["reason": .string(String(describing: error))])
    }
}
