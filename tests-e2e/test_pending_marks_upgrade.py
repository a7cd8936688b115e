"""A store written by the previous release (pending marks as the engine's JSON, schema 21) opens
in this build (migration 22: the marks as columns) and refreshes to the same groups as the previous
release refreshes it to. The previous binary is named by KINDRED_PREVIOUS_BIN (for instance a
release build of main); without it the test is skipped."""

import json
import os
import shutil
import subprocess

import pytest

from conftest import BIN, REPO

PREVIOUS = os.environ.get("KINDRED_PREVIOUS_BIN")
RECORDS = REPO / "datasets" / "journal" / "records.jsonl"
OWNER = "demo"

pytestmark = pytest.mark.skipif(not PREVIOUS, reason="KINDRED_PREVIOUS_BIN names no previous kindred binary")


def cli(binary, *args):
    r = subprocess.run([binary, *map(str, args)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    return r.stdout


def findings(binary, db):
    return json.loads(cli(binary, "patterns", "findings", "--db", db, "--owner", OWNER, "--all", "--json"))


def refresh(binary, db):
    summary = json.loads(cli(binary, "patterns", "refresh", "--db", db, "--owner", OWNER, "--json"))
    summary.pop("durationMs")
    return summary


def test_a_previous_store_opens_and_refreshes_to_the_same_groups(tmp_path):
    lines = RECORDS.read_text().splitlines(keepends=True)
    first, rest = tmp_path / "first.jsonl", tmp_path / "rest.jsonl"
    first.write_text("".join(lines[:280]))
    rest.write_text("".join(lines[280:]))
    old, new = tmp_path / "old.sqlite", tmp_path / "new.sqlite"
    cli(PREVIOUS, "ingest", "--db", old, "--owner", OWNER, first)
    cli(PREVIOUS, "patterns", "refresh", "--db", old, "--owner", OWNER)
    shutil.copyfile(old, new)
    if json.loads(cli(PREVIOUS, "status", "--db", old, "--json"))["schemaVersion"] >= 22:
        pytest.skip("the previous binary already stores pending marks as columns")

    # Opened as it is: the same findings, the marks moved to columns.
    assert findings(BIN, new) == findings(PREVIOUS, old)
    assert json.loads(cli(BIN, "status", "--db", new, "--json"))["schemaVersion"] >= 22

    # New records placed against the marks each build kept: the same decisions.
    for binary, db in ((PREVIOUS, old), (BIN, new)):
        cli(binary, "ingest", "--db", db, "--owner", OWNER, rest)
    assert refresh(BIN, new) == refresh(PREVIOUS, old)
    assert findings(BIN, new) == findings(PREVIOUS, old)
