#!/usr/bin/env python3
"""Pattern groups through the real binary, as a user gets them: each set is loaded into a new
database by `kindred serve` with the given settings (the defaults otherwise, no judge), refreshed
once, and its findings scored.

  bench/.venv-grouping/bin/python bench/grouping/service_scores.py [.build/release/kindred] [--set key=value ...]

- `datasets/journal`, `datasets/journal2`: member precision (every pair of members of one group,
  look-alikes and one-off entries included, that share a situation of the key), pair precision and
  recall over the entries of exactly one situation, scored by tests-e2e/journal_score.py (as
  ../shared/tools/journal_precision.py scores them).
- `datasets/banking77`: AMI against the 77 intents (`metadata.intent`), every text outside a group
  its own cluster, as bench.py's `metrics` counts them.

Used to compare `embedder.precision` int8 (the default on a CPU with AVX-512 VNNI) with float32."""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from sklearn.metrics import adjusted_mutual_info_score

ROOT = Path(__file__).resolve().parents[2]
sys.path.append(str(ROOT / "tests-e2e"))
from journal_score import score  # noqa: E402  (tests-e2e/journal_score.py: one scorer for the journal tests and benches)


def groups_of(binary, sets, records):
    db = os.path.join(tempfile.mkdtemp(prefix="kindred-service-scores-"), "s.sqlite")
    msgs = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}},
            {"jsonrpc": "2.0", "id": 2, "method": "records/upsert", "params": {"owner": "me", "waitForIndex": True, "records": records}},
            {"jsonrpc": "2.0", "id": 3, "method": "patterns/refresh", "params": {"owner": "me"}},
            {"jsonrpc": "2.0", "id": 4, "method": "patterns/findings",
             "params": {"owner": "me", "includeRelated": True, "limit": 1000, "evidenceLimit": 1000}},
            {"jsonrpc": "2.0", "id": 5, "method": "index/status", "params": {"owner": "me"}},
            {"jsonrpc": "2.0", "id": 6, "method": "shutdown"}, {"jsonrpc": "2.0", "method": "exit"}]
    args = [a for s in sets for a in ("--set", s)]
    p = subprocess.run([binary, "serve", "--db", db, "--framing", "ndjson", *args],
                       input="\n".join(json.dumps(m) for m in msgs) + "\n", capture_output=True, text=True, timeout=1800)
    answers = {m.get("id"): m for m in map(json.loads, filter(None, p.stdout.splitlines())) if "id" in m}
    if "result" not in answers.get(4, {}):
        sys.exit("service_scores: no findings: %s" % (answers.get(4) or p.stderr[-300:]))
    embedder = answers[5]["result"]["embedder"]
    return [{e["recordId"] for e in f["evidence"]} for f in answers[4]["result"]["findings"]], embedder


def main():
    args = sys.argv[1:]
    binary = args.pop(0) if args and not args[0].startswith("--") else str(ROOT / ".build" / "release" / "kindred")
    sets = [args[i + 1] for i in range(len(args)) if args[i] == "--set"]
    for name in ("journal", "journal2", "banking77"):
        folder = ROOT / "datasets" / name
        records = [json.loads(line) for line in (folder / "records.jsonl").read_text().splitlines() if line.strip()]
        groups, embedder = groups_of(binary, sets, records)
        if name == "banking77":
            where = {}
            for n, g in enumerate(groups):
                for i in g:
                    where.setdefault(i, n)
            truth = [r["metadata"]["intent"] for r in records]
            labels = [where.get(r["id"], len(groups) + k) for k, r in enumerate(records)]
            scores = {"AMI": adjusted_mutual_info_score(truth, labels)}
        else:
            r = score(groups, json.loads((folder / "situations.json").read_text()))
            scores = {"member precision": r["member_precision"], "pair precision": r["pair_precision"], "pair recall": r["recall"]}
        print(f"{name}: precision {embedder.get('precision')} ({embedder.get('precisionReason')}), {len(groups)} groups, "
              + ", ".join(f"{k} {v:.3f}" for k, v in scores.items()), flush=True)


if __name__ == "__main__":
    main()
