#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Where framed outgoing bytes go. One serial writer: each call writes a whole frame.
public protocol MessageSink: Sendable {
    func write(_ bytes: [UInt8])
}

/// Writes to a file descriptor (the real stdout, duplicated before fd 1 was pointed at stderr).
public final class FileDescriptorSink: MessageSink {
    private let fd: Int32
    private let lock = Mutex<Void>(())
    public init(fd: Int32) { self.fd = fd }

    public func write(_ bytes: [UInt8]) {
        lock.withLock { _ in
            bytes.withUnsafeBytes { raw in
                var off = 0
                while off < raw.count {
                    let n = Glibc.write(fd, raw.baseAddress! + off, raw.count - off)
                    if n < 0 {
                        if errno == EINTR { continue }
                        return  // reader gone (EPIPE): nothing left to tell.
                    }
                    off += n
                }
            }
        }
    }
}
