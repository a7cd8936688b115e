"""`kindred lsp` driven by a real language client (pytest-lsp, on pygls) over the real binary, on a
folder of notes made from the bundled journal: indexing with progress, workspace symbols as search,
references as similar entries, hover as patterns, document symbols, saves and deletions, bad files."""

import asyncio
import os
import pathlib
import sqlite3
import time

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

import notes_folder
from conftest import BIN, TIMEOUT

INDEX_TIMEOUT = max(TIMEOUT, 300)
CONFIG = ClientServerConfig(server_command=[BIN, "lsp"], server_env={**os.environ, "KINDRED_OBSERVE_BOOT": ""})


@pytest.fixture(scope="module")
def notes(tmp_path_factory):
    root = tmp_path_factory.mktemp("notes")
    return root, notes_folder.make(root)


def capabilities():
    return types.ClientCapabilities(
        window=types.WindowClientCapabilities(work_done_progress=True, show_document=types.ShowDocumentClientCapabilities(support=True)),
        workspace=types.WorkspaceClientCapabilities(
            did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(dynamic_registration=True)))


async def start(client, root):
    client.registrations = []

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams):
        client.registrations.append(params)

    result = await client.initialize_session(types.InitializeParams(
        capabilities=capabilities(), root_uri=root.as_uri(), workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="notes")]))
    await indexed(client)
    return result


async def indexed(client):
    """Waits until the folder is indexed and its patterns refreshed; returns the "indexed …" log message."""
    deadline = time.monotonic() + INDEX_TIMEOUT
    while time.monotonic() < deadline:
        done = [m.message for m in client.log_messages if m.message.startswith("kindred: indexed")]
        if done and any(m.message.startswith("kindred: patterns refreshed") for m in client.log_messages):
            return done[0]
        await asyncio.sleep(0.05)
    raise AssertionError(f"not indexed within {INDEX_TIMEOUT}s: {[m.message for m in client.log_messages]}")


@pytest_lsp.fixture(scope="module", config=CONFIG)
async def client(lsp_client: LanguageClient, notes):
    lsp_client.initialize_result = await start(lsp_client, notes[0])
    yield
    await lsp_client.shutdown_session()


def uri(root, file):
    return (pathlib.Path(root) / file).as_uri()


def located(where, location):
    """The journal id whose section holds `location` (file and first line), or the location itself."""
    for jid, (file, start, end) in where.items():
        if location.uri.endswith("/" + file) and start <= location.range.start.line <= end:
            return jid
    return (location.uri, location.range.start.line)


async def search(client, query):
    return await asyncio.wait_for(client.workspace_symbol_async(types.WorkspaceSymbolParams(query=query)), TIMEOUT)


def stored(root):
    with sqlite3.connect(pathlib.Path(root) / ".kindred" / "notes.sqlite") as db:
        return {row[0]: (row[1], row[2]) for row in db.execute("SELECT id, revision, metadata FROM records WHERE owner = 'notes'")}


pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_initialize_advertises_what_is_implemented(client, notes):
    caps = client.initialize_result.capabilities
    assert client.initialize_result.server_info.name == "kindred"
    assert caps.workspace_symbol_provider and caps.references_provider and caps.hover_provider and caps.document_symbol_provider
    assert list(caps.execute_command_provider.commands) == ["kindred.refreshPatterns", "kindred.findings", "kindred.dismiss", "kindred.search"]
    assert caps.text_document_sync.save is not None and caps.text_document_sync.change == types.TextDocumentSyncKind.Full
    assert caps.code_lens_provider is not None and caps.workspace.file_operations.did_rename is not None
    assert caps.completion_provider is None and caps.definition_provider is None
    # The notes' watchers were registered, for the extensions indexed.
    watchers = [w for r in client.registrations for reg in r.registrations for w in reg.register_options["watchers"]]
    assert watchers == [{"globPattern": "**/*.{markdown,md,txt}"}]


