internal import CNATS

/// The JetStream calls behind snapshots and trimming: plain appends, purges of one subject and the
/// subjects a stream holds.
extension NATSConnection {
    /// Appends `data` to `subject` with no expectation; returns its stream sequence once the
    /// stream's replicas hold it.
    public func store(_ subject: String, _ data: [UInt8]) throws(NATSError) -> UInt64 {
        var ack: UnsafeMutablePointer<jsPubAck>?
        var code = jsErrCode(rawValue: 0)
        let s = data.withUnsafeBytes { js_Publish(&ack, js, subject, $0.baseAddress, Int32($0.count), nil, &code) }
        defer { if ack != nil { jsPubAck_Destroy(ack) } }
        try NATSError.check(s, "appending to \(subject)", jetStream: code)
        return ack!.pointee.Sequence
    }

    /// The message at stream sequence `sequence` with its subject (nil when there is none), asked of
    /// the stream's leader.
    public func message(stream: String, sequence: UInt64) throws(NATSError) -> (subject: String, data: [UInt8])? {
        var msg: OpaquePointer?
        var code = jsErrCode(rawValue: 0)
        let s = js_GetMsg(&msg, js, stream, sequence, nil, &code)
        if s == NATS_NOT_FOUND || code == JSNoMessageFoundErr { return nil }
        try NATSError.check(s, "message \(sequence) of \(stream)", jetStream: code)
        defer { natsMsg_Destroy(msg) }
        return (natsMsg_GetSubject(msg).map { String(cString: $0) } ?? "", Self.body(msg!))
    }

    /// Removes the messages of `subject` (wildcards allowed) stored below stream sequence `below`,
    /// or, with `below` nil, all but the last `keep` of them.
    public func purge(stream: String, subject: String, below: UInt64? = nil, keep: UInt64 = 0) throws(NATSError) {
        // Nothing lies below 1; and the server takes a sequence of 0 or 1 as none given, purging
        // every message of the subject.
        if let below, below <= 1 { return }
        let strings = CStrings()
        var o = jsOptions()
        jsOptions_Init(&o)
        o.Stream.Purge.Subject = strings.copy(subject)
        if let below { o.Stream.Purge.Sequence = below } else { o.Stream.Purge.Keep = keep }
        var code = jsErrCode(rawValue: 0)
        try NATSError.check(js_PurgeStream(js, stream, &o, &code), "purging \(subject) of \(stream)", jetStream: code)
    }

    /// The subjects of the stream matching `filter` that hold messages, with their message counts.
    public func subjects(stream: String, filter: String) throws(NATSError) -> [String: UInt64] {
        let strings = CStrings()
        var o = jsOptions()
        jsOptions_Init(&o)
        o.Stream.Info.SubjectsFilter = strings.copy(filter)
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var code = jsErrCode(rawValue: 0)
        try NATSError.check(js_GetStreamInfo(&info, js, stream, &o, &code), "subjects of \(stream)", jetStream: code)
        defer { jsStreamInfo_Destroy(info) }
        var out: [String: UInt64] = [:]
        if let list = info?.pointee.State.Subjects {
            for i in 0..<Int(list.pointee.Count) {
                let s = list.pointee.List[i]
                if let name = s.Subject { out[String(cString: name)] = s.Msgs }
            }
        }
        return out
    }
}
