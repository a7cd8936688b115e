public import JSONRPC
import KindredCore
public import Service
import Foundation
import Synchronization

/// `kindred lsp`: a language server (LSP 3.17) for a folder of notes, on the JSON-RPC `Server` and
/// one `KindredService`. On `initialized` it indexes the notes of the workspace folders
/// (`NotesIndexer`), then keeps them in step with saves and outside changes; the editor's requests
/// are answered from the same store, index and pattern engine as `kindred serve`'s
/// (`EditorRequests`). It only reads the notes: the database lives in `.kindred/` unless given.
public final class LanguageServer: Sendable {
    public struct Options: Sendable {
        /// Whose records the notes are, in the database.
        public var owner: String
        /// The database file; nil: `.kindred/notes.sqlite` in the first workspace folder.
        public var databasePath: String?
        public var maxMessageBytes: Int
        /// A larger file is skipped (with a message): a note is text someone wrote.
        public var maxFileBytes: Int
        public init(owner: String = "notes", databasePath: String? = nil, maxMessageBytes: Int = 64 << 20, maxFileBytes: Int = 1 << 20) {
            self.owner = owner
            self.databasePath = databasePath
            self.maxMessageBytes = maxMessageBytes
            self.maxFileBytes = maxFileBytes
        }
    }

    /// Opens the service on a database file (created when missing).
    public typealias OpenService = @Sendable (_ databasePath: String) throws -> KindredService

    public static let commands = ["kindred.refreshPatterns"]

    let core: Core
    public let server: Server

    public init(options: Options, sink: any MessageSink, open: @escaping OpenService) {
        let core = Core(options: options, open: open)
        let server = Server(options: Server.Options(framing: .lsp, maxMessageBytes: options.maxMessageBytes), sink: sink,
                            initialize: { params, _ in try core.initialize(params) }, onShutdown: { core.close() })
        core.server.withLock { $0 = server }
        self.server = server
        self.core = core
        register()
    }

    /// Reads requests until `exit` or end of input; returns the process exit code.
    public func run(read: () -> [UInt8]?) -> Int32 { server.run(read: read) }

    private func register() {
        let core = core
        func read(_ method: String, _ body: @escaping @Sendable (Session, JSONValue?, RequestContext) throws(ResponseError) -> JSONValue) {
            server.register(method, kind: .read) { params, ctx in
                let session = try core.session()
                // What was saved before this request is what it answers about.
                session.indexer.waitForChanges(ctx)
                return try body(session, params, ctx)
            }
        }
        read("workspace/symbol") { s, p, ctx throws(ResponseError) in try s.requests.workspaceSymbols(p, ctx) }
        read("textDocument/references") { s, p, ctx throws(ResponseError) in try s.requests.references(p, ctx) }
        read("textDocument/hover") { s, p, ctx throws(ResponseError) in try s.requests.hover(p, ctx) }
        read("textDocument/documentSymbol") { s, p, ctx throws(ResponseError) in try s.requests.documentSymbols(p, ctx) }
        read("workspace/executeCommand") { s, p, ctx throws(ResponseError) in try core.executeCommand(s, p, ctx) }

        server.onNotification("initialized") { _ in core.startIndexing() }
        server.onNotification("textDocument/didSave") { params in
            guard let uri = params?["textDocument"]?["uri"]?.stringValue else { return }
            core.fileChanged(uri)
        }
        server.onNotification("workspace/didChangeWatchedFiles") { params in
            for change in params?["changes"]?.arrayValue ?? [] {
                if let uri = change["uri"]?.stringValue { core.fileChanged(uri) }
            }
        }
        server.onNotification("window/workDoneProgress/cancel") { params in
            guard let token = params?["token"] else { return }
            core.cancelIndexing(token: token)
        }
    }
}

/// What an initialized connection works with.
struct Session: Sendable {
    let service: KindredService
    let indexer: NotesIndexer
    let requests: EditorRequests
}

/// The server's state behind its handlers: created before the `Server`, which it then logs and
/// sends requests through.
final class Core: Sendable {
    let options: LanguageServer.Options
    let open: LanguageServer.OpenService
    let server = Mutex<Server?>(nil)
    private let current = Mutex<Session?>(nil)
    /// The running initial indexing: its progress token (for the client's cancel) and cancellation.
    private let indexing = Mutex<(progress: JSONValue?, token: CancellationToken)?>(nil)
    /// `initialized` came while `initialize` was still opening the database (a client that does not
    /// wait for its answer): the indexing starts when it is open.
    private let indexingWanted = Mutex(false)

