#!/usr/bin/env python3
"""Writes a schema-21 store and the previous release's answers, for tests-e2e/test_pending_marks_upgrade.py.

    python3 scripts/make-pending-marks-fixture.py PREVIOUS_KINDRED_BIN OUT_FOLDER

PREVIOUS_KINDRED_BIN is a build of the release before migration 22 (schema 21: the pattern engine's
pending marks stored as JSON), for instance a release build of f168cc5. It ingests the first FIRST
records of datasets/journal as owner `demo` and refreshes the patterns; the store, vacuumed with
1 KiB pages, is OUT_FOLDER/pending-marks-v21.sqlite. OUT_FOLDER/pending-marks-v21.json holds what the
same binary answered on a copy of it: the findings (`patterns findings --all --json`), then, after
ingesting the remaining records, the refresh summary (`patterns refresh --json`, without durationMs)
and the findings again. The int8 codes file is off (`index.codesFile=false`), so the store is one file.
The local model embeds the records at the machine's default precision: int8 on a CPU with AVX-512
VNNI, the kind the fixture was written and CI runs on.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

OWNER = "demo"
FIRST = 280
NAME = "pending-marks-v21"
SETTINGS = ["--set", "index.codesFile=false"]


def cli(binary, *args):
    r = subprocess.run([binary, *map(str, args), *SETTINGS], capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, args[:2]))}: exit {r.returncode}\n{r.stderr}")
    return r.stdout


def findings(binary, db):
    return json.loads(cli(binary, "patterns", "findings", "--db", db, "--owner", OWNER, "--all", "--json"))


def refresh(binary, db):
    summary = json.loads(cli(binary, "patterns", "refresh", "--db", db, "--owner", OWNER, "--json"))
    summary.pop("durationMs")
    return summary


def main():
    binary, folder = sys.argv[1], sys.argv[2]
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(repo, "datasets", "journal", "records.jsonl"), encoding="utf-8") as f:
        lines = f.readlines()
    store, golden = os.path.join(folder, NAME + ".sqlite"), os.path.join(folder, NAME + ".json")
    with tempfile.TemporaryDirectory() as tmp:
        first, rest, db = (os.path.join(tmp, n) for n in ("first.jsonl", "rest.jsonl", "store.sqlite"))
        with open(first, "w", encoding="utf-8") as f:
            f.writelines(lines[:FIRST])
        with open(rest, "w", encoding="utf-8") as f:
            f.writelines(lines[FIRST:])
        cli(binary, "ingest", "--db", db, "--owner", OWNER, first)
        cli(binary, "patterns", "refresh", "--db", db, "--owner", OWNER)
        schema = json.loads(cli(binary, "status", "--db", db, "--json"))["schemaVersion"]
        if schema != 21:
            raise SystemExit(f"{binary} writes schema {schema}; the fixture is schema 21")
        # 1 KiB pages and no free pages, as the schema fixtures are compacted (same schema and rows).
        subprocess.run([sys.executable, os.path.join(repo, "scripts", "make-schema-fixture.py"), "--compact", db],
                       check=True, capture_output=True)
        shutil.copyfile(db, store)

        answers = {"schemaVersion": schema, "records": FIRST, "findings": findings(binary, db)}
        cli(binary, "ingest", "--db", db, "--owner", OWNER, rest)
        answers["afterRest"] = {"records": len(lines) - FIRST, "refresh": refresh(binary, db), "findings": findings(binary, db)}
    with open(golden, "w", encoding="utf-8") as f:
        json.dump(answers, f, indent=1, ensure_ascii=False)
        f.write("\n")
    for p in (store, golden):
        print(p, os.path.getsize(p), "bytes")


if __name__ == "__main__":
    main()
