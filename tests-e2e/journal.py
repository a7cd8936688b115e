"""The bundled journal (datasets/journal) loaded once per test session, as scripts/setup.sh loads it:
ingested with the real model for owner `demo`, patterns refreshed. Tests that write copy it first."""

import pathlib
import shutil

from conftest import REPO, run_cli

OWNER = "demo"
RECORDS = REPO / "datasets" / "journal" / "records.jsonl"


def build(directory):
    db = pathlib.Path(directory) / "journal.sqlite"
    r = run_cli("ingest", "--db", db, "--owner", OWNER, RECORDS, timeout=600)
    assert r.returncode == 0, r.stderr
    r = run_cli("patterns", "refresh", "--db", db, "--owner", OWNER, timeout=600)
    assert r.returncode == 0, r.stderr
    return db


def copy(db, directory):
    """A private copy of the journal database (the source is closed, so the file is whole)."""
    target = pathlib.Path(directory) / "journal-copy.sqlite"
    shutil.copyfile(db, target)
    return target
