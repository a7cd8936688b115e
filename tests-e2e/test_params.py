"""Strict params over the real binary: unknown keys are refused by name on every method, while
`initialize` takes everything an LSP client sends."""

import pytest

from conftest import INVALID_PARAMS, LIMIT_EXCEEDED, record, vec

# What VS Code (1.9x) sends, trimmed of nothing that matters: many fields the server does not use.
VSCODE_INITIALIZE = {
    "processId": 31337,
    "clientInfo": {"name": "Visual Studio Code", "version": "1.95.3"},
    "locale": "en",
    "rootPath": "/home/ana/notes",
    "rootUri": "file:///home/ana/notes",
    "initializationOptions": {"kindred": {"owner": "ana"}, "trace": True},
    "capabilities": {
        "workspace": {
            "applyEdit": True,
            "workspaceEdit": {"documentChanges": True, "resourceOperations": ["create", "rename", "delete"],
                              "failureHandling": "textOnlyTransactional", "normalizesLineEndings": True,
                              "changeAnnotationSupport": {"groupsOnLabel": True}},
            "configuration": True,
            "didChangeWatchedFiles": {"dynamicRegistration": True, "relativePatternSupport": True},
            "symbol": {"dynamicRegistration": True, "symbolKind": {"valueSet": list(range(1, 27))},
                       "tagSupport": {"valueSet": [1]}, "resolveSupport": {"properties": ["location.range"]}},
            "codeLens": {"refreshSupport": True},
            "executeCommand": {"dynamicRegistration": True},
            "didChangeConfiguration": {"dynamicRegistration": True},
            "workspaceFolders": True,
            "semanticTokens": {"refreshSupport": True},
            "fileOperations": {"dynamicRegistration": True, "didCreate": True, "didRename": True, "didDelete": True,
                               "willCreate": True, "willRename": True, "willDelete": True},
            "inlineValue": {"refreshSupport": True},
            "inlayHint": {"refreshSupport": True},
            "diagnostics": {"refreshSupport": True},
        },
        "textDocument": {
            "publishDiagnostics": {"relatedInformation": True, "versionSupport": False, "tagSupport": {"valueSet": [1, 2]},
                                   "codeDescriptionSupport": True, "dataSupport": True},
            "synchronization": {"dynamicRegistration": True, "willSave": True, "willSaveWaitUntil": True, "didSave": True},
            "completion": {"dynamicRegistration": True, "contextSupport": True,
                           "completionItem": {"snippetSupport": True, "commitCharactersSupport": True,
                                              "documentationFormat": ["markdown", "plaintext"], "deprecatedSupport": True,
                                              "preselectSupport": True, "tagSupport": {"valueSet": [1]},
                                              "insertReplaceSupport": True,
                                              "resolveSupport": {"properties": ["documentation", "detail", "additionalTextEdits"]},
                                              "insertTextModeSupport": {"valueSet": [1, 2]}, "labelDetailsSupport": True},
                           "insertTextMode": 2, "completionItemKind": {"valueSet": list(range(1, 26))},
                           "completionList": {"itemDefaults": ["commitCharacters", "editRange", "insertTextFormat", "insertTextMode", "data"]}},
            "hover": {"dynamicRegistration": True, "contentFormat": ["markdown", "plaintext"]},
            "signatureHelp": {"dynamicRegistration": True,
                              "signatureInformation": {"documentationFormat": ["markdown", "plaintext"],
                                                       "parameterInformation": {"labelOffsetSupport": True},
                                                       "activeParameterSupport": True},
                              "contextSupport": True},
            "definition": {"dynamicRegistration": True, "linkSupport": True},
            "references": {"dynamicRegistration": True},
            "documentHighlight": {"dynamicRegistration": True},
            "documentSymbol": {"dynamicRegistration": True, "hierarchicalDocumentSymbolSupport": True,
                               "symbolKind": {"valueSet": list(range(1, 27))}, "tagSupport": {"valueSet": [1]},
                               "labelSupport": True},
            "codeAction": {"dynamicRegistration": True, "isPreferredSupport": True, "disabledSupport": True,
                           "dataSupport": True, "resolveSupport": {"properties": ["edit"]},
                           "codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["", "quickfix", "refactor", "source"]}},
                           "honorsChangeAnnotations": True},
            "formatting": {"dynamicRegistration": True},
            "rename": {"dynamicRegistration": True, "prepareSupport": True, "prepareSupportDefaultBehavior": 1,
                       "honorsChangeAnnotations": True},
            "foldingRange": {"dynamicRegistration": True, "rangeLimit": 5000, "lineFoldingOnly": True,
                             "foldingRangeKind": {"valueSet": ["comment", "imports", "region"]},
                             "foldingRange": {"collapsedText": False}},
            "semanticTokens": {"dynamicRegistration": True, "tokenTypes": ["namespace", "type", "class"],
                               "tokenModifiers": ["declaration", "definition"], "formats": ["relative"],
                               "requests": {"range": True, "full": {"delta": True}}, "multilineTokenSupport": False,
                               "overlappingTokenSupport": False, "serverCancelSupport": True, "augmentsSyntaxTokens": True},
            "inlayHint": {"dynamicRegistration": True, "resolveSupport": {"properties": ["tooltip", "textEdits", "label.tooltip"]}},
            "diagnostic": {"dynamicRegistration": True, "relatedDocumentSupport": False},
        },
        "window": {"showMessage": {"messageActionItem": {"additionalPropertiesSupport": True}},
                   "showDocument": {"support": True}, "workDoneProgress": True},
        "general": {"staleRequestSupport": {"cancel": True, "retryOnContentModified": ["textDocument/semanticTokens/full"]},
                    "regularExpressions": {"engine": "ECMAScript", "version": "ES2020"},
                    "markdown": {"parser": "marked", "version": "1.1.0"},
                    "positionEncodings": ["utf-16"]},
        "notebookDocument": {"synchronization": {"dynamicRegistration": True, "executionSummarySupport": True}},
        "experimental": {"snippetTextEdit": True},
    },
    "trace": "off",
    "workspaceFolders": [{"uri": "file:///home/ana/notes", "name": "notes"}],
    "workDoneToken": "init-1",
    "someFutureField": {"anything": [1, "two", None]},
}


