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
