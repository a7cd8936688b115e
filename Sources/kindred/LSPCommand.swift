import Editor
import Foundation
import JSONRPC
import KindredCLI
import KindredCore
import Service

enum LSPCommand {
    static let help = """
        kindred lsp — a language server for a folder of notes (search, related entries, patterns)

        USAGE: kindred lsp [--db PATH] [--owner OWNER] [--config PATH] [--set key=value]...

        Speaks the Language Server Protocol (3.17, Content-Length framing) on stdin/stdout, for any
        editor that starts a language server. On start it indexes the *.md, *.markdown and *.txt
        files of the workspace folders (hidden folders and what .gitignore ignores are skipped;
        initializationOptions include/exclude choose other globs): a file is one entry, or one entry
        per dated section (## 2025-01-04). Saved files, unsaved edits (after a quiet time) and
        outside changes are indexed again; renamed files keep their entries' ids. The notes are
        only read. Answers workspace/symbol (a natural-language search), textDocument/references
        (the most similar entries), textDocument/hover (the entry's recurring patterns),
        textDocument/codeLens (the patterns above each entry), textDocument/documentSymbol (the
        file's entries) and the commands kindred.refreshPatterns, kindred.findings, kindred.dismiss
        and kindred.search. Settings and setting up VS Code, Neovim, Helix and Emacs: docs/editor.md.

        OPTIONS:
          --db PATH          SQLite file (default: .kindred/notes.sqlite in the first workspace folder)
          --owner OWNER      whose records the notes are in the database (default: notes)
          --config PATH      JSON configuration file; KINDRED_CONFIG also works
          --set key=value    override one configuration key
          --help             show this help

        Logs go to stderr and as window/logMessage; stdout carries only protocol messages.
        """

    static func run(_ argv: [String]) throws -> Int32 {
        let args = try Arguments(argv, valued: ServiceFactory.commonOptions.union(["owner"]), flags: ["help"])
        if args.has("help") { Output.out(help); return ExitCode.ok }
        guard args.positionals.isEmpty else { throw Arguments.UsageError(description: "unexpected argument '\(args.positionals[0])'") }
        let config = try ServiceFactory.config(args)
        let owner = args.value("owner") ?? "notes"
        // Protect the protocol stream: keep the real stdout for the writer, point fd 1 at stderr.
        signal(SIGPIPE, SIG_IGN)
        let protocolFD = dup(1)
        dup2(2, 1)
        let options = LanguageServer.Options(owner: owner, databasePath: args.value("db") ?? ProcessInfo.processInfo.environment["KINDRED_DB"],
                                             maxMessageBytes: Settings(config).rpc.maxMessageBytes)
        let server = LanguageServer(options: options, sink: FileDescriptorSink(fd: protocolFD)) { path in
            let service = try ServiceFactory.open(config: config, path: path)
            // The owner is read as every method reads it (non-empty, no NUL, NFC).
            _ = try service.call("index/status", ["owner": .string(owner)])
            return service
        }
        return server.run(read: Stdio.reader())
    }
}