@pytest.mark.parametrize("framing", ["ndjson", "lsp"])
def test_initialize_accepts_a_full_lsp_initialize_params(spawn, framing):
    srv = spawn(framing)
    result = srv.result("initialize", VSCODE_INITIALIZE)
    assert result["serverInfo"]["name"] == "kindred"
    srv.notify("initialized", {})
    assert srv.result("index/status", {"owner": "ana"})["records"] == 0


def test_every_method_refuses_an_unknown_key_by_name(spawn):
    srv = spawn()
    methods = [m for m in srv.initialize()["capabilities"]["methods"] if m not in ("initialize", "shutdown")]
    assert len(methods) >= 17
    for method in methods:
        e = srv.error(method, {"bogusKey": 1, "workDoneToken": "t"})
        assert e["code"] == INVALID_PARAMS, method
        assert e["data"]["field"] == "bogusKey", method
        assert "bogusKey" in e["message"], method
        assert "workDoneToken" in e["data"]["accepted"], method


def test_misspelt_and_misplaced_keys_are_refused_not_ignored(server):
    server.result("records/upsert", {"owner": "ana", "records": [
        record("n1", text="dentist on thursday", kind="note", vector_seed=1),
        record("n2", text="dentist bill paid", kind="bill", vector_seed=2)]})
    # `filter` for `filters` used to return unfiltered results.
    e = server.error("search/query", {"owner": "ana", "text": "dentist", "mode": "keyword", "filter": {"kinds": ["bill"]}})
    assert e["code"] == INVALID_PARAMS and e["data"]["field"] == "filter"
    found = server.result("search/query", {"owner": "ana", "text": "dentist", "mode": "keyword", "filters": {"kinds": ["bill"]}})
    assert [r["id"] for r in found["results"]] == ["n2"]
    e = server.error("patterns/findings", {"owner": "ana", "kind": ["note"]})
    assert e["code"] == INVALID_PARAMS and e["data"]["field"] == "kind"
    e = server.error("records/upsert", {"owner": "ana", "records": [record("n3"), record("n4", permission={"search": False})]})
    assert e["data"]["field"] == "records[1].permission"
    assert server.error("records/get", {"owner": "ana", "id": "n3"})["code"] != INVALID_PARAMS  # nothing was written
    e = server.error("patterns/correct", {"owner": "ana", "correction": {"kind": "dismiss", "groupId": 1, "occurrenceId": 2, "moveOut": [3]}})
    assert e["data"]["field"] == "correction.moveOut"


def test_integral_numbers_are_integers_and_nul_is_refused_in_names(server):
    # The JSON text is written by hand so that the numbers keep their spelling.
    server.send('{"jsonrpc":"2.0","id":"up","method":"records/upsert","params":{"owner":"ana","records":'
                '[{"id":"n1","revision":1.0,"text":"x","vector":%s}]}}' % vec(1))
    assert server.response("up")["result"]["results"][0]["status"] == "created"
    server.send('{"jsonrpc":"2.0","id":"q","method":"search/query","params":{"owner":"ana","text":"x","limit":1e5}}')
    assert server.response("q")["error"]["code"] == LIMIT_EXCEEDED
    server.send('{"jsonrpc":"2.0","id":"q2","method":"search/query","params":{"owner":"ana","vector":%s,"limit":1E0}}' % vec(1))
    assert [r["id"] for r in server.response("q2")["result"]["results"]] == ["n1"]
    for params, field in [({"owner": "ana\u0000mallory", "id": "n1"}, "owner"), ({"owner": "ana", "id": "n1\u0000zzz"}, "id")]:
        e = server.error("records/get", params)
        assert e["code"] == INVALID_PARAMS and e["data"]["field"] == field
    e = server.error("records/delete", {"owner": "ana", "ids": ["n1\u0000zzz"]})
    assert e["data"]["field"] == "ids[0]"
    assert server.result("records/get", {"owner": "ana", "id": "n1"})["record"]["revision"] == 1
    e = server.error("search/query", {"owner": "ana", "vector": [1e-30] * len(vec(1))})
    assert e["code"] == INVALID_PARAMS and e["data"]["field"] == "vector"
