import KindredCore
import JSONRPC
import KindredProtocol

/// `index/status`: `owner?` (the whole database when absent).
extension IndexStatus {
    struct Checked: MethodParams {
        typealias Wire = IndexStatus
        static let kind = MethodKind.read

        var owner: String?

        init(_ p: Params) throws(ResponseError) { owner = try p.optionalName("owner") }
    }
}

/// `index/rebuild`: no params besides `workDoneToken`.
/// Runs beside other requests (it only adds vectors, revision-checked), so reads are not stalled.
extension IndexRebuild {
    struct Checked: MethodParams {
        typealias Wire = IndexRebuild
        static let kind = MethodKind.read

        init(_ p: Params) throws(ResponseError) {}
    }
}
