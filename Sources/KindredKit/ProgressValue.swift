import KindredCore
import KindredProtocol

/// A `$/progress` value of the service as the typed progress KindredKit reports.
extension KindredProgress {
    init(_ v: JSONValue) {
        kind = Kind(rawValue: v["kind"]?.stringValue ?? "") ?? .report
        title = v["title"]?.stringValue
        message = v["message"]?.stringValue
        percentage = v["percentage"]?.intValue.map { Int($0) }
    }
}
