internal import CNATS

/// The JetStream calls the cluster makes: streams with replicas on file storage, appends fenced by
/// the expected last sequence of their subject, and reading a subject back in order.
extension NATSConnection {
    /// Creates the stream when missing, with `replicas` copies kept by as many servers (each on
    /// disk) and direct reads allowed; an existing stream is kept as it is.
    public func ensureStream(_ name: String, subjects: [String], replicas: Int) throws(NATSError) {
        let strings = CStrings()
        defer { strings.releaseArrays() }
        var cfg = jsStreamConfig()
        jsStreamConfig_Init(&cfg)
        cfg.Name = strings.copy(name)
        cfg.Subjects = strings.array(subjects)
        cfg.SubjectsLen = Int32(subjects.count)
        cfg.Storage = js_FileStorage
        cfg.Replicas = Int64(replicas)
        cfg.AllowDirect = true
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var code = jsErrCode(rawValue: 0)
        let s = js_AddStream(&info, js, &cfg, nil, &code)
        if info != nil { jsStreamInfo_Destroy(info) }
        if s == NATS_OK || code == JSStreamNameExistErr { return }
        throw NATSError(s, "creating stream \(name) with \(replicas) replicas", jetStream: code)
    }

    /// The stream's replica count (as configured).
    public func streamReplicas(_ name: String) throws(NATSError) -> Int {
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var code = jsErrCode(rawValue: 0)
        try NATSError.check(js_GetStreamInfo(&info, js, name, nil, &code), "stream \(name)", jetStream: code)
        defer { jsStreamInfo_Destroy(info) }
        return Int(info!.pointee.Config.pointee.Replicas)
    }

    /// Appends `data` to `subject` only if the subject's last sequence is `expectedLast` (0: the
    /// subject holds nothing yet); returns the stream sequence JetStream stored it at, once the
    /// stream's replicas hold it. `messageID` makes a repeated append of the same write (after a
    /// lost acknowledgement) return the first one's sequence instead of storing it twice: the
    /// acknowledgement is awaited `quickWaitMs` at most, and the caller appends again.
    public func append(_ subject: String, _ data: [UInt8], expectedLast: UInt64, messageID: String) throws(NATSError) -> UInt64 {
        let strings = CStrings()
        var po = jsPubOptions()
        jsPubOptions_Init(&po)
        po.MsgId = strings.copy(messageID)
        if expectedLast == 0 { po.ExpectNoMessage = true } else { po.ExpectLastSubjectSeq = expectedLast }
        var ack: UnsafeMutablePointer<jsPubAck>?
        var code = jsErrCode(rawValue: 0)
        let s = data.withUnsafeBytes { js_Publish(&ack, quickJS, subject, $0.baseAddress, Int32($0.count), &po, &code) }
        defer { if ack != nil { jsPubAck_Destroy(ack) } }
        try NATSError.check(s, "appending to \(subject)", jetStream: code)
        return ack!.pointee.Sequence
    }

    /// The stream sequence of the subject's last message (0 when it has none), asked of the stream's leader.
    public func lastSequence(stream: String, subject: String) throws(NATSError) -> UInt64 {
        try lastMessage(stream: stream, subject: subject)?.sequence ?? 0
    }

    /// The subject's last message (nil when it has none), asked of the stream's leader (never a
    /// replica that may lag it, as a direct read may be).
    public func lastMessage(stream: String, subject: String) throws(NATSError) -> (sequence: UInt64, data: [UInt8])? {
        var msg: OpaquePointer?
        var code = jsErrCode(rawValue: 0)
        let s = js_GetLastMsg(&msg, js, stream, subject, nil, &code)
        if s == NATS_NOT_FOUND || code == JSNoMessageFoundErr { return nil }
        try NATSError.check(s, "last message of \(subject)", jetStream: code)
        defer { natsMsg_Destroy(msg) }
        return (natsMsg_GetSequence(msg), Self.body(msg!))
    }

    /// The subject's first message at or after stream sequence `from` (nil when there is none).
    public func next(stream: String, subject: String, from: UInt64) throws(NATSError) -> (sequence: UInt64, data: [UInt8])? {
        let strings = CStrings()
        var dg = jsDirectGetMsgOptions()
        jsDirectGetMsgOptions_Init(&dg)
        dg.Sequence = from
        dg.NextBySubject = strings.copy(subject)
        var msg: OpaquePointer?
        let s = js_DirectGetMsg(&msg, js, stream, nil, &dg)
        if s == NATS_NOT_FOUND { return nil }
        try NATSError.check(s, "reading \(subject) from \(from)")
        defer { natsMsg_Destroy(msg) }
        return (natsMsg_GetSequence(msg), Self.body(msg!))
    }
}
