import Dispatch
import Foundation
import JSONRPC
import KindredCore
// The requests and results are the protocol's own types: an app imports KindredKit alone.
@_exported import KindredProtocol
import Service

/// Kindred in-process: one database file, its search index and the embedder, answering the same
/// methods as `kindred serve` with the same validation and errors, without a child process.
///
/// ```swift
/// let kindred = try Kindred(databasePath: "journal.sqlite")
/// _ = try await kindred.send(RecordsUpsert(owner: "me", records: [RecordInput(id: "d1", revision: 1, text: "I missed the train.")], waitForIndex: true))
/// let hits = try await kindred.send(SearchQuery(owner: "me", text: "the dream where I missed a train"))
/// kindred.close()
/// ```
///
/// Requests run off the caller's thread. Writes apply one at a time in the order they were sent;
/// reads run beside each other and wait for the writes sent before them. Cancelling the calling
/// task cancels the request (it throws `CancellationError`); `progress` receives the `$/progress`
/// values of methods that report it.
public final class Kindred: Sendable {
    let service: KindredService
    /// Reads run concurrently; a write runs alone (a barrier), in submission order.
    private let queue = DispatchQueue(label: "kindred.kit.requests", attributes: .concurrent)

    /// Opens (or creates) the database at `databasePath`. `settings` override configuration keys
    /// (`["embedder.provider": "none"]`, `["search.defaultLimit": "20"]`), after the built-in
    /// defaults, the file named by `KINDRED_CONFIG` and `KINDRED_*` environment variables, as the
    /// CLI's `--set` does. The embedded model is loaded from its usual place (`KINDRED_MODEL_DIR`);
    /// without it search degrades to keyword matching, as over the wire. `log` receives problems
    /// that belong to no request (background embedding stopping).
    public init(databasePath: String, settings: [String: String] = [:], log: (@Sendable (String) -> Void)? = nil) throws {
        let config: Config
        do {
            config = try ConfigLoader.load(file: nil, environment: ProcessInfo.processInfo.environment,
                                           overrides: settings.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        } catch {
            throw KindredError(code: .invalidParams, message: "configuration: \(error)")
        }
        EmbedderSetup.configureThreads(config)
        let (embedder, problem) = EmbedderSetup.make(config)
        do {
            service = try KindredService(config: config, databasePath: databasePath, embedder: embedder, embedderProblem: problem)
        } catch {
            throw KindredError(code: .storageFailure, message: "cannot open \(databasePath): \(error)")
        }
        service.startBackgroundEmbedding { message in log?(message) }
        service.startKeywordIndex()
    }

    /// Finishes background work and closes the database. Call it once, after the last request.
    public func close() {
        queue.sync(flags: .barrier) {}
        service.close()
    }

    /// The methods this build answers (the same list as `initialize` over the wire).
    public var methods: [String] {
        (service.initializeResult(methods: KindredService.methodNames)["capabilities"]?["methods"]?.arrayValue ?? []).compactMap(\.stringValue)
    }

    /// Sends one typed request and returns its typed result.
    ///
    /// Throws `KindredError` with the wire's code, message and data (`.invalidParams` names the
    /// field), or `CancellationError` when the calling task was cancelled.
    public func send<R: KindredRequest>(_ request: R, progress: (@Sendable (KindredProgress) -> Void)? = nil) async throws -> R.Result {
        let params = try JSONBridge.value(request)
        let value = try await call(R.method, params, progress: progress)
        return try JSONBridge.decode(R.Result.self, from: value, method: R.method)
    }

    /// Sends a request by method name with JSON params (for methods added after this API).
    public func send(method: String, params: KindredJSON, progress: (@Sendable (KindredProgress) -> Void)? = nil) async throws -> KindredJSON {
        KindredJSON(try await call(method, JSONBridge.value(params), progress: progress))
    }

    func call(_ method: String, _ params: JSONValue, progress: (@Sendable (KindredProgress) -> Void)?) async throws -> JSONValue {
        let token = CancellationToken()
        let ctx = RequestContext(id: .string("kit"), method: method, token: token, workDoneToken: progress == nil ? nil : .string("kit")) { m, p in
            if m == "$/progress", let value = p["value"], let progress { progress(KindredProgress(value)) }
        }
        let write = service.isWrite(method: method)
        let service = service, queue = queue
        let outcome: Result<JSONValue, ResponseError> = await withTaskCancellationHandler {
            await withCheckedContinuation { (done: CheckedContinuation<Result<JSONValue, ResponseError>, Never>) in
                let job: @Sendable () -> Void = {
                    guard !token.isCancelled else { return done.resume(returning: .failure(.cancelled)) }
                    do throws(ResponseError) {
                        let (result, later) = try service.callAnsweringLater(method, params, context: ctx)
                        guard let later else { return done.resume(returning: .success(result)) }
                        // Waiting for background work the write started runs beside other requests.
                        queue.async {
                            do throws(ResponseError) { done.resume(returning: .success(try later())) } catch { done.resume(returning: .failure(error)) }
                        }
                    } catch {
                        done.resume(returning: .failure(error))
                    }
                }
                if write { queue.async(flags: .barrier, execute: job) } else { queue.async(execute: job) }
            }
        } onCancel: {
            token.cancel()
        }
        switch outcome {
        case .success(let v):
            if token.isCancelled && !write { throw CancellationError() }
            return v
        case .failure(let e) where e.code == .requestCancelled:
            throw CancellationError()
        case .failure(let e):
            throw KindredError(e)
        }
    }
}
