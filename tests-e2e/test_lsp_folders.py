"""`kindred lsp` on small folders, each with its own server: which files are notes (`.gitignore`,
the include and exclude globs), files that cannot be notes, a front matter's kind searched with a
mode, and a file renamed while no server ran."""

import asyncio
import json
import pathlib
import sqlite3
import subprocess

import pytest
from lsprotocol import types

from conftest import BIN, encode
from test_lsp import CONFIG, TIMEOUT, capabilities, indexed, stored

pytestmark = pytest.mark.asyncio(loop_scope="function")

SENTENCE = "We walked along the canal to the old mill and watched the herons fish in the reeds."


def write(root, files):
    for name, text in files.items():
        path = pathlib.Path(root) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")


async def session(root, options=None):
    client = await CONFIG.start()
    client.registrations = []

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams):
        client.registrations.append(params)

    await client.initialize_session(types.InitializeParams(capabilities=capabilities(), root_uri=pathlib.Path(root).as_uri(),
                                                           initialization_options=options))
    await indexed(client)
    return client


async def close(client):
    try:
        await client.shutdown_session()
    finally:
        await client.stop()


def files_of(root):
    return sorted({json.loads(m)["file"] for _, m in stored(root).values()})


async def test_gitignore_and_the_include_and_exclude_globs_choose_the_notes(tmp_path):
    root = tmp_path / "notes"
    write(root, {
        ".gitignore": "# the usual forms\ndrafts/\n*.tmp.md\n/private.md\narchive/**/old-*.md\n!keep.tmp.md\nbuild\n**/secret.md\n\\#hash.md\n",
        "kept.md": SENTENCE, "keep.tmp.md": SENTENCE, "scratch.tmp.md": SENTENCE, "private.md": SENTENCE, "sub/private.md": SENTENCE,
        "drafts/a.md": SENTENCE, "sub/drafts/b.md": SENTENCE, "drafts.md": SENTENCE,
        "archive/2024/old-1.md": SENTENCE, "archive/2024/new-1.md": SENTENCE, "archive/old-2.md": SENTENCE,
        "build/x.md": SENTENCE, "sub/build": "not a folder", "a/b/c/secret.md": SENTENCE, "#hash.md": SENTENCE,
        "sub/.gitignore": "local.md\n!scratch.tmp.md\n", "sub/local.md": SENTENCE, "local.md": SENTENCE, "sub/scratch.tmp.md": SENTENCE,
        "journal/2025/jan.md": SENTENCE, "journal/2025/jan.txt": SENTENCE, "journal/2024/dec.md": SENTENCE, "other.org": SENTENCE,
    })
    client = await session(root)
    try:
        # (`archive/**/old-*.md` holds archive/old-2.md too: `**` is zero folders or more.)
        assert files_of(root) == ["archive/2024/new-1.md", "drafts.md", "journal/2024/dec.md", "journal/2025/jan.md",
                                  "journal/2025/jan.txt", "keep.tmp.md", "kept.md", "local.md", "sub/private.md", "sub/scratch.tmp.md"]
        # A file made later is held to the same rules.
        write(root, {"drafts/c.md": SENTENCE, "sub/local2.md": SENTENCE, "x.tmp.md": SENTENCE})
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
            types.FileEvent(uri=(root / n).as_uri(), type=types.FileChangeType.Created) for n in ["drafts/c.md", "sub/local2.md", "x.tmp.md"]]))
        await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="herons"))
        assert "sub/local2.md" in files_of(root) and not {"drafts/c.md", "x.tmp.md"} & set(files_of(root))
    finally:
        await close(client)

    # The globs, relative to the folder: included files, minus the excluded ones and their folders.
    client = await session(root, {"include": ["journal/**/*.{md,txt}", "*.md"], "exclude": ["journal/2024", "**/jan.txt"], "gitignore": False})
    try:
        assert files_of(root) == ["#hash.md", "drafts.md", "journal/2025/jan.md", "keep.tmp.md", "kept.md", "local.md", "private.md",
                                  "scratch.tmp.md", "x.tmp.md"]
        watchers = [w["globPattern"] for r in client.registrations for reg in r.registrations for w in reg.register_options["watchers"]]
        assert watchers == ["journal/**/*.{md,txt}", "*.md"]
    finally:
        await close(client)


@pytest.mark.parametrize("options, field", [
    ({"exclude": "drafts"}, "initializationOptions.exclude"), ({"include": ["/abs/*.md"]}, "initializationOptions.include[0]"),
    ({"gitignore": "yes"}, "initializationOptions.gitignore"), ({"editDelayMs": -1}, "initializationOptions.editDelayMs"),
    ({"ignore": ["x"]}, "initializationOptions.ignore"), ({"extensions": []}, "initializationOptions.extensions")])
