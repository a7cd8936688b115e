#!/usr/bin/env python3
"""Validate the journal dataset (records.jsonl, situations.json, queries.jsonl) and print its counts.

Usage: python3 datasets/journal/check.py      (exit code 0 when every check passes, 1 otherwise)
Standard library only.
"""
import collections
import datetime
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RECORD_FIELDS = {"id", "revision", "text", "kind", "date", "tags", "metadata"}
KINDS = {"dream", "note"}
SPLITS = {"calibration", "report"}
MIN_RECORDS, MIN_QUERIES, MIN_MONTHS = 300, 60, 12

problems = []


def fail(msg):
    problems.append(msg)


def load_jsonl(name):
    out = []
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                fail(f"{name}:{n}: empty line")
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as e:
                fail(f"{name}:{n}: not JSON ({e})")
    return out


def add_months(d, months):
    y, m = divmod(d.month - 1 + months, 12)
    y, m = d.year + y, m + 1
    day = min(d.day, [31, 29 if y % 4 == 0 and (y % 100 or y % 400 == 0) else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1])
    return datetime.date(y, m, day)


# ---- records -------------------------------------------------------------------------------
records = load_jsonl("records.jsonl")
by_id = {}
dates = []
for n, r in enumerate(records, 1):
    where = f"records.jsonl:{n}"
    if not isinstance(r, dict):
        fail(f"{where}: not an object")
        continue
    if set(r) != RECORD_FIELDS:
        fail(f"{where}: fields {sorted(r)} differ from {sorted(RECORD_FIELDS)}")
    rid = r.get("id")
    if rid != f"j-{n:04d}":
        fail(f"{where}: id {rid!r}, expected j-{n:04d} (ids must be unique and sequential)")
    if rid in by_id:
        fail(f"{where}: duplicate id {rid}")
    by_id[rid] = r
    if r.get("revision") != 1:
        fail(f"{where}: revision must be 1")
    if not isinstance(r.get("text"), str) or not r["text"].strip():
        fail(f"{where}: empty text")
    if r.get("kind") not in KINDS:
        fail(f"{where}: kind {r.get('kind')!r} not in {sorted(KINDS)}")
    try:
        d = datetime.date.fromisoformat(r.get("date", ""))
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", r["date"]):
            raise ValueError
        if dates and d < dates[-1]:
            fail(f"{where}: date {r['date']} earlier than the previous record")
        dates.append(d)
    except (ValueError, TypeError):
        fail(f"{where}: invalid date {r.get('date')!r}")
    tags = r.get("tags")
    if not isinstance(tags, list) or not all(isinstance(t, str) and t for t in tags):
        fail(f"{where}: tags must be a list of non-empty strings")
    md = r.get("metadata")
    if not isinstance(md, dict) or not isinstance(md.get("mood"), str):
        fail(f"{where}: metadata must be an object with a string mood")
    elif any(isinstance(v, (list, dict)) for v in md.values()):
        fail(f"{where}: metadata must be flat")

if len(records) < MIN_RECORDS:
    fail(f"only {len(records)} records (need >= {MIN_RECORDS})")
if dates and add_months(dates[0], MIN_MONTHS) > dates[-1]:
    fail(f"dates span {dates[0]} .. {dates[-1]}, less than {MIN_MONTHS} months")

# ---- situations ----------------------------------------------------------------------------
with open(os.path.join(HERE, "situations.json"), encoding="utf-8") as f:
    key = json.load(f)
situations = key.get("situations", [])
distractors = key.get("distractors", [])
sit_entries = {}
owner = {}
for s in situations:
    sid = s.get("id")
    if sid in sit_entries:
        fail(f"situation {sid}: duplicate id")
    if not s.get("description"):
        fail(f"situation {sid}: no description")
    entries = s.get("entries", [])
    sit_entries[sid] = entries
    if not 6 <= len(entries) <= 20:
        fail(f"situation {sid}: {len(entries)} entries (expected 6-20)")
    if len(set(entries)) != len(entries):
        fail(f"situation {sid}: repeated entry")
    for e in entries:
        if e not in by_id:
            fail(f"situation {sid}: unknown entry {e}")
            continue
        if by_id[e]["kind"] != s.get("kind"):
            fail(f"situation {sid}: entry {e} is a {by_id[e]['kind']}, situation kind is {s.get('kind')}")
        if e in owner and owner[e] != sid:
            fail(f"entry {e} is in two situations: {owner[e]} and {sid}")
        owner[e] = sid
