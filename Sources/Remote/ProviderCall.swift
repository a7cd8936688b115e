import Foundation

/// How Kindred reaches one provider: where, with which key, and how patiently.
public struct ProviderEndpoint: Sendable {
    public var provider: String
    public var baseURL: String
    public var apiKey: Secret
    public var connectTimeout: Double
    public var totalTimeout: Double
    public var retry: RetryPolicy

    public init(provider: String, baseURL: String, apiKey: Secret, connectTimeout: Double, totalTimeout: Double, retry: RetryPolicy) {
        self.provider = provider
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.apiKey = apiKey
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
        self.retry = retry
    }
}

/// One logical call to a provider: POSTs, retries what is worth retrying, and parses the answer.
enum ProviderCall {
    /// Posts `body` to `path` and parses a 2xx body with `parse` (which throws a reason for a
    /// malformed answer). Returns the parsed value and the attempts made.
    static func run<T>(_ endpoint: ProviderEndpoint, path: String, headers: [(name: String, value: String)], body: [UInt8],
                       isCancelled: () -> Bool, onRetry: (String) -> Void,
                       parse: ([UInt8]) throws(AnswerError) -> T) throws(ProviderError) -> (value: T, attempts: Int) {
        let request = HTTPRequest(url: endpoint.baseURL + path, headers: headers, body: body,
                                  connectTimeout: endpoint.connectTimeout, totalTimeout: endpoint.totalTimeout)
        let key = endpoint.apiKey
        var attempt = 0
        while true {
            attempt += 1
            var failure: ProviderError
            var retryAfter: Double?
            do {
                let response = try HTTPClient.post(request, isCancelled: isCancelled)
                if (200..<300).contains(response.status) {
                    do {
                        return (try parse(response.body), attempt)
                    } catch {
                        throw ProviderError(provider: endpoint.provider, kind: .badAnswer, status: response.status, attempts: attempt,
                                            reason: key.scrub(error.reason))
                    }
                }
                let retryable = response.status == 408 || response.status == 429 || response.status >= 500
                failure = ProviderError(provider: endpoint.provider, kind: retryable ? .unavailable : .refused, status: response.status,
                                        attempts: attempt, reason: key.scrub(Self.summary(response.body)))
                retryAfter = response.retryAfter
                if !retryable { throw failure }
            } catch let e as ProviderError {
                throw e
            } catch let t as TransportFailure {
                switch t {
                case .cancelled: throw ProviderError(provider: endpoint.provider, kind: .cancelled, attempts: attempt, reason: "cancelled")
                case .timedOut: failure = ProviderError(provider: endpoint.provider, kind: .unavailable, attempts: attempt,
                                                        reason: "no answer within \(Self.seconds(endpoint.totalTimeout))")
                case .connectFailed(let why): failure = ProviderError(provider: endpoint.provider, kind: .unavailable, attempts: attempt, reason: "cannot connect: \(why)")
                case .tooLarge(let n): throw ProviderError(provider: endpoint.provider, kind: .badAnswer, attempts: attempt, reason: "answer larger than \(n) bytes")
                case .other(let why): failure = ProviderError(provider: endpoint.provider, kind: .unavailable, attempts: attempt, reason: why)
                }
            } catch {
                throw ProviderError(provider: endpoint.provider, kind: .unavailable, attempts: attempt, reason: String(describing: error))
            }
            guard let wait = endpoint.retry.delay(afterAttempt: attempt, retryAfter: retryAfter) else {
                if let retryAfter, retryAfter > endpoint.retry.maxDelay {
                    throw ProviderError(provider: failure.provider, kind: failure.kind, status: failure.status, attempts: attempt,
                                        reason: failure.reason + "; asked to retry after \(Self.seconds(retryAfter))")
                }
                throw failure
            }
            onRetry("\(failure.description); retry \(attempt) of \(endpoint.retry.maxAttempts - 1) in \(Self.seconds(wait))")
            guard RetryPolicy.sleep(wait, isCancelled: isCancelled) else {
                throw ProviderError(provider: endpoint.provider, kind: .cancelled, attempts: attempt, reason: "cancelled")
            }
        }
    }

    /// The first part of an error body, for the error message (providers put the reason there).
    static func summary(_ body: [UInt8]) -> String {
        let text = String(decoding: body.prefix(300), as: UTF8.self).replacingOccurrences(of: "\n", with: " ")
        return text.isEmpty ? "empty answer" : text
    }

    static func seconds(_ s: Double) -> String { String(format: "%.2gs", s) }
}

/// Why a 2xx answer could not be used.
struct AnswerError: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
