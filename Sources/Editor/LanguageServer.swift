public import JSONRPC
import KindredCore
public import Service
import Dispatch
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

    public static let commands = ["kindred.refreshPatterns", "kindred.findings", "kindred.dismiss", "kindred.search"]

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
        read("textDocument/codeLens") { s, p, ctx throws(ResponseError) in try s.requests.codeLenses(p, ctx) }
        read("workspace/executeCommand") { s, p, ctx throws(ResponseError) in try core.executeCommand(s, p, ctx) }

        server.onNotification("initialized") { _ in core.startIndexing() }
        server.onNotification("textDocument/didSave") { params in
            guard let uri = params?["textDocument"]?["uri"]?.stringValue else { return }
            core.saved(uri)
        }
        server.onNotification("textDocument/didChange") { params in core.edited(params) }
        server.onNotification("textDocument/didClose") { params in
            guard let uri = params?["textDocument"]?["uri"]?.stringValue else { return }
            core.closed(uri)
        }
        server.onNotification("workspace/didChangeWatchedFiles") { params in
            core.filesChanged((params?["changes"]?.arrayValue ?? []).compactMap { $0["uri"]?.stringValue })
        }
        server.onNotification("workspace/didRenameFiles") { params in
            core.renamed((params?["files"]?.arrayValue ?? []).compactMap { f in
                guard let old = f["oldUri"]?.stringValue, let new = f["newUri"]?.stringValue else { return nil }
                return (old, new)
            })
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
        let settings = try NotesSettings(params?["initializationOptions"])
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
        let folders = (roots.isEmpty ? [first] : roots).map { settings.folder($0) }
        let indexer = NotesIndexer(service: service, owner: options.owner, folders: folders, maxFileBytes: settings.maxFileBytes ?? options.maxFileBytes,
                                   editDelay: Double(settings.editDelayMs) / 1000) { [self] t, m in
            log(t, m)
        }
        current.withLock { $0 = Session(service: service, indexer: indexer, requests: EditorRequests(service: service, owner: options.owner, table: indexer.table)) }
        if takeIndexingWanted() { startIndexing() }
        return [
            "capabilities": [
                "positionEncoding": "utf-16",
                // Full text on each change: an unsaved buffer is indexed as it is, after a quiet time.
                "textDocumentSync": ["openClose": true, "change": 1, "save": ["includeText": false]],
                "workspaceSymbolProvider": true,
                "referencesProvider": true,
                "hoverProvider": true,
                "documentSymbolProvider": true,
                "codeLensProvider": ["resolveProvider": false],
                "executeCommandProvider": ["commands": .from(LanguageServer.commands)],
                "workspace": [
                    "workspaceFolders": ["supported": true, "changeNotifications": false],
                    "fileOperations": ["didRename": ["filters": [["scheme": "file", "pattern": ["glob": "**/*"]]]]],
                ],
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

    func filesChanged(_ uris: [String]) {
        guard let s = current.withLock({ $0 }) else { return }
        let paths = uris.compactMap { FileURI.path($0).map(NotesFolder.standardized) }
        if !paths.isEmpty { s.indexer.filesChanged(paths) }
    }

    /// A save: the file is what is indexed now (its unsaved text, if any, is forgotten).
    func saved(_ uri: String) {
        guard let s = current.withLock({ $0 }), let path = FileURI.path(uri).map(NotesFolder.standardized) else { return }
        s.indexer.buffers.forget(path)
        s.indexer.filesChanged([path])
    }

    /// An edit (full text, as the server asks): indexed after `editDelayMs` without another one.
    func edited(_ params: JSONValue?) {
        guard let s = current.withLock({ $0 }), let uri = params?["textDocument"]?["uri"]?.stringValue,
              let path = FileURI.path(uri).map(NotesFolder.standardized), s.indexer.fileName(of: path) != nil else { return }
        guard let change = params?["contentChanges"]?.arrayValue?.last, change["range"] == nil, let text = change["text"]?.stringValue else {
            log(.warning, "kindred: an edit of \(uri) without the document's full text was ignored (the server asks for full text)")
            return
        }
        let indexer = s.indexer
        indexer.buffers.changed(path, text: text) { indexer.filesChanged([path]) }
    }

    /// Closed without saving: the file on disk counts again.
    func closed(_ uri: String) {
        guard let s = current.withLock({ $0 }), let path = FileURI.path(uri).map(NotesFolder.standardized) else { return }
        if s.indexer.buffers.forget(path) { s.indexer.filesChanged([path]) }
    }

    /// Renamed files or folders: the notes under the old and the new names, indexed together so
    /// that the entries keep their ids.
    func renamed(_ pairs: [(String, String)]) {
        guard let s = current.withLock({ $0 }) else { return }
        var paths: [String] = []
        for (old, new) in pairs {
            guard let from = FileURI.path(old).map(NotesFolder.standardized), let to = FileURI.path(new).map(NotesFolder.standardized) else { continue }
            let moved = s.indexer.table.files.filter { $0 == from || $0.hasPrefix(from + "/") }.sorted()
            paths += moved
            paths += moved.map { to + $0.dropFirst(from.count) }
            if moved.isEmpty { paths.append(to) }
            // The old name's unsaved text follows the document.
            if let text = s.indexer.buffers.text(from) {
                s.indexer.buffers.forget(from)
                s.indexer.buffers.changed(to, text: text) {}
            }
        }
        if !paths.isEmpty { s.indexer.filesChanged(paths) }
    }

    /// `workspace/didChangeWatchedFiles` for the notes' extensions, when the client registers watchers for a server.
    func registerWatchers(_ server: Server, _ indexer: NotesIndexer) {
        guard server.clientCapabilities?["workspace"]?["didChangeWatchedFiles"]?["dynamicRegistration"]?.boolValue == true else { return }
        var globs: [String] = []
        for g in indexer.folders.flatMap(\.watchedGlobs) where !globs.contains(g) { globs.append(g) }
        let registration: JSONValue = ["registrations": [[
            "id": "kindred-notes", "method": "workspace/didChangeWatchedFiles",
            "registerOptions": ["watchers": .array(globs.map { ["globPattern": .string($0)] })],
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
        let arguments = try CommandArguments(params?["arguments"])
        switch command {
        case "kindred.findings":
            let answer = try s.requests.findingsCommand(arguments, ctx)
            if try arguments.bool("show") == true, let finding = answer["findings"]?[0], let server = server.withLock({ $0 }) {
                // Answered at once; the list waits for the person's choice.
                DispatchQueue.global().async { EntryPicker(server: server).show(finding) }
            }
            return answer
        case "kindred.dismiss": return try s.requests.dismissCommand(arguments, ctx)
        case "kindred.search": return try s.requests.searchCommand(arguments, ctx)
        case "kindred.refreshPatterns":
            try arguments.only([])
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