async def test_indexing_reports_progress_and_writes_one_record_per_entry(client, notes):
    root, where = notes
    (token, reports), = client.progress_reports.items()
    assert reports[0].kind == "begin" and reports[0].title == "Indexing notes" and reports[0].cancellable
    assert reports[-1].kind == "end" and reports[-1].message.startswith("indexed 338 entries in 16 files")
    percentages = [r.percentage for r in reports if r.kind == "report"]
    assert percentages and percentages == sorted(percentages) and all(0 <= p <= 100 for p in percentages)
    assert any(r.message.startswith("embedded") for r in reports if r.kind == "report")

    records = stored(root)
    assert len(records) == 338, "336 dated sections, the idea and the shopping list"
    import json
    revision, metadata = records["journal/2025-01.md#2025-01-04"]
    file, start, end = where["j-0002"]
    assert revision == 1 and json.loads(metadata) == {"file": file, "startLine": start + 1, "endLine": end + 1, "section": "2025-01-04"}
    assert "ideas/2025-03-15.md" in records and "shopping.txt" in records
    with sqlite3.connect(root / ".kindred" / "notes.sqlite") as db:
        dates = dict(db.execute("SELECT id, date FROM records WHERE id IN ('ideas/2025-03-15.md', 'shopping.txt')"))
    assert dates == {"ideas/2025-03-15.md": "2025-03-15", "shopping.txt": None}, "a file name that is a date dates its note"
    assert not any(".private" in i for i in records), "hidden folders are skipped"
    assert not any(i.startswith("scan.md") for i in records)
    # A date repeated in a file: the second section gets its own id.
    assert sum(1 for i in records if "~2" in i) == 1
    assert not (root / "journal" / ".kindred").exists() and (root / ".kindred" / ".gitignore").read_text().strip().endswith("*")


async def test_a_file_that_is_not_utf8_is_skipped_with_a_message(client, notes):
    warnings = [m for m in client.log_messages if m.type == types.MessageType.Warning]
    assert any("scan.md" in m.message and "not UTF-8" in m.message for m in warnings), [m.message for m in client.log_messages]


async def test_workspace_symbol_is_a_search_that_finds_the_entry(client, notes):
    root, where = notes
    missed_train = set(notes_folder.situations()["missed-train"])
    hits = await search(client, "the dream where I kept missing a train")
    assert hits, "no hits"
    first = hits[0]
    assert located(where, first.location) in missed_train
    assert first.kind == types.SymbolKind.String and first.container_name[:4] == "2025"
    file, start, end = where[located(where, first.location)]
    # The location is the best passage, inside the entry's lines, and the name is its text.
    assert start < first.location.range.start.line <= first.location.range.end.line <= end
    # One line, cut at a word with "…" when long: the start of the passage.
    assert "\n" not in first.name and len(first.name) <= 121 and first.name.startswith(" ".join(first.name.split()[:6]))
    assert sum(located(where, h.location) in missed_train for h in hits[:5]) >= 4
    assert await search(client, "") == []
    # The note dated by its file name and the plain text file are entries too.
    nook = await search(client, "a quiet corner with an armchair to read in")
    assert nook[0].location.uri == uri(root, "ideas/2025-03-15.md")
    # A file without dated sections is one entry, its heading included.
    assert nook[0].location.range.start.line == 0 and nook[0].container_name == "A reading nook"


async def test_references_are_the_most_similar_entries(client, notes):
    root, where = notes
    missed_train = set(notes_folder.situations()["missed-train"])
    file, start, end = where["j-0002"]
    refs = await asyncio.wait_for(client.text_document_references_async(types.ReferenceParams(
        text_document=types.TextDocumentIdentifier(uri=uri(root, file)), position=types.Position(line=end, character=3),
        context=types.ReferenceContext(include_declaration=False))), TIMEOUT)
    ids = [located(where, r.location if hasattr(r, "location") else r) for r in refs]
    assert "j-0002" not in ids
    print("references of j-0002:", ids)
    assert len(ids) == 20 and len(set(ids)) == 20
    # The journal's look-alikes (other journeys, other lateness) are near too: the situation's own
    # entries are several of the nearest, far above the 11 in 337 of chance.
    assert sum(i in missed_train for i in ids[:10]) >= 3, ids[:10]
    # Each location is a whole entry: heading to last line.
    f, s, e = where[ids[0]]
    assert (refs[0].range.start.line, refs[0].range.end.line) == (s, e)
    # Between entries there is nothing to compare.
    none = await client.text_document_references_async(types.ReferenceParams(
        text_document=types.TextDocumentIdentifier(uri=uri(root, file)), position=types.Position(line=0, character=0),
        context=types.ReferenceContext(include_declaration=False)))
    assert list(none) == []


