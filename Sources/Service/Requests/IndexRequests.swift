import KindredCore
import JSONRPC
import KindredProtocol

/// `index/status`: `owner?` (the whole database when absent).
extension IndexStatus: CheckedRequest {
    struct Checked: MethodParams {
        var owner: String?

        init(_ p: Params) throws(ResponseError) { owner = try p.optionalName("owner") }
    }
}

/// `index/rebuild`: no params besides `workDoneToken`.
/// Runs beside other requests (it only adds vectors, revision-checked), so reads are not stalled.
extension IndexRebuild: CheckedRequest {
    struct Checked: MethodParams {
        init(_ p: Params) throws(ResponseError) {}
    }
}
