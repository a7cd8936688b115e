#!/usr/bin/env python3
"""Writes a database of float32 vectors and its search answers, for tests-e2e/test_precision_default.py.

    python3 scripts/make-precision-fixture.py KINDRED_BIN OUT_FOLDER

Writes OUT_FOLDER/float32-store.sqlite (the first 24 entries of datasets/journal, embedded by the
local model in float32) and OUT_FOLDER/float32-store.json (what each query of QUERIES answered,
semantic and hybrid). Before int8 became the default (`embedder.precision` auto), float32 was the
default; a build of then, or a later one with `--set embedder.precision=float32` (the same arithmetic
and index version `all-MiniLM-L6-v2@384`), writes the same rows.
"""

import json
import os
import sqlite3
import subprocess
import sys

QUERIES = ["the dream where I kept missing a train", "an argument about money", "walking the dog in the rain"]


def call(proc, n, method, params):
    proc.stdin.write((json.dumps({"jsonrpc": "2.0", "id": n, "method": method, "params": params}) + "\n").encode())
    proc.stdin.flush()
    while True:
        reply = json.loads(proc.stdout.readline())
        if reply.get("id") == n:
            if "error" in reply:
                raise SystemExit(f"{method}: {reply['error']}")
            return reply["result"]


def answers(proc):
    """Each query's hits, semantic and hybrid: id, score and highlight."""
    out, n = {}, 100
    for q in QUERIES:
        for mode in ("semantic", "hybrid"):
            n += 1
            r = call(proc, n, "search/query", {"owner": "me", "text": q, "mode": mode, "limit": 5})
            out[f"{mode}: {q}"] = [{"id": h["id"], "score": h["score"], "highlight": h.get("highlight")} for h in r["results"]]
    return out


def main():
    binary, folder = sys.argv[1], sys.argv[2]
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    db = os.path.join(folder, "float32-store.sqlite")
    for p in (db, db + "-wal", db + "-shm", db + "-codes"):
        if os.path.exists(p):
            os.remove(p)
    records = [json.loads(line) for line in open(os.path.join(repo, "datasets", "journal", "records.jsonl"), encoding="utf-8")][:24]
    proc = subprocess.Popen([binary, "serve", "--db", db, "--set", "embedder.precision=float32", "--set", "index.codesFile=false"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    call(proc, 1, "initialize", {})
    call(proc, 2, "records/upsert", {"owner": "me", "records": records, "waitForIndex": True})
    status = call(proc, 3, "index/status", {"owner": "me"})
    assert status["indexVersion"] == "all-MiniLM-L6-v2@384" and status["vectors"] == len(records), status
    found = answers(proc)
    proc.stdin.close()
    assert proc.wait(timeout=60) == 0
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA journal_mode=DELETE")
    conn.execute("PRAGMA page_size=1024")
    conn.execute("VACUUM")
    conn.close()
    with open(os.path.join(folder, "float32-store.json"), "w", encoding="utf-8") as f:
        json.dump({"indexVersion": status["indexVersion"], "vectorsByVersion": status["vectorsByVersion"], "answers": found},
                  f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(db, os.path.getsize(db), "bytes")


if __name__ == "__main__":
    main()