async def test_hover_names_the_patterns_of_the_entry(client, notes):
    root, where = notes
    missed_train = set(notes_folder.situations()["missed-train"])
    file, start, end = where["j-0002"]
    hover = await asyncio.wait_for(client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri(root, file)), position=types.Position(line=start + 2, character=0))), TIMEOUT)
    assert hover is not None and hover.contents.kind == types.MarkupKind.Markdown
    text = hover.contents.value
    assert "recurs:" in text and " of 338 entries" in text, text
    assert (hover.range.start.line, hover.range.end.line) == (start, end)
    linked = []
    for part in text.split("](")[1:]:
        target = part.split(")")[0]
        path, line = target.split("#L")
        linked.append(located(where, types.Location(uri=path, range=types.Range(
            start=types.Position(line=int(line) - 1, character=0), end=types.Position(line=int(line) - 1, character=0)))))
    print("hover of j-0002 links:", linked)
    assert linked and sum(i in missed_train for i in linked) >= len(linked) * 0.6, linked
    # An entry no pattern holds has no hover.
    nook = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri(root, "ideas/2025-03-15.md")), position=types.Position(line=2, character=0)))
    assert nook is None


async def test_document_symbols_are_the_dated_entries_of_the_file(client, notes):
    root, where = notes
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(
        text_document=types.TextDocumentIdentifier(uri=uri(root, "journal/2025-01.md"))))
    january = sorted((s, e) for jid, (f, s, e) in where.items() if f == "journal/2025-01.md")
    assert [(s.range.start.line, s.range.end.line) for s in symbols] == january
    assert all(s.name.startswith("2025-01-") and s.kind == types.SymbolKind.Event for s in symbols)


async def test_refresh_patterns_command(client, notes):
    result = await asyncio.wait_for(client.workspace_execute_command_async(types.ExecuteCommandParams(command="kindred.refreshPatterns")), TIMEOUT)
    assert result["activeGroups"] >= 5 and result["recordsGrouped"] >= 20
    with pytest.raises(Exception) as e:
        await client.workspace_execute_command_async(types.ExecuteCommandParams(command="kindred.frobnicate"))
    assert "command" in str(e.value) and "kindred.refreshPatterns" in str(e.value)
    with pytest.raises(Exception) as e:
        await client.workspace_execute_command_async(types.ExecuteCommandParams(command="kindred.refreshPatterns", arguments=[{"owner": "x"}]))
    assert "arguments[0].owner" in str(e.value)


async def execute(client, command, *arguments):
    return await asyncio.wait_for(client.workspace_execute_command_async(types.ExecuteCommandParams(
        command=command, arguments=list(arguments) if arguments else None)), TIMEOUT)


async def lenses(client, root, file):
    return await asyncio.wait_for(client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=uri(root, file)))), TIMEOUT)


def entry_ids(where, entries):
    return [located(where, types.Location(uri=e["uri"], range=types.Range(
        start=types.Position(**e["range"]["start"]), end=types.Position(**e["range"]["end"])))) for e in entries]


async def test_code_lens_names_the_patterns_of_each_entry_and_lists_them(client, notes):
    root, where = notes
    missed_train = set(notes_folder.situations()["missed-train"])
    file, start, end = where["j-0002"]
    found = await lenses(client, root, file)
    # Every lens sits on an entry's heading line: a pattern's name and count, then "not part of it".
    headings = {s for f, s, e in where.values() if f == file}
    assert found and all(lens.range.start.line in headings for lens in found)
    mine = [lens for lens in found if lens.range.start.line == start]
    recurs = [lens for lens in mine if lens.command.command == "kindred.findings"]
    assert recurs and all(lens.command.title.startswith(("recurs: ", "related: ")) and lens.command.title.endswith(" entries") for lens in recurs)
    dismiss = [lens for lens in mine if lens.command.command == "kindred.dismiss"]
    assert all(list(r.command.arguments) == [{"groupId": r.command.arguments[0]["groupId"], "show": True}] for r in recurs)
    assert [list(d.command.arguments) for d in dismiss] == [[{"groupId": r.command.arguments[0]["groupId"], "id": "journal/2025-01.md#2025-01-04"}]
                                                           for r in recurs]
    # The lens's command lists the pattern's entries: the one under the cursor among them, most of
    # them the missed-train dreams, as many as the title says.
    lens = recurs[0]
    asked = []

    @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    def pick(params: types.ShowMessageRequestParams):
        asked.append(params)
        return params.actions[1]

    listed = await execute(client, lens.command.command, *lens.command.arguments)
    finding, = listed["findings"]
    ids = entry_ids(where, finding["entries"])
    print("code lens", lens.command.title, ids)
    assert "j-0002" in ids and sum(i in missed_train for i in ids) >= len(ids) * 0.6, ids
    assert lens.command.title == f"recurs: {finding['label']} · {finding['records']} entries" == f"recurs: {finding['label']} · {len(ids)} entries"
    # The editor shows the list (a message whose actions are the entries); the one picked is opened at its lines.
    deadline = time.monotonic() + TIMEOUT
    while not client.shown_documents and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    (question,) = asked
    assert question.message == lens.command.title
    assert [a.title for a in question.actions] == [f"{k + 1}. {e['title']}" for k, e in enumerate(finding["entries"])]
    (shown,) = client.shown_documents
    second = finding["entries"][1]
    assert shown.uri == second["uri"] and shown.take_focus and shown.selection.start.line == second["range"]["start"]["line"]
    # An entry that no pattern holds has no lens.
    assert list(await lenses(client, root, "ideas/2025-03-15.md")) == []


