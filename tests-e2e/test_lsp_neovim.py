"""A real editor: Neovim's built-in LSP client (Debian's 0.7.2 and later), headless, starts `kindred
lsp` on a folder of notes made from the journal and asks for workspace symbols, a hover, references,
document symbols and code lenses (running one), as its `vim.lsp.buf` and `vim.lsp.codelens` commands do,
then edits the buffer without saving; the test checks what Neovim received."""

import json
import os
import shutil
import subprocess

import pytest

import notes_folder
from conftest import BIN, REPO


@pytest.mark.skipif(shutil.which("nvim") is None, reason="neovim is not installed (scripts/install-deps.sh installs it)")
def test_neovim_search_hover_references(tmp_path):
    root = tmp_path / "notes"
    root.mkdir()
    where = notes_folder.make(root)
    missed_train = set(notes_folder.situations()["missed-train"])
    file, start, end = where["j-0002"]
    out = tmp_path / "received.json"
    env = {**os.environ, "KINDRED_BIN": BIN, "NOTES_ROOT": str(root), "NOTES_FILE": str(root / file), "ENTRY_LINE": str(start + 2),
           "OUT": str(out)}
    r = subprocess.run(["nvim", "--headless", "--clean", "-c", f"luafile {REPO / 'tests-e2e' / 'nvim_lsp.lua'}"],
                       env=env, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
    assert out.exists(), (r.returncode, r.stdout[-2000:], r.stderr[-2000:])
    got = json.loads(out.read_text())
    assert got["indexed"], got["logs"]

    def located(uri, line):
        for jid, (f, s, e) in where.items():
            if uri == (root / f).as_uri() and s <= line <= e:
                return jid
        return (uri, line)

    symbols = got["symbols"]["result"]
    assert located(symbols[0]["location"]["uri"], symbols[0]["location"]["range"]["start"]["line"]) in missed_train, symbols[:2]
    hover = got["hover"]["result"]
    assert hover["contents"]["kind"] == "markdown" and "recurs:" in hover["contents"]["value"]
    assert hover["range"]["start"]["line"] == start and hover["range"]["end"]["line"] == end
    refs = [located(x["uri"], x["range"]["start"]["line"]) for x in got["references"]["result"]]
    assert len(refs) == 20 and "j-0002" not in refs and sum(i in missed_train for i in refs[:10]) >= 3, refs[:10]
    names = [s["name"] for s in got["documentSymbols"]["result"]]
    assert names[0] == "2025-01-03" and all(n.startswith("2025-01-") for n in names)
    lenses = [x for x in got["codeLens"]["result"] if x["range"]["start"]["line"] == start]
    assert any(x["command"]["title"].startswith("recurs: ") for x in lenses), lenses
    listed = got["lensCommand"]["result"]["findings"][0]["entries"]
    assert "j-0002" in [located(e["uri"], e["range"]["start"]["line"]) for e in listed]
    assert got["picker"]["message"].startswith("recurs: ") and len(got["picker"]["actions"]) == min(len(listed), 30)
    # The unsaved edit was indexed from the buffer; the file on disk is as it was written.
    first = got["edited"]["symbols"]["result"][0]
    assert got["edited"]["found"] and first["location"]["uri"] == (root / file).as_uri() and "kumquat" in first["name"]
    assert "kumquat" not in (root / file).read_text(encoding="utf-8")