distractor_ids = set()
for d in distractors:
    e = d.get("entry")
    if e not in by_id:
        fail(f"distractor: unknown entry {e}")
    if e in owner:
        fail(f"distractor {e} is also a member of situation {owner[e]}")
    if e in distractor_ids:
        fail(f"distractor {e} listed twice")
    distractor_ids.add(e)
    if d.get("resembles") not in sit_entries:
        fail(f"distractor {e}: resembles unknown situation {d.get('resembles')!r}")
    if not d.get("why"):
        fail(f"distractor {e}: no why")

# ---- queries -------------------------------------------------------------------------------
queries = load_jsonl("queries.jsonl")
for n, q in enumerate(queries, 1):
    where = f"queries.jsonl:{n}"
    if q.get("id") != f"q-{n:03d}":
        fail(f"{where}: id {q.get('id')!r}, expected q-{n:03d}")
    if not isinstance(q.get("query"), str) or not q["query"].strip():
        fail(f"{where}: empty query")
    rel = q.get("relevant")
    if not isinstance(rel, list) or not rel:
        fail(f"{where}: relevant must be a non-empty list")
        rel = []
    if len(set(rel)) != len(rel):
        fail(f"{where}: repeated relevant id")
    for e in rel:
        if e not in by_id:
            fail(f"{where}: unknown relevant entry {e}")
    if "situation" in q:
        sid = q["situation"]
        if sid not in sit_entries:
            fail(f"{where}: unknown situation {sid!r}")
        elif set(rel) != set(sit_entries[sid]):
            fail(f"{where}: relevant differs from the entries of situation {sid}")
    if q.get("split") not in SPLITS:
        fail(f"{where}: split {q.get('split')!r} not in {sorted(SPLITS)}")
    elif (q["split"] == "calibration") != (n % 3 == 0):
        fail(f"{where}: every third query (and only those) should be calibration")
if len(queries) < MIN_QUERIES:
    fail(f"only {len(queries)} queries (need >= {MIN_QUERIES})")

# ---- counts --------------------------------------------------------------------------------
kinds = collections.Counter(r.get("kind") for r in records)
oneoff = [i for i in by_id if i not in owner and i not in distractor_ids]
words = [len(r["text"].split()) for r in records if isinstance(r.get("text"), str)]
print(f"records       {len(records)}  ({kinds['dream']} dreams, {kinds['note']} notes)")
if dates:
    print(f"dates         {dates[0]} .. {dates[-1]}  ({len({(d.year, d.month) for d in dates})} calendar months)")
if words:
    print(f"words/entry   min {min(words)}, median {sorted(words)[len(words)//2]}, max {max(words)}")
print(f"situations    {len(situations)}  ({sum(1 for s in situations if s.get('kind') == 'dream')} dream, "
      f"{sum(1 for s in situations if s.get('kind') == 'note')} note), {len(owner)} entries in them")
for s in situations:
    print(f"  {s.get('id'):24} {s.get('kind'):5} {len(s.get('entries', [])):3}")
print(f"distractors   {len(distractors)}")
print(f"one-offs      {len(oneoff)}  (entries in no situation and not listed as distractors)")
splits = collections.Counter(q.get("split") for q in queries)
styles = collections.Counter(q.get("style") for q in queries)
print(f"queries       {len(queries)}  ({splits['calibration']} calibration, {splits['report']} report; "
      f"{sum(1 for q in queries if 'situation' in q)} situation-level, {sum(1 for q in queries if 'situation' not in q)} targeted; "
      f"{styles['paraphrase']} paraphrase, {styles['keyword']} keyword)")

if problems:
    print(f"\nFAILED: {len(problems)} problem(s)")
    for p in problems[:50]:
        print("  " + p)
    sys.exit(1)
print("\nOK: all checks pass")
