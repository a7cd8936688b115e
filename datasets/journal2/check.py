#!/usr/bin/env python3
"""Validate the second journal dataset (records.jsonl, situations.json) and print its counts.

Usage: python3 datasets/journal2/check.py      (exit code 0 when every check passes, 1 otherwise)
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
SITUATION_FIELDS = {"id", "description", "kind", "entries"}
DISTRACTOR_FIELDS = {"entry", "resembles", "why"}
KINDS = {"dream", "note"}
MIN_RECORDS, MIN_SITUATIONS, MIN_DISTRACTORS = 210, 16, 45
MIN_MONTHS, MAX_MONTHS = 12, 15
SITUATION_SIZE = (6, 12)
WORDS = (15, 110)

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
    leap = y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)
    day = min(d.day, [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1])
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
    if rid != f"k-{n:04d}":
        fail(f"{where}: id {rid!r}, expected k-{n:04d} (ids must be unique and sequential)")
    if rid in by_id:
        fail(f"{where}: duplicate id {rid}")
    by_id[rid] = r
    if r.get("revision") != 1:
        fail(f"{where}: revision must be 1")
    text = r.get("text")
    if not isinstance(text, str) or not text.strip():
        fail(f"{where}: empty text")
    else:
        if "\n" in text or "\r" in text:
            fail(f"{where}: text contains a line break")
        nw = len(text.split())
        if not WORDS[0] <= nw <= WORDS[1]:
            fail(f"{where}: {nw} words (expected {WORDS[0]}-{WORDS[1]})")
    if r.get("kind") not in KINDS:
        fail(f"{where}: kind {r.get('kind')!r} not in {sorted(KINDS)}")
    try:
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", r.get("date", "")):
            raise ValueError
        d = datetime.date.fromisoformat(r["date"])
        if dates and d < dates[-1]:
            fail(f"{where}: date {r['date']} earlier than the previous record (ids must follow date order)")
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

texts = collections.Counter(r.get("text") for r in records if isinstance(r, dict))
for t, c in texts.items():
    if c > 1:
        fail(f"text repeated {c} times: {str(t)[:60]!r}")
if len(records) < MIN_RECORDS:
    fail(f"only {len(records)} records (need >= {MIN_RECORDS})")
if dates:
    if add_months(dates[0], MIN_MONTHS) > dates[-1]:
        fail(f"dates span {dates[0]} .. {dates[-1]}, less than {MIN_MONTHS} months")
    if add_months(dates[0], MAX_MONTHS) < dates[-1]:
        fail(f"dates span {dates[0]} .. {dates[-1]}, more than {MAX_MONTHS} months")

# ---- situations ----------------------------------------------------------------------------
with open(os.path.join(HERE, "situations.json"), encoding="utf-8") as f:
    key = json.load(f)
if set(key) != {"situations", "distractors"}:
    fail(f"situations.json: top-level keys {sorted(key)} differ from ['distractors', 'situations']")
situations = key.get("situations", [])
distractors = key.get("distractors", [])
sit_entries = {}
owner = {}
for s in situations:
    sid = s.get("id")
    if set(s) != SITUATION_FIELDS:
        fail(f"situation {sid}: fields {sorted(s)} differ from {sorted(SITUATION_FIELDS)}")
    if sid in sit_entries:
        fail(f"situation {sid}: duplicate id")
    if not s.get("description"):
        fail(f"situation {sid}: no description")
    if s.get("kind") not in KINDS:
        fail(f"situation {sid}: kind {s.get('kind')!r} not in {sorted(KINDS)}")
    entries = s.get("entries", [])
    sit_entries[sid] = entries
    if not SITUATION_SIZE[0] <= len(entries) <= SITUATION_SIZE[1]:
        fail(f"situation {sid}: {len(entries)} entries (expected {SITUATION_SIZE[0]}-{SITUATION_SIZE[1]})")
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
if len(situations) < MIN_SITUATIONS:
    fail(f"only {len(situations)} situations (need >= {MIN_SITUATIONS})")

distractor_ids = set()
resembled = collections.Counter()
for d in distractors:
    e = d.get("entry")
    if set(d) != DISTRACTOR_FIELDS:
        fail(f"distractor {e}: fields {sorted(d)} differ from {sorted(DISTRACTOR_FIELDS)}")
    if e not in by_id:
        fail(f"distractor: unknown entry {e}")
    if e in owner:
        fail(f"distractor {e} is also a member of situation {owner[e]}")
    if e in distractor_ids:
        fail(f"distractor {e} listed twice")
    distractor_ids.add(e)
    if d.get("resembles") not in sit_entries:
        fail(f"distractor {e}: resembles unknown situation {d.get('resembles')!r}")
    resembled[d.get("resembles")] += 1
    if not d.get("why"):
        fail(f"distractor {e}: no why")
if len(distractors) < MIN_DISTRACTORS:
    fail(f"only {len(distractors)} distractors (need >= {MIN_DISTRACTORS})")

# ---- counts --------------------------------------------------------------------------------
kinds = collections.Counter(r.get("kind") for r in records if isinstance(r, dict))
oneoff = [i for i in by_id if i not in owner and i not in distractor_ids]
oneoff_kinds = collections.Counter(by_id[i].get("kind") for i in oneoff)
dis_kinds = collections.Counter(by_id[d.get("entry")].get("kind") for d in distractors if d.get("entry") in by_id)
words = sorted(len(r["text"].split()) for r in records if isinstance(r, dict) and isinstance(r.get("text"), str))
tags = collections.Counter(t for r in records if isinstance(r, dict) and isinstance(r.get("tags"), list) for t in r["tags"])
moods = collections.Counter(r["metadata"]["mood"] for r in records
                            if isinstance(r, dict) and isinstance(r.get("metadata"), dict) and "mood" in r["metadata"])
print(f"records       {len(records)}  ({kinds['dream']} dreams, {kinds['note']} notes)")
if dates:
    print(f"dates         {dates[0]} .. {dates[-1]}  ({len({(d.year, d.month) for d in dates})} calendar months)")
if words:
    print(f"words/entry   min {words[0]}, median {words[len(words)//2]}, max {words[-1]}")
print(f"tags          {len(tags)} distinct; moods {len(moods)} distinct")
print(f"situations    {len(situations)}  ({sum(1 for s in situations if s.get('kind') == 'dream')} dream, "
      f"{sum(1 for s in situations if s.get('kind') == 'note')} note), {len(owner)} entries in them")
for s in situations:
    print(f"  {str(s.get('id')):22} {str(s.get('kind')):5} {len(s.get('entries', [])):3} entries, "
          f"{resembled[s.get('id')]} distractors")
print(f"distractors   {len(distractors)}  ({dis_kinds['dream']} dreams, {dis_kinds['note']} notes)")
print(f"one-offs      {len(oneoff)}  ({oneoff_kinds['dream']} dreams, {oneoff_kinds['note']} notes; "
      f"entries in no situation and not listed as distractors)")

if problems:
    print(f"\nFAILED: {len(problems)} problem(s)")
    for p in problems[:50]:
        print("  " + p)
    sys.exit(1)
print("\nOK: all checks pass")
