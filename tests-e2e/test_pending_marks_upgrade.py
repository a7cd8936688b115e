"""A store written by the previous release (pending marks as the engine's JSON, schema 21) opens
in this build (migration 22: the marks as columns) and refreshes to the same groups as the previous
release refreshed it to.

fixtures/pending-marks-v21.sqlite is the first 280 records of datasets/journal ingested for `demo`
and refreshed by a release build of f168cc5 (schema 21); fixtures/pending-marks-v21.json is what
that binary answered: the findings of the store, then, after ingesting the remaining 56 records,
the refresh summary (without durationMs) and the findings. Both are written by
scripts/make-pending-marks-fixture.py from a previous binary.

Vectors: the records were embedded at the default precision of the machine the fixture was written
on, int8 (a CPU with AVX-512 VNNI), and the store keeps those vectors; this build embeds the
remaining records at the default, which follows the database's vectors, so the comparison holds
on a CPU of that kind, as CI's is."""

import json
import shutil
import sqlite3
import subprocess

from conftest import BIN, REPO

FIXTURES = REPO / "tests-e2e" / "fixtures"
RECORDS = REPO / "datasets" / "journal" / "records.jsonl"
OWNER = "demo"


def cli(*args):
    r = subprocess.run([BIN, *map(str, args)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    return r.stdout


def findings(db):
    return json.loads(cli("patterns", "findings", "--db", db, "--owner", OWNER, "--all", "--json"))


def refresh(db):
    summary = json.loads(cli("patterns", "refresh", "--db", db, "--owner", OWNER, "--json"))
    summary.pop("durationMs")
    return summary


def schema_version(db):
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT max(version) FROM schema_migrations").fetchone()[0]


def test_a_previous_store_opens_and_refreshes_to_the_same_groups(tmp_path):
    expected = json.loads((FIXTURES / "pending-marks-v21.json").read_text(encoding="utf-8"))
    db = tmp_path / "store.sqlite"
    shutil.copyfile(FIXTURES / "pending-marks-v21.sqlite", db)
    assert schema_version(db) == expected["schemaVersion"] == 21
    lines = RECORDS.read_text(encoding="utf-8").splitlines(keepends=True)
    assert len(lines) == expected["records"] + expected["afterRest"]["records"]
    rest = tmp_path / "rest.jsonl"
    rest.write_text("".join(lines[expected["records"]:]), encoding="utf-8")

    # Opened as it is: the same findings, the marks moved to columns.
    assert findings(db) == expected["findings"]
    assert json.loads(cli("status", "--db", db, "--json"))["schemaVersion"] >= 22

    # New records placed against the marks the store kept: the same decisions.
    cli("ingest", "--db", db, "--owner", OWNER, rest)
    assert refresh(db) == expected["afterRest"]["refresh"]
    assert findings(db) == expected["afterRest"]["findings"]
