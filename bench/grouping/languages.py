#!/usr/bin/env python3
"""Pattern groups on a journal in any language, through the real binary, as a user gets them.

Each journal folder (records.jsonl, and situations.json or the English key) is loaded into a new
database by `kindred serve` with the given settings (the defaults otherwise, no judge), refreshed
once, and its findings (related groups included) scored against the key (tests-e2e/journal_score.py):
member precision (every pair of members of one group, look-alikes and one-off entries included,
that share a situation), pair precision and recall over the entries of exactly one situation, and
look-alikes grouped. A translated journal keeps the English ids, so a folder without situations.json
is scored against datasets/journal/situations.json. The first journal is the reference: each
other row says how far its member precision and recall are from it.

  python3 bench/grouping/languages.py [--binary B] [--set key=value ...] [FOLDER ...]
  bench/grouping/run.sh languages --set embedder.model=multilingual-e5-small datasets/journal datasets/journal-de

FOLDER defaults to datasets/journal datasets/journal-de. The binary is --binary, else $KINDRED_BIN,
else .build/release/kindred. Standard library only."""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.append(str(ROOT / "tests-e2e"))
from journal_score import score  # noqa: E402  (tests-e2e/journal_score.py: one scorer for the journal tests and benches)

ENGLISH_KEY = ROOT / "datasets" / "journal" / "situations.json"


def load(folder):
    folder = Path(folder)
    records = [json.loads(line) for line in (folder / "records.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    key_path = folder / "situations.json" if (folder / "situations.json").exists() else ENGLISH_KEY
    key = json.loads(key_path.read_text(encoding="utf-8"))
    ids = {r["id"] for r in records}
    missing = [e for s in key["situations"] for e in s["entries"] if e not in ids] + [d["entry"] for d in key["distractors"] if d["entry"] not in ids]
    if missing:
        sys.exit(f"languages.py: {folder}: the key {key_path} names entries that are not records here: {missing[:5]}")
    return records, key


def groups_of(binary, records, sets):
    """One refresh in a fresh database, as ../shared/tools/journal_precision.py does it."""
    db = os.path.join(tempfile.mkdtemp(prefix="kindred-languages-"), "j.sqlite")
    msgs = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}},
            {"jsonrpc": "2.0", "id": 2, "method": "records/upsert", "params": {"owner": "me", "waitForIndex": True, "records": records}},
            {"jsonrpc": "2.0", "id": 3, "method": "patterns/refresh", "params": {"owner": "me"}},
            {"jsonrpc": "2.0", "id": 4, "method": "patterns/findings", "params": {"owner": "me", "includeRelated": True}},
            {"jsonrpc": "2.0", "id": 5, "method": "index/status", "params": {"owner": "me"}},
            {"jsonrpc": "2.0", "id": 6, "method": "shutdown"}, {"jsonrpc": "2.0", "method": "exit"}]
    args = [a for s in sets for a in ("--set", s)]
    p = subprocess.run([binary, "serve", "--db", db, "--framing", "ndjson", *args],
                       input="\n".join(json.dumps(m) for m in msgs) + "\n", capture_output=True, text=True, timeout=1800)
    answers = {m.get("id"): m for m in map(json.loads, filter(None, p.stdout.splitlines())) if "id" in m}
    if "result" not in answers.get(4, {}):
        sys.exit("languages.py: no findings: %s" % (answers.get(4) or p.stderr[-300:]))
    status = answers.get(5, {}).get("result", {})
    return [{e["recordId"] for e in f["evidence"]} for f in answers[4]["result"]["findings"]], status.get("indexVersion", "?")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="*", default=["datasets/journal", "datasets/journal-de"])
    ap.add_argument("--binary", default=os.environ.get("KINDRED_BIN", str(ROOT / ".build" / "release" / "kindred")))
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    a = ap.parse_args()
    print(f"settings: {' '.join(a.set) or '(defaults)'}")
    print("| journal | index version | groups | member precision | pair precision | recall | look-alikes grouped | Δ member precision | Δ recall | s |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    ref = None
    for folder in a.folders:
        records, key = load(folder)
        t = time.monotonic()
        groups, model = groups_of(a.binary, records, a.set)
        seconds = time.monotonic() - t
        r = score(groups, key)
        ref = ref or r
        delta = "" if r is ref else f"{r['member_precision'] - ref['member_precision']:+.3f} | {r['recall'] - ref['recall']:+.3f}"
        print(f"| {folder} | {model} | {len(groups)} | {r['member_precision']:.3f} | {r['pair_precision']:.3f} | {r['recall']:.3f} | "
              f"{r['lookalikes']} of {r['lookalikes_of']} | {delta or '— | —'} | {seconds:.0f} |", flush=True)


if __name__ == "__main__":
    main()