async def test_bad_settings_are_refused_naming_the_field(tmp_path, options, field):
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}, "initializationOptions": options}}
    sent = encode(initialize, "lsp") + encode({"jsonrpc": "2.0", "method": "exit"}, "lsp")
    out = subprocess.run([BIN, "lsp"], input=sent, capture_output=True, timeout=TIMEOUT).stdout
    answer = json.loads(out.split(b"\r\n\r\n", 1)[1])
    assert answer["error"]["code"] == -32602 and answer["error"]["data"]["field"] == field, answer


async def test_bad_files_are_skipped_with_a_message_and_the_rest_is_indexed(tmp_path):
    root = tmp_path / "notes"
    write(root, {"good.md": SENTENCE, "latin1.md": "Caf\xe9 au lait".encode("latin-1"), "nul.txt": b"# A\n\nbefore\x00after\n",
                 "huge.md": "# Huge\n\n" + "The same long line of words again and again. " * 30_000, "also-good.txt": "Seed potatoes and twine.\n"})
    client = await session(root)
    try:
        assert files_of(root) == ["also-good.txt", "good.md"]
        messages = [m.message for m in client.log_messages if m.type == types.MessageType.Warning]
        for name, why in [("latin1.md", "not UTF-8"), ("nul.txt", "NUL"), ("huge.md", "more than the 1048576")]:
            assert any(name in m and why in m for m in messages), (name, messages)
        assert any(m.message.startswith("kindred: indexed 2 entries in 2 files") and "3 files skipped" in m.message for m in client.log_messages)
    finally:
        await close(client)
    # The limit is a setting.
    client = await session(root, {"maxFileBytes": 60})
    try:
        assert files_of(root) == ["also-good.txt"]
        assert any("good.md" in m.message and "more than the 60" in m.message for m in client.log_messages)
    finally:
        await close(client)


async def test_search_command_by_the_kind_of_a_front_matter(tmp_path):
    root = tmp_path / "notes"
    write(root, {
        "dreams/2025-02-01.md": "---\nkind: dream\n---\n# Falling\n\nI fell from the mill's roof into the canal and woke up dry.\n",
        "dreams/2025-02-09.md": "---\nkind: \"dream\"\ndate: 2025-02-09\n---\n\nThe herons spoke to me in my mother's voice.\n",
        "walks.md": f"# Walks\n\n## 2025-02-02\n\n{SENTENCE}\n",
    })
    client = await session(root)
    try:
        def ask(arguments):
            return client.workspace_execute_command_async(types.ExecuteCommandParams(command="kindred.search", arguments=[arguments]))
        dreams = await asyncio.wait_for(ask({"query": "herons by the mill", "kind": "dream", "mode": "semantic"}), TIMEOUT)
        assert dreams["mode"] == "semantic" and {h["uri"].rsplit("/", 1)[1] for h in dreams["hits"]} == {"2025-02-01.md", "2025-02-09.md"}
        assert all(h["kind"] == "dream" for h in dreams["hits"]) and {h["date"] for h in dreams["hits"]} == {"2025-02-01", "2025-02-09"}
        notes = await asyncio.wait_for(ask({"query": "herons", "kind": "note", "mode": "keyword"}), TIMEOUT)
        assert [h["id"] for h in notes["hits"]] == ["walks.md#2025-02-02"] and notes["mode"] == "keyword"
    finally:
        await close(client)


async def test_a_file_renamed_while_no_server_ran_keeps_its_ids(tmp_path):
    root = tmp_path / "notes"
    write(root, {"walks.md": f"# Walks\n\n## 2025-02-02\n\n{SENTENCE}\n\n## 2025-02-03\n\nRain all day; we stayed in and baked bread.\n",
                 "other.md": "Seed potatoes and twine.\n"})
    client = await session(root)
    await close(client)
    before = stored(root)
    (root / "walks.md").rename(root / "2025-walks.md")
    client = await session(root)
    try:
        message = next(m.message for m in client.log_messages if m.message.startswith("kindred: indexed"))
        assert message.startswith("kindred: indexed 3 entries in 2 files (2 written, 1 unchanged, 0 deleted"), message
        after = stored(root)
        moved = {i: json.loads(m)["file"] for i, (r, m) in after.items()}
        assert moved == {"walks.md#2025-02-02": "2025-walks.md", "walks.md#2025-02-03": "2025-walks.md", "other.md": "other.md"}
        assert after["walks.md#2025-02-02"][0] == before["walks.md#2025-02-02"][0] + 1
        with sqlite3.connect(root / ".kindred" / "notes.sqlite") as db:
            assert db.execute("SELECT count(*) FROM record_tombstones").fetchone()[0] == 0
    finally:
        await close(client)
