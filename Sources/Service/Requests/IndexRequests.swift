import KindredCore
import JSONRPC

/// `index/status`: `owner?` (the whole database when absent).
struct IndexStatus: MethodParams {
    static let method = "index/status"
    static let kind = MethodKind.read
    static let keys = ["owner"]

    var owner: String?

    init(_ p: Params) throws(ResponseError) { owner = try p.optionalName("owner") }
}

/// `index/rebuild`: no params besides `workDoneToken`.
/// Runs beside other requests (it only adds vectors, revision-checked), so reads are not stalled.
struct IndexRebuild: MethodParams {
    static let method = "index/rebuild"
    static let kind = MethodKind.read
    static let keys: [String] = []

    init(_ p: Params) throws(ResponseError) {}
}