async def test_findings_command_lists_every_pattern_and_refuses_unknown_arguments(client, notes):
    root, where = notes
    listed = await execute(client, "kindred.findings")
    assert listed["eligible"] == 338 and len(listed["findings"]) >= 5
    assert all(f["entries"] and f["records"] == len(f["entries"]) for f in listed["findings"])
    assert [f["kind"] for f in listed["findings"]] == sorted((f["kind"] for f in listed["findings"]), key=lambda k: k != "recurring")
    for arguments, field in [({"group": 1}, "arguments[0].group"), ({"groupId": "1"}, "arguments[0].groupId"),
                             ({"groupId": 99999}, "arguments[0].groupId"), ("x", "arguments[0]")]:
        with pytest.raises(Exception) as e:
            await execute(client, "kindred.findings", arguments)
        assert field in str(e.value), (arguments, str(e.value))


async def test_search_command_with_a_mode_and_a_kind(client, notes):
    root, where = notes
    missed_train = set(notes_folder.situations()["missed-train"])
    for mode in ["hybrid", "semantic", "keyword"]:
        found = await execute(client, "kindred.search", {"query": "missed the train platform", "mode": mode, "limit": 5})
        assert found["mode"] == mode and len(found["hits"]) == 5
        ids = entry_ids(where, found["hits"])
        assert sum(i in missed_train for i in ids) >= 2, (mode, ids)
        hit = found["hits"][0]
        assert hit["kind"] == "note" and hit["title"].startswith("2025-") and hit["date"] == hit["title"][:10]
        assert hit["range"]["start"]["line"] <= hit["passage"]["range"]["start"]["line"] <= hit["range"]["end"]["line"]
    # Keyword mode finds the words themselves: the shopping list's gloves.
    gloves = await execute(client, "kindred.search", {"query": "gardening gloves", "mode": "keyword", "kind": "note"})
    assert gloves["hits"][0]["uri"] == uri(root, "shopping.txt")
    assert (await execute(client, "kindred.search", {"query": "gardening gloves", "kind": "dream"}))["hits"] == []
    for arguments, field in [({"query": "x", "mode": "fuzzy"}, "arguments[0].mode"), ({"mode": "keyword"}, "arguments[0].query"),
                             ({"query": "x", "kinds": ["note"]}, "arguments[0].kinds"), ({"query": "x", "limit": 0}, "arguments[0].limit"),
                             ({"query": "x", "kind": 3}, "arguments[0].kind")]:
        with pytest.raises(Exception) as e:
            await execute(client, "kindred.search", arguments)
        assert field in str(e.value), (arguments, str(e.value))