    init(options: LanguageServer.Options, open: @escaping LanguageServer.OpenService) {
        self.options = options
        self.open = open
    }

    func session() throws(ResponseError) -> Session {
        guard let s = current.withLock({ $0 }) else {
            throw ResponseError(code: .serverNotInitialized, message: "no notes are open: initialize did not succeed")
        }
        return s
    }

    func log(_ type: LogType, _ message: String) { server.withLock { $0 }?.log(type, message) }

    // MARK: lifecycle

    func initialize(_ params: JSONValue?) throws(ResponseError) -> JSONValue {
        let roots = try Self.workspaceRoots(params)
        let extensions = try Self.extensions(params?["initializationOptions"])
        guard let first = roots.first ?? options.databasePath.map({ _ in FileManager.default.currentDirectoryPath }) else {
            throw ResponseError.invalidParams(field: "workspaceFolders", reason: "no workspace folder was given (nor rootUri): "
                + "open a folder of notes, or start kindred lsp with --db PATH")
        }
        let databasePath: String
        if let given = options.databasePath { databasePath = given } else { databasePath = try Self.defaultDatabase(in: first) }
        let service: KindredService
        do { service = try open(databasePath) } catch {
            throw ResponseError.internalError("cannot open the database \(databasePath): \(error)")
        }
        service.startBackgroundEmbedding { [self] message in log(.warning, "kindred: \(message)") }
        service.startKeywordIndex()
        let folders = (roots.isEmpty ? [first] : roots).map { NotesFolder(root: $0, extensions: extensions) }
        let indexer = NotesIndexer(service: service, owner: options.owner, folders: folders, maxFileBytes: options.maxFileBytes) { [self] t, m in
            log(t, m)
        }
        current.withLock { $0 = Session(service: service, indexer: indexer, requests: EditorRequests(service: service, owner: options.owner, table: indexer.table)) }
        if takeIndexingWanted() { startIndexing() }
        return [
            "capabilities": [
                "positionEncoding": "utf-16",
                "textDocumentSync": ["openClose": true, "change": 0, "save": ["includeText": false]],
                "workspaceSymbolProvider": true,
                "referencesProvider": true,
                "hoverProvider": true,
                "documentSymbolProvider": true,
                "executeCommandProvider": ["commands": .from(LanguageServer.commands)],
                "workspace": ["workspaceFolders": ["supported": true, "changeNotifications": false]],
            ],
            "serverInfo": ["name": "kindred", "version": .string(KindredService.version)],
        ]
    }

    func close() {
        guard let s = current.withLock({ $0 }) else { return }
        indexing.withLock { $0?.token.cancel() }
        s.indexer.close()
        s.service.close()
    }

    /// The folders of `workspaceFolders`, else `rootUri`, else `rootPath`.
    static func workspaceRoots(_ params: JSONValue?) throws(ResponseError) -> [String] {
        if let folders = params?["workspaceFolders"]?.arrayValue {
            var roots: [String] = []
            for (i, f) in folders.enumerated() {
                guard let uri = f["uri"]?.stringValue, let path = FileURI.path(uri) else {
                    throw ResponseError.invalidParams(field: "workspaceFolders[\(i)].uri", reason: "must be a file: URI")
                }
                roots.append(NotesFolder.standardized(path))
            }
            if !roots.isEmpty { return roots }
        }
        if let uri = params?["rootUri"]?.stringValue {
            guard let path = FileURI.path(uri) else { throw ResponseError.invalidParams(field: "rootUri", reason: "must be a file: URI, got '\(uri)'") }
            return [NotesFolder.standardized(path)]
        }
        if let path = params?["rootPath"]?.stringValue, path.hasPrefix("/") { return [NotesFolder.standardized(path)] }
        return []
    }

    /// `initializationOptions.extensions`: which file names are notes (default md, markdown, txt).
    static func extensions(_ options: JSONValue?) throws(ResponseError) -> [String] {
        guard let given = options?["extensions"], !given.isNull else { return NotesFolder.defaultExtensions }
        guard let list = given.arrayValue, !list.isEmpty else {
            throw ResponseError.invalidParams(field: "initializationOptions.extensions", reason: "must be a non-empty array of file extensions (\"md\")")
        }
        var out: [String] = []
        for (i, v) in list.enumerated() {
            guard let s = v.stringValue, !s.isEmpty, !s.contains("/") else {
                throw ResponseError.invalidParams(field: "initializationOptions.extensions[\(i)]", reason: "must be a file extension such as \"md\"")
            }
            out.append(s.hasPrefix(".") ? String(s.dropFirst()) : s)
        }
        return out
    }

