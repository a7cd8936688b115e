internal import CNATS

/// A failure of the NATS client library or of a JetStream API call.
public struct NATSError: Error, Sendable, CustomStringConvertible {
    public let status: UInt32
    /// The JetStream error code (0 when the server gave none).
    public let jetStreamCode: Int
    public let description: String

    init(_ status: natsStatus, _ what: String, jetStream: jsErrCode = jsErrCode(rawValue: 0)) {
        self.status = status.rawValue
        self.jetStreamCode = Int(jetStream.rawValue)
        var text = "\(what): \(String(cString: natsStatus_GetText(status)))"
        if jetStream.rawValue != 0 { text += " (JetStream error \(jetStream.rawValue))" }
        var last = NATS_OK
        if let detail = nats_GetLastError(&last), last != NATS_OK {
            let d = String(cString: detail)
            if !d.isEmpty && !text.contains(d) { text += ": \(d)" }
        }
        description = text
    }

    public var isTimeout: Bool { status == NATS_TIMEOUT.rawValue }
    public var isNoResponders: Bool { status == NATS_NO_RESPONDERS.rawValue }
    public var isNotFound: Bool { status == NATS_NOT_FOUND.rawValue || jetStreamCode == Int(JSNoMessageFoundErr.rawValue) }
    /// JetStream refused an append whose expected last subject sequence was not the subject's last.
    public var isWrongLastSequence: Bool { jetStreamCode == Int(JSStreamWrongLastSequenceErr.rawValue) }

    static func check(_ s: natsStatus, _ what: @autoclosure () -> String, jetStream: jsErrCode = jsErrCode(rawValue: 0)) throws(NATSError) {
        if s != NATS_OK { throw NATSError(s, what(), jetStream: jetStream) }
    }
}
