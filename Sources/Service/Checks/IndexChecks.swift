import JSONRPC
import KindredProtocol

/// `index/rebuild`: no params besides `workDoneToken`.
/// Runs beside other requests (it only adds vectors, revision-checked), so reads are not stalled.
extension IndexRebuild: ServedRequest {
    func check(_ rules: ParamRules) throws(ResponseError) {}
}

/// `index/status`: `owner?` (the whole database when absent).
extension IndexStatus: ServedRequest {
    func check(_ rules: ParamRules) throws(ResponseError) {}
}