    /// `<root>/.kindred/notes.sqlite`, its folder made (with a `.gitignore` that keeps it out of git).
    static func defaultDatabase(in root: String) throws(ResponseError) -> String {
        let folder = root + "/.kindred"
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            if !FileManager.default.fileExists(atPath: folder + "/.gitignore") {
                try Data("# the search index of kindred lsp, made from the notes\n*\n".utf8).write(to: URL(fileURLWithPath: folder + "/.gitignore"))
            }
        } catch {
            throw ResponseError.internalError("cannot make \(folder) for the database: \(error)")
        }
        return folder + "/notes.sqlite"
    }

    // MARK: indexing

    /// Registers the file watchers (when the client lets a server do that) and indexes every note,
    /// after the jobs queued before.
    func startIndexing() {
        guard let s = current.withLock({ $0 }), let server = server.withLock({ $0 }) else {
            indexingWanted.withLock { $0 = true }
            // `initialize` may have finished in between: whichever side takes the wish starts it.
            if current.withLock({ $0 }) != nil, takeIndexingWanted() { startIndexing() }
            return
        }
        let token = CancellationToken()
        indexing.withLock { $0 = (nil, token) }
        s.indexer.enqueue { [self] in
            registerWatchers(server, s.indexer)
            let progress = WorkDoneProgress(server: server) { token.isCancelled }
            indexing.withLock { $0 = (progress.tokenValue, token) }
            _ = s.indexer.indexAll(progress: progress, token: token)
            indexing.withLock { $0 = nil }
        }
    }

    private func takeIndexingWanted() -> Bool {
        indexingWanted.withLock { wanted in
            defer { wanted = false }
            return wanted
        }
    }

    func cancelIndexing(token: JSONValue) {
        indexing.withLock { current in
            if let c = current, c.progress == token { c.token.cancel() }
        }
    }

    func fileChanged(_ uri: String) {
        guard let s = current.withLock({ $0 }), let path = FileURI.path(uri) else { return }
        s.indexer.fileChanged(NotesFolder.standardized(path))
    }

    /// `workspace/didChangeWatchedFiles` for the notes' extensions, when the client registers watchers for a server.
    func registerWatchers(_ server: Server, _ indexer: NotesIndexer) {
        guard server.clientCapabilities?["workspace"]?["didChangeWatchedFiles"]?["dynamicRegistration"]?.boolValue == true else { return }
        let extensions = Set(indexer.folders.flatMap(\.extensions)).sorted()
        let glob = extensions.count == 1 ? "**/*.\(extensions[0])" : "**/*.{\(extensions.joined(separator: ","))}"
        let registration: JSONValue = ["registrations": [[
            "id": "kindred-notes", "method": "workspace/didChangeWatchedFiles",
            "registerOptions": ["watchers": [["globPattern": .string(glob)]]],
        ]]]
        if case .error(_, let message) = server.request("client/registerCapability", registration, timeout: 10, isCancelled: { indexer.closing.isCancelled }) {
            log(.warning, "kindred: the editor refused to watch the notes (\(message)): changes made outside it are seen at the next start")
        }
    }

    // MARK: commands

    func executeCommand(_ s: Session, _ params: JSONValue?, _ ctx: RequestContext) throws(ResponseError) -> JSONValue {
        guard case .string(let command)? = params?["command"] else {
            throw ResponseError.invalidParams(field: "command", reason: "is required: one of \(LanguageServer.commands.joined(separator: ", "))")
        }
        switch command {
        case "kindred.refreshPatterns":
            var context = ctx
            if ctx.workDoneToken == nil, let server = server.withLock({ $0 }) {
                // The editor gave no token: progress on one of the server's own, when it takes one.
                let progress = WorkDoneProgress(server: server) { ctx.isCancelled }
                if let token = progress.tokenValue {
                    context = RequestContext(id: ctx.id, method: ctx.method, token: ctx.token, workDoneToken: token, client: ctx.client) { m, p in
                        server.notify(m, p)
                    }
                }
            }
            let outcome: Result<JSONValue, ResponseError> = s.indexer.run {
                do throws(ResponseError) {
                    return .success(try s.service.call("patterns/refresh", ["owner": .string(options.owner)], context: context))
                } catch {
                    return .failure(error)
                }
            }
            return try outcome.get()
        default:
            throw ResponseError.invalidParams(field: "command", reason: "unknown command '\(command)' (commands: \(LanguageServer.commands.joined(separator: ", ")))")
        }
    }
}
