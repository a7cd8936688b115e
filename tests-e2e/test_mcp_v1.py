"""`kindred mcp` with an `mcp` 1.x `ClientSession` (1.30.0, the handshake era). mcp 1.x and 2.x cannot share
one virtualenv: the 1.x client runs in tests-e2e/.venv-mcp1 (git-ignored, made by make-venv-mcp1.sh,
which tests-e2e/run.sh calls) as a subprocess, and reports what it saw as JSON."""

import json
import pathlib
import subprocess

import journal
from conftest import BIN
from journal import OWNER

HERE = pathlib.Path(__file__).resolve().parent
PYTHON = HERE / ".venv-mcp1" / "bin" / "python"


def test_mcp_1x_client_session(journal_db, tmp_path):
    made = subprocess.run(["bash", str(HERE / "make-venv-mcp1.sh")], capture_output=True, text=True, timeout=900)
    assert made.returncode == 0, made.stderr
    db = journal.copy(journal_db, tmp_path)
    r = subprocess.run([str(PYTHON), str(HERE / "mcp1_client.py"), BIN, str(db), OWNER],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    seen = json.loads(r.stdout)
    assert seen["protocolVersion"] == "2025-11-25" and seen["serverName"] == "kindred"
    assert seen["tools"] == sorted(["search", "get_record", "similar", "findings", "group", "themes", "refresh_patterns", "correct", "index_status"])
    assert seen["outputSchemas"]
    calls = seen["calls"]
    assert len(calls["search"]["results"]) == 3
    assert calls["get_record"]["record"]["id"] == calls["search"]["results"][0]["id"]
    assert len(calls["similar"]["results"]) == 2
    assert calls["findings"]["findings"][0]["kind"] == "recurring"
    assert calls["group"]["group"]["groupId"] == calls["findings"]["findings"][0]["groupId"]
    assert calls["correct"]["correctionId"] >= 1
    assert calls["index_status"]["records"] == 336
    assert seen["badArgument"]["isError"] and seen["badArgument"]["text"].startswith("Invalid argument `limit`")
    assert seen["unknownTool"] == -32602
    assert seen["afterErrors"] == 336
