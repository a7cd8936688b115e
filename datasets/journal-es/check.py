#!/usr/bin/env python3
"""Validate the Spanish journal (records.jsonl; its key is ../journal/situations.json) against the English one and print its counts.

Usage: python3 datasets/journal-es/check.py      (exit code 0 when every check passes, 1 otherwise)
Run from anywhere; the English journal is read from ../journal next to this folder. Standard library only.
"""
import collections
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ENGLISH = os.path.join(os.path.dirname(HERE), "journal")
RECORD_FIELDS = ["id", "revision", "text", "kind", "date", "tags", "metadata"]
EXPECTED_RECORDS = 336

problems = []


def fail(msg):
    problems.append(msg)


def load_jsonl(path):
    out = []
    name = os.path.relpath(path, os.path.dirname(HERE))
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                fail(f"{name}:{n}: empty line")
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as e:
                fail(f"{name}:{n}: not JSON ({e})")
    return out


# ---- records: one to one with the English journal ------------------------------------------
records = load_jsonl(os.path.join(HERE, "records.jsonl"))
english = load_jsonl(os.path.join(ENGLISH, "records.jsonl"))
if len(records) != EXPECTED_RECORDS:
    fail(f"records.jsonl: {len(records)} records, expected {EXPECTED_RECORDS}")
if len(records) != len(english):
    fail(f"records.jsonl: {len(records)} records, the English journal has {len(english)}")

for n, (r, e) in enumerate(zip(records, english), 1):
    where = f"records.jsonl:{n}"
    if not isinstance(r, dict):
        fail(f"{where}: not an object")
        continue
    if list(r) != RECORD_FIELDS:
        fail(f"{where}: fields {list(r)} differ from {RECORD_FIELDS} (same keys, same order)")
    for field in ("id", "revision", "kind", "date", "tags", "metadata"):
        if r.get(field) != e.get(field):
            fail(f"{where}: {field} {r.get(field)!r} differs from the English {e.get(field)!r}")
    text = r.get("text")
    if not isinstance(text, str) or not text.strip():
        fail(f"{where}: empty text")
    elif text.strip() == e.get("text", "").strip():
        fail(f"{where}: text is the English text, not a translation")

ids = [r.get("id") for r in records if isinstance(r, dict)]
if len(set(ids)) != len(ids):
    fail("records.jsonl: duplicate ids")

# ---- key: the English one, ../journal/situations.json (one copy of it) ------------------------
if os.path.exists(os.path.join(HERE, "situations.json")):
    fail("situations.json: the key is ../journal/situations.json; a copy here could drift from it")
with open(os.path.join(ENGLISH, "situations.json"), encoding="utf-8") as f:
    key = json.load(f)

by_id = {r["id"]: r for r in records if isinstance(r, dict) and "id" in r}
situations = key.get("situations", [])
distractors = key.get("distractors", [])
owner = {}
for s in situations:
    for e in s.get("entries", []):
        if e not in by_id:
            fail(f"situation {s.get('id')}: unknown entry {e}")
        owner[e] = s.get("id")
distractor_ids = {d.get("entry") for d in distractors}
for e in distractor_ids - set(by_id):
    fail(f"distractor: unknown entry {e}")

# ---- counts --------------------------------------------------------------------------------
kinds = collections.Counter(r.get("kind") for r in records if isinstance(r, dict))
oneoff = [i for i in by_id if i not in owner and i not in distractor_ids]
words = sorted(len(r["text"].split()) for r in records if isinstance(r, dict) and isinstance(r.get("text"), str))
dates = sorted(r["date"] for r in records if isinstance(r, dict) and isinstance(r.get("date"), str))
print(f"records       {len(records)}  ({kinds['dream']} dreams, {kinds['note']} notes)")
if dates:
    print(f"dates         {dates[0]} .. {dates[-1]}")
if words:
    print(f"words/entry   min {words[0]}, median {words[len(words) // 2]}, max {words[-1]}")
print(f"situations    {len(situations)}  ({sum(1 for s in situations if s.get('kind') == 'dream')} dream, "
      f"{sum(1 for s in situations if s.get('kind') == 'note')} note), {len(owner)} entries in them")
print(f"distractors   {len(distractors)}")
print(f"one-offs      {len(oneoff)}  (entries in no situation and not listed as distractors)")

if problems:
    print(f"\nFAILED: {len(problems)} problem(s)")
    for p in problems[:50]:
        print("  " + p)
    sys.exit(1)
print("\nOK: all checks pass (ids, dates, kinds, tags and metadata equal to the English journal; key: ../journal/situations.json)")