async def test_dismiss_takes_the_entry_out_of_the_pattern_and_survives_a_refresh(client, notes):
    root, where = notes
    file, start, end = where["j-0002"]
    dismiss = next(lens for lens in await lenses(client, root, file)
                   if lens.range.start.line == start and lens.command.command == "kindred.dismiss")
    group = dismiss.command.arguments[0]["groupId"]
    before = entry_ids(where, (await execute(client, "kindred.findings", {"groupId": group}))["findings"][0]["entries"])
    assert "j-0002" in before
    # The entry given by its place works as well as by id; a wrong one is refused, naming the field.
    with pytest.raises(Exception) as e:
        await execute(client, "kindred.dismiss", {"groupId": group, "uri": uri(root, file), "line": 0})
    assert "arguments[0].line" in str(e.value)
    with pytest.raises(Exception) as e:
        await execute(client, "kindred.dismiss", {"groupId": group, "id": "ideas/2025-03-15.md"})
    assert "arguments[0].groupId" in str(e.value) and "not part of pattern" in str(e.value)
    with pytest.raises(Exception) as e:
        await execute(client, "kindred.dismiss", {"groupId": group, "id": "journal/2025-01.md#2025-01-04", "why": "x"})
    assert "arguments[0].why" in str(e.value)
    answer = await execute(client, "kindred.dismiss", {"groupId": group, "uri": uri(root, file), "line": start + 1, "note": "not a train"})
    assert answer["id"] == "journal/2025-01.md#2025-01-04" and answer["correctionId"] >= 1

    def still_out(findings):
        for f in findings:
            if f["groupId"] == group:
                assert "j-0002" not in entry_ids(where, f["entries"])
                return f

    assert still_out((await execute(client, "kindred.findings"))["findings"]) is not None
    assert all(lens.command.arguments[0]["groupId"] != group for lens in await lenses(client, root, file) if lens.range.start.line == start)
    # A refresh keeps the correction: the entry stays out of that pattern, the others stay in.
    await execute(client, "kindred.refreshPatterns")
    kept = still_out((await execute(client, "kindred.findings"))["findings"])
    assert kept is not None and len(set(entry_ids(where, kept["entries"])) & set(before)) >= len(before) - 2
    assert all(lens.command.arguments[0]["groupId"] != group for lens in await lenses(client, root, file) if lens.range.start.line == start)
    with sqlite3.connect(root / ".kindred" / "notes.sqlite") as db:
        import json
        bodies = [json.loads(b) for b, in db.execute("SELECT body FROM pattern_corrections WHERE owner = 'notes' AND undone = 0")]
    assert [(list(b["kind"]), b["kind"]["dismiss"]["group"], b["records"], b["note"]) for b in bodies] == [
        (["dismiss"], group, ["journal/2025-01.md#2025-01-04"], "not a train")], bodies


async def test_a_saved_edit_is_searchable_at_once(client, notes):
    root, where = notes
    path = root / "journal" / "2025-02.md"
    before = stored(root)
    text = path.read_text(encoding="utf-8")
    path.write_text(text + "\n## 2025-02-28\n\nWe built a wooden kayak in the garage with Marta and painted it canary yellow.\n",
                    encoding="utf-8")
    started = time.monotonic()
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=path.as_uri())))
    hits = await search(client, "painting the boat we made yellow")
    latency = time.monotonic() - started
    assert hits[0].location.uri == path.as_uri() and "kayak" in hits[0].name, [h.name for h in hits[:3]]
    last_line = len(path.read_text(encoding="utf-8").splitlines()) - 1
    assert hits[0].location.range.start.line == last_line
    print(f"save to searchable: {latency * 1000:.0f} ms")
    after = stored(root)
    assert set(after) - set(before) in ({"journal/2025-02.md#2025-02-28"}, {"journal/2025-02.md#2025-02-28~2"})
    # Only that file's new entry was written; the others kept their revisions.
    assert {i: r for i, (r, _) in after.items() if i in before} == {i: r for i, (r, _) in before.items()}

    # Editing an entry moves its revision forward.
    path.write_text(path.read_text(encoding="utf-8").replace("canary yellow", "deep green"), encoding="utf-8")
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=path.as_uri())))
    hits = await search(client, "the kayak painted deep green")
    assert "green" in hits[0].name
    new_id, = set(after) - set(before)
    assert stored(root)[new_id][0] == 2


async def test_a_deleted_file_leaves_search(client, notes):
    root, where = notes
    path = root / "ideas" / "2025-03-15.md"
    assert (await search(client, "a quiet corner with an armchair to read in"))[0].location.uri == path.as_uri()
    path.unlink()
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
        changes=[types.FileEvent(uri=path.as_uri(), type=types.FileChangeType.Deleted)]))
    # A bad file appearing outside the editor is reported, and the rest goes on.
    bad = root / "later.txt"
    bad.write_bytes(b"\xc3\x28 broken\n")
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
        changes=[types.FileEvent(uri=bad.as_uri(), type=types.FileChangeType.Created)]))
    hits = await search(client, "a quiet corner with an armchair to read in")
    assert all(h.location.uri != path.as_uri() for h in hits)
    assert "ideas/2025-03-15.md" not in stored(root)
    assert any("later.txt" in m.message and "not UTF-8" in m.message for m in client.log_messages)


