internal import CCurl
import Synchronization

/// One HTTP request as Kindred sends it to a provider.
public struct HTTPRequest: Sendable {
    public var url: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// Seconds to establish the connection (TCP and TLS).
    public var connectTimeout: Double
    /// Seconds for the whole exchange, connection included.
    public var totalTimeout: Double

    public init(url: String, headers: [(name: String, value: String)] = [], body: [UInt8], connectTimeout: Double, totalTimeout: Double) {
        self.url = url
        self.headers = headers
        self.body = body
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
    }
}

public struct HTTPResponse: Sendable {
    public let status: Int
    public let body: [UInt8]
    /// Seconds named by a `Retry-After` header (delta-seconds or an HTTP date), when there was one.
    public let retryAfter: Double?
}

/// Why an exchange produced no HTTP response at all.
public enum TransportFailure: Error, Sendable, Equatable {
    case timedOut
    case connectFailed(String)
    case cancelled
    case tooLarge(Int)
    case other(String)
}

/// POSTs over libcurl: one easy handle per exchange, TLS peer and host verification on, only http
/// and https, no redirects, no signals (threads), and a response body bounded in size.
/// `curl_global_init` must have run once before the first call (see `HTTPClient.globalInit`).
public enum HTTPClient {
    /// Largest response body accepted (bytes); a larger one fails the exchange.
    public static let maxResponseBytes = 64 << 20

    public static func globalInit() { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }

    /// Sends `request` as a POST. `isCancelled` is polled while the exchange runs and aborts it.
    public static func post(_ request: HTTPRequest, isCancelled: () -> Bool = { false }) throws(TransportFailure) -> HTTPResponse {
        // The progress callback runs on this thread, inside curl_easy_perform, so the closure never outlives the call.
        try withoutActuallyEscaping(isCancelled) { (isCancelled) throws(TransportFailure) -> HTTPResponse in try perform(request, ExchangeState(isCancelled: isCancelled)) }
    }

    private static func perform(_ request: HTTPRequest, _ sink: ExchangeState) throws(TransportFailure) -> HTTPResponse {
        guard let curl = curl_easy_init() else { throw .other("curl_easy_init failed") }
        defer { curl_easy_cleanup(curl) }
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headerList) }
        for h in request.headers + [(name: "Content-Type", value: "application/json"), (name: "Expect", value: "")] {
            headerList = curl_slist_append(headerList, "\(h.name): \(h.value)")
        }
        let code: CURLcode = request.url.withCString { url in
            request.body.withUnsafeBufferPointer { body in
                withExtendedLifetime(sink) {
                    let user = Unmanaged.passUnretained(sink).toOpaque()
                    _ = kindred_curl_setopt_ptr(curl, CURLOPT_URL, url)
                    _ = "http,https".withCString { kindred_curl_setopt_ptr(curl, CURLOPT_PROTOCOLS_STR, $0) }
                    _ = kindred_curl_setopt_long(curl, CURLOPT_NOSIGNAL, 1)
                    _ = kindred_curl_setopt_long(curl, CURLOPT_SSL_VERIFYPEER, 1)
                    _ = kindred_curl_setopt_long(curl, CURLOPT_SSL_VERIFYHOST, 2)
                    _ = kindred_curl_setopt_long(curl, CURLOPT_FOLLOWLOCATION, 0)
                    _ = kindred_curl_setopt_long(curl, CURLOPT_CONNECTTIMEOUT_MS, max(1, Int(request.connectTimeout * 1000)))
                    _ = kindred_curl_setopt_long(curl, CURLOPT_TIMEOUT_MS, max(1, Int(request.totalTimeout * 1000)))
                    _ = kindred_curl_setopt_long(curl, CURLOPT_POST, 1)
                    _ = kindred_curl_setopt_ptr(curl, CURLOPT_POSTFIELDS, body.baseAddress)
                    _ = kindred_curl_setopt_off(curl, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
                    _ = kindred_curl_setopt_ptr(curl, CURLOPT_HTTPHEADER, headerList)
                    _ = kindred_curl_setopt_write(curl, kindredWriteBody)
                    _ = kindred_curl_setopt_ptr(curl, CURLOPT_WRITEDATA, user)
                    _ = kindred_curl_setopt_progress(curl, kindredProgress)
                    _ = kindred_curl_setopt_ptr(curl, CURLOPT_XFERINFODATA, user)
                    _ = kindred_curl_setopt_long(curl, CURLOPT_NOPROGRESS, 0)
                    return curl_easy_perform(curl)
                }
            }
        }
        switch code {
        case CURLE_OK: break
        case CURLE_OPERATION_TIMEDOUT: throw .timedOut
        case CURLE_ABORTED_BY_CALLBACK: throw .cancelled
        case CURLE_WRITE_ERROR where sink.overflowed: throw .tooLarge(maxResponseBytes)
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION:
            throw .connectFailed(String(cString: curl_easy_strerror(code)))
        default: throw .other(String(cString: curl_easy_strerror(code)))
        }
        var status = 0
        _ = kindred_curl_getinfo_long(curl, CURLINFO_RESPONSE_CODE, &status)
        var retry: curl_off_t = -1
        let haveRetry = kindred_curl_getinfo_off(curl, CURLINFO_RETRY_AFTER, &retry) == CURLE_OK && retry > 0
        return HTTPResponse(status: status, body: sink.body, retryAfter: haveRetry ? Double(retry) : nil)
    }
}

/// What the C callbacks of one exchange write to (reached through the opaque user pointer).
final class ExchangeState {
    var body: [UInt8] = []
    var overflowed = false
    let isCancelled: () -> Bool
    init(isCancelled: @escaping () -> Bool) { self.isCancelled = isCancelled }
}

private let kindredWriteBody: kindred_curl_write_fn = { data, size, count, user in
    guard let data, let user else { return 0 }
    let state = Unmanaged<ExchangeState>.fromOpaque(user).takeUnretainedValue()
    let n = size * count
    if state.body.count + n > HTTPClient.maxResponseBytes {
        state.overflowed = true
        return 0
    }
    data.withMemoryRebound(to: UInt8.self, capacity: n) { state.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: n)) }
    return n
}

private let kindredProgress: kindred_curl_progress_fn = { user, _, _, _, _ in
    guard let user else { return 0 }
    return Unmanaged<ExchangeState>.fromOpaque(user).takeUnretainedValue().isCancelled() ? 1 : 0
}
