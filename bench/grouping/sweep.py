#!/usr/bin/env python3
"""Pattern settings on journals embedded once: each journal folder is loaded into a database by
`kindred serve` (records/upsert, waiting for the index, no refresh) with the embedder settings, and
kept; then, for each setting set, a copy of it gets one refresh and its findings (related groups
included) are scored against the key (tests-e2e/journal_score.py), as languages.py scores a fresh
database. Only settings that leave the vectors alone may vary (patterns.*); the embedder settings
are passed to every run so the copies serve the index they were built with.

  python3 bench/grouping/sweep.py [--binary B] [--embed key=value ...] [--cache DIR] \
      --try "patterns.tauRep=0.45 patterns.tauSup=0.45" [--try ...] [FOLDER ...]

Each --try is one setting set (space-separated key=value; "" for the defaults); every set is run on
every folder. FOLDER defaults to datasets/journal. The databases are kept in --cache (default a new
temporary folder) under the folder's name and the embedder settings. Standard library only."""
import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from languages import ROOT, load, score  # noqa: E402


def serve(binary, db, sets, msgs):
    msgs = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}, *msgs,
            {"jsonrpc": "2.0", "id": 99, "method": "shutdown"}, {"jsonrpc": "2.0", "method": "exit"}]
    args = [a for s in sets for a in ("--set", s)]
    p = subprocess.run([binary, "serve", "--db", db, "--framing", "ndjson", *args],
                       input="\n".join(json.dumps(m) for m in msgs) + "\n", capture_output=True, text=True, timeout=1800)
    return {m.get("id"): m for m in map(json.loads, filter(None, p.stdout.splitlines())) if "id" in m}, p.stderr


def embedded(binary, folder, records, embed, cache):
    tag = hashlib.sha256(("\n".join(embed) + str(Path(folder).resolve())).encode()).hexdigest()[:10]
    base = Path(cache) / f"{Path(folder).name}-{tag}"
    db = base / "j.sqlite"
    if not db.exists():
        base.mkdir(parents=True, exist_ok=True)
        answers, err = serve(binary, str(db), embed, [{"jsonrpc": "2.0", "id": 2, "method": "records/upsert",
                                                       "params": {"owner": "me", "waitForIndex": True, "records": records}}])
        if "result" not in answers.get(2, {}):
            shutil.rmtree(base)
            sys.exit(f"sweep.py: {folder}: upsert failed: {answers.get(2) or err[-300:]}")
    return base


def refreshed(binary, base, sets):
    work = Path(tempfile.mkdtemp(prefix="kindred-sweep-"))
    try:
        for f in base.iterdir():
            shutil.copy(f, work / f.name)
        answers, err = serve(binary, str(work / "j.sqlite"), sets, [
            {"jsonrpc": "2.0", "id": 3, "method": "patterns/refresh", "params": {"owner": "me"}},
            {"jsonrpc": "2.0", "id": 4, "method": "patterns/findings", "params": {"owner": "me", "includeRelated": True}}])
    finally:
        shutil.rmtree(work)
    if "result" not in answers.get(4, {}):
        sys.exit("sweep.py: no findings: %s" % (answers.get(4) or answers.get(3) or err[-300:]))
    levels = answers.get(3, {}).get("result", {}).get("backgroundLevels")
    return [{e["recordId"] for e in f["evidence"]} for f in answers[4]["result"]["findings"]], levels


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="*", default=["datasets/journal"])
    ap.add_argument("--binary", default=os.environ.get("KINDRED_BIN", str(ROOT / ".build" / "release" / "kindred")))
    ap.add_argument("--embed", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--try", dest="tries", action="append", default=[], metavar="SETTINGS")
    ap.add_argument("--cache", default=None)
    a = ap.parse_args()
    cache = a.cache or tempfile.mkdtemp(prefix="kindred-sweep-cache-")
    print(f"embedder: {' '.join(a.embed) or '(defaults)'}; databases in {cache}")
    print("| journal | settings | groups | member precision | pair precision | recall | look-alikes grouped |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for folder in a.folders:
        records, key = load(folder)
        base = embedded(a.binary, folder, records, a.embed, cache)
        for t in a.tries or [""]:
            groups, _ = refreshed(a.binary, base, a.embed + t.split())
            r = score(groups, key)
            print(f"| {folder} | {t or '(defaults)'} | {len(groups)} | {r['member_precision']:.3f} | {r['pair_precision']:.3f} | "
                  f"{r['recall']:.3f} | {r['lookalikes']} of {r['lookalikes_of']} |", flush=True)


if __name__ == "__main__":
    main()