async def wait_for_hit(client, query, predicate, timeout=30):
    """Searches until a hit satisfies `predicate`; returns (hits, seconds)."""
    started = time.monotonic()
    while True:
        hits = await search(client, query)
        if hits and predicate(hits[0]):
            return hits, time.monotonic() - started
        assert time.monotonic() - started < timeout, [h.name for h in hits[:3]]
        await asyncio.sleep(0.05)


async def test_an_unsaved_edit_is_searchable_after_a_quiet_time_and_the_file_is_not_written(client, notes):
    root, where = notes
    path = root / "journal" / "2025-04.md"
    on_disk = path.read_bytes()
    text = on_disk.decode("utf-8")
    doc = types.VersionedTextDocumentIdentifier(uri=path.as_uri(), version=1)
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=path.as_uri(), language_id="markdown", version=1, text=text)))
    before = stored(root)
    # Typing: five changes 50 ms apart, each with the document's full text; only the last is indexed.
    words = ["We", "We planted", "We planted a kumquat tree", "We planted a kumquat tree in a terracotta pot",
             "We planted a kumquat tree in a terracotta pot on the balcony and watered it with rain from the barrel."]
    started = time.monotonic()
    for i, typed in enumerate(words):
        doc.version = i + 2
        client.text_document_did_change(types.DidChangeTextDocumentParams(text_document=doc, content_changes=[
            types.TextDocumentContentChangeWholeDocument(text=text + "\n## 2025-04-30\n\n" + typed + "\n")]))
        await asyncio.sleep(0.05)
    hits, seconds = await wait_for_hit(client, "a kumquat tree in a pot on the balcony", lambda h: h.location.uri == path.as_uri())
    print(f"edit to searchable: {(time.monotonic() - started) * 1000:.0f} ms after the first change")
    assert hits[0].location.uri == path.as_uri() and "rain from the barrel" in hits[0].name
    assert path.read_bytes() == on_disk, "the note on disk is never written"
    new_id, = set(stored(root)) - set(before)
    assert new_id.startswith("journal/2025-04.md#2025-04-30") and stored(root)[new_id][0] == 1, "the typing in between was not written"
    # Closed without saving: the file on disk is what counts again.
    client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=path.as_uri())))
    hits = await search(client, "a kumquat tree in a pot on the balcony")
    assert all("kumquat" not in h.name for h in hits)
    assert new_id not in stored(root)


def note_ids(records, file):
    return {i: r for i, r in records.items() if i.startswith(file)}


async def test_renamed_files_keep_their_ids(client, notes):
    import json
    root, where = notes
    old, new = root / "journal" / "2025-05.md", root / "journal" / "may.md"
    before = stored(root)
    ids = {i: rev for i, (rev, _) in before.items() if json.loads(_)["file"] == "journal/2025-05.md"}
    assert len(ids) >= 20
    with sqlite3.connect(root / ".kindred" / "notes.sqlite") as db:
        tombstones = db.execute("SELECT count(*) FROM record_tombstones WHERE owner = 'notes'").fetchone()[0]

    def moved_to(file):
        now = stored(root)
        assert {i for i in now if json.loads(now[i][1])["file"] == file} == set(ids), "the same ids, in the new file"
        assert len(now) == len(before), "nothing added, nothing deleted"
        return {i: now[i][0] for i in ids}

    # workspace/didRenameFiles (the editor renamed it).
    old.rename(new)
    client.workspace_did_rename_files(types.RenameFilesParams(files=[types.FileRename(old_uri=old.as_uri(), new_uri=new.as_uri())]))
    await search(client, "")  # any request waits for the rename
    revisions = moved_to("journal/may.md")
    assert all(revisions[i] == ids[i] + 1 for i in ids), "metadata moved forward: the file"
    (first, start, end), = [where[j] for j in where if where[j][0] == "journal/2025-05.md"][:1]
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=new.as_uri())))
    assert symbols[0].range.start.line == start

    # A delete and a create of the same content in one notification (a tool outside the editor).
    new.rename(old)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=new.as_uri(), type=types.FileChangeType.Deleted), types.FileEvent(uri=old.as_uri(), type=types.FileChangeType.Created)]))
    await search(client, "")
    moved_to("journal/2025-05.md")
    # The same in two notifications: the deletion is indexed first (tombstones), the creation brings the ids back.
    old.rename(new)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=old.as_uri(), type=types.FileChangeType.Deleted)]))
    await search(client, "")
    assert not note_ids(stored(root), "journal/2025-05.md") and not any(json.loads(m)["file"] == "journal/may.md" for _, m in stored(root).values())
    with sqlite3.connect(root / ".kindred" / "notes.sqlite") as db:
        assert db.execute("SELECT count(*) FROM record_tombstones WHERE owner = 'notes'").fetchone()[0] >= tombstones + len(ids)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=new.as_uri(), type=types.FileChangeType.Created)]))
    await search(client, "")
    moved_to("journal/may.md")


