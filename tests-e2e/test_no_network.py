"""With the default local embedder (and no judge), what the README's first command runs — ingest of the
bundled journal, a search, status, a pattern refresh and findings — opens no network socket: every
`socket` and `connect` call is traced, and the same commands also run inside an empty network namespace.
A `kindred lsp` session (indexing a folder of notes, its patterns, a search) is traced the same way."""

import json
import os
import re
import select
import shutil
import subprocess
import time

import pytest

import notes_folder
from conftest import BIN, REPO

JOURNAL = REPO / "datasets" / "journal" / "records.jsonl"


def readme_commands(db):
    return [
        ["ingest", "--db", db, "--owner", "demo", str(JOURNAL)],
        ["search", "--db", db, "--owner", "demo", "--limit", "5", "the dream where I kept missing a train"],
        ["status", "--db", db, "--owner", "demo"],
        ["patterns", "refresh", "--db", db, "--owner", "demo"],
        ["patterns", "findings", "--db", db, "--owner", "demo"],
    ]


def clean_env():
    env = {k: v for k, v in os.environ.items() if not k.startswith("KINDRED_") or k == "KINDRED_MODEL_DIR"}
    return env


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed")
def test_readme_commands_open_no_network_socket(tmp_path):
    db = str(tmp_path / "demo.sqlite")
    for k, args in enumerate(readme_commands(db)):
        trace = tmp_path / f"trace.{k}"
        r = subprocess.run(["strace", "-f", "-qq", "-e", "trace=socket,connect", "-o", str(trace), BIN, *args],
                           capture_output=True, text=True, timeout=600, env=clean_env())
        assert r.returncode == 0, f"{args}: {r.stderr[-2000:]}"
        calls = trace.read_text()
        network = [line for line in calls.splitlines() if re.search(r"AF_INET6?|sin_port|sin6_port", line)]
        assert network == [], f"{args[0]} opened a network socket:\n" + "\n".join(network[:10])
        if k == 1:
            assert "train" in r.stdout.lower()


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None, reason="needs root and unshare for an empty network namespace")
def test_readme_commands_work_without_any_network(tmp_path):
    db = str(tmp_path / "demo.sqlite")
    for args in readme_commands(db)[:2]:
        r = subprocess.run(["unshare", "-n", BIN, *args], capture_output=True, text=True, timeout=600, env=clean_env())
        assert r.returncode == 0, f"{args}: {r.stderr[-2000:]}"
    assert "train" in r.stdout.lower()


def frame(message):
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed")
def test_lsp_opens_no_network_socket(tmp_path):
    """A `kindred lsp` session under strace: indexing a folder of notes, its patterns, a search."""
    root = tmp_path / "notes"
    root.mkdir()
    notes_folder.make(root, notes_folder.journal()[:40])
    trace = tmp_path / "trace.lsp"
    p = subprocess.Popen(["strace", "-f", "-qq", "-e", "trace=socket,connect", "-o", str(trace), BIN, "lsp"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=clean_env())
    p.stdin.write(frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"rootUri": root.as_uri(), "capabilities": {}}})
                  + frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
    p.stdin.flush()
    seen, deadline = b"", time.monotonic() + 600
    while b"kindred: patterns refreshed" not in seen:
        assert time.monotonic() < deadline, seen[-2000:]
        if select.select([p.stdout], [], [], 1)[0]:
            chunk = os.read(p.stdout.fileno(), 65536)
            assert chunk, "the server ended early"
            seen += chunk
    out, _ = p.communicate(frame({"jsonrpc": "2.0", "id": 2, "method": "workspace/symbol", "params": {"query": "missing a train"}})
                           + frame({"jsonrpc": "2.0", "id": 3, "method": "shutdown"}) + frame({"jsonrpc": "2.0", "method": "exit"}), timeout=120)
    assert p.returncode == 0
    answer = out.split(b'"id":2,"result":', 1)[1][:3000].lower()
    assert answer.startswith(b"[{") and b"station" in answer  # j-0002, the first missed train
    network = [line for line in trace.read_text().splitlines() if re.search(r"AF_INET6?|sin_port|sin6_port", line)]
    assert network == [], "kindred lsp opened a network socket:\n" + "\n".join(network[:10])