async def test_unknown_document_and_bad_params_name_the_field(client, notes):
    root, _ = notes
    with pytest.raises(Exception) as e:
        await client.text_document_references_async(types.ReferenceParams(
            text_document=types.TextDocumentIdentifier(uri="untitled:1"), position=types.Position(line=0, character=0),
            context=types.ReferenceContext(include_declaration=False)))
    assert "textDocument.uri" in str(e.value) and "file: URI" in str(e.value)
    # A document outside the folders has no entries: nothing to show, no error.
    assert await client.text_document_document_symbol_async(types.DocumentSymbolParams(
        text_document=types.TextDocumentIdentifier(uri="file:///nowhere/x.md"))) == []


async def test_a_restart_writes_only_what_changed(tmp_path):
    root = tmp_path / "small"
    root.mkdir()
    where = notes_folder.make(root, notes_folder.journal()[:30])
    first = await CONFIG.start()
    try:
        await start(first, root)
        assert (await indexed(first)).startswith("kindred: indexed 32 entries in 4 files (32 written, 0 unchanged, 0 deleted, 1 files skipped)")
        await first.shutdown_session()
        assert first._server.returncode == 0
    finally:
        await first.stop()
    before = stored(root)
    # While no server runs: one entry edited, one file deleted.
    (root / "shopping.txt").unlink()
    january = root / "journal" / "2025-01.md"
    file, start_line, end_line = where["j-0002"]
    lines = january.read_text(encoding="utf-8").split("\n")
    lines[end_line] += " Then I woke up."
    january.write_text("\n".join(lines), encoding="utf-8")
    second = await CONFIG.start()
    try:
        await start(second, root)
        assert (await indexed(second)).startswith("kindred: indexed 31 entries in 3 files (1 written, 30 unchanged, 1 deleted, 1 files skipped)")
        after = stored(root)
        assert set(before) - set(after) == {"shopping.txt"}
        changed = {i for i in after if after[i][0] != before[i][0]}
        assert changed == {"journal/2025-01.md#2025-01-04"} and after["journal/2025-01.md#2025-01-04"][0] == 2
        await second.shutdown_session()
    finally:
        await second.stop()


async def test_the_initial_indexing_can_be_cancelled_from_its_progress(tmp_path):
    root = tmp_path / "cancelled"
    root.mkdir()
    notes_folder.make(root)
    client = await CONFIG.start()
    try:
        client.registrations = []
        await client.initialize_session(types.InitializeParams(capabilities=capabilities(), root_uri=root.as_uri()))
        deadline = time.monotonic() + TIMEOUT
        while not any(r for r in client.progress_reports.values()) and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        (token, reports), = client.progress_reports.items()
        client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
        while not any(m.message.startswith("kindred: indexed") for m in client.log_messages) and time.monotonic() < deadline + INDEX_TIMEOUT:
            await asyncio.sleep(0.05)
        message = next(m.message for m in client.log_messages if m.message.startswith("kindred: indexed"))
        assert message.endswith("; cancelled"), message
        assert client.progress_reports[token][-1].kind == "end"
        # The server goes on answering; what was written is searchable, and the next start goes on from there.
        assert isinstance(await search(client, "missing a train"), list)
        assert not any(m.message.startswith("kindred: patterns refreshed") for m in client.log_messages)
        await client.shutdown_session()
    finally:
        await client.stop()
