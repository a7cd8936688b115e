#!/usr/bin/env python3
"""Validate the German journal against the English one it translates, and print its counts.

Usage: python3 datasets/journal-de/check.py      (exit code 0 when every check passes, 1 otherwise)
Standard library only.

- records.jsonl holds the English journal's entries one to one, in the same order: every field but
  `text` (id, revision, kind, date, tags, metadata) equal to the English record's;
- every text is non-empty, differs from the English text, and reads as German: more German than
  English function words in every entry, and few English ones over the whole file;
- every name of the English journal (Marta, Lucia, Tomas, Mr. Halloran, Biscuit, ...) appears in an
  entry exactly when it appears in the English entry, so no detail that ties an entry to its
  situation is lost or added;
- the key is the English journal's (../journal/situations.json, checked by ../journal/check.py):
  every entry it names is a record here, with the kind its situation says.
"""
import collections
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ENGLISH = os.path.join(HERE, "..", "journal")
NAMES = ["Marta", "Lucia", "Tomas", "Priya", "Sam", "Hannah", "Halloran", "Biscuit", "Okafor", "Owen",
         "Lena", "Elena", "Larkin", "Jess", "Ada", "Juno", "Gerald", "Marmalade", "Carver", "Brennan"]
GERMAN_WORDS = set("""und ich die der das nicht ein eine einen einem einer sie er es mit auf mir mich
    war hatte ist sich zu im in den dem des von wie als dann noch nur immer wieder auch aber""".split())
ENGLISH_WORDS = set("""the and were of to my with that had it she he they this is for on at
    but not you what when there into from""".split())
MAX_ENGLISH_SHARE = 0.01

problems = []


def fail(msg):
    problems.append(msg)


def load_jsonl(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                fail(f"{path}:{n}: empty line")
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as e:
                fail(f"{path}:{n}: not JSON ({e})")
    return out


def words(text):
    return re.findall(r"[a-zäöüß]+", text.lower())


english = load_jsonl(os.path.join(ENGLISH, "records.jsonl"))
german = load_jsonl(os.path.join(HERE, "records.jsonl"))
if len(german) != len(english):
    fail(f"{len(german)} records, the English journal has {len(english)}")

name_rx = {n: re.compile(r"\b%s(s|')?(?!\w)" % n) for n in NAMES}
counts = collections.Counter()
for n, (en, de) in enumerate(zip(english, german), 1):
    where = f"records.jsonl:{n}"
    if not isinstance(de, dict):
        fail(f"{where}: not an object")
        continue
    if set(de) != set(en):
        fail(f"{where}: fields {sorted(de)} differ from the English record's {sorted(en)}")
    for field in en:
        if field != "text" and de.get(field) != en[field]:
            fail(f"{where}: {field} {de.get(field)!r} differs from the English record's {en[field]!r}")
    text = de.get("text")
    if not isinstance(text, str) or not text.strip():
        fail(f"{where}: empty text")
        continue
    if text.strip() == en["text"].strip():
        fail(f"{where}: text identical to the English entry")
    w = words(text)
    g = sum(x in GERMAN_WORDS for x in w)
    e = sum(x in ENGLISH_WORDS for x in w)
    counts["words"] += len(w)
    counts["english"] += e
    if g <= e:
        fail(f"{where}: {g} German and {e} English function words; not German?")
    for name, rx in name_rx.items():
        if bool(rx.search(text)) != bool(rx.search(en["text"])):
            fail(f"{where}: {name} {'missing' if rx.search(en['text']) else 'added'}")
if counts["words"] and counts["english"] / counts["words"] > MAX_ENGLISH_SHARE:
    fail(f"{counts['english']} of {counts['words']} words are English function words")

with open(os.path.join(ENGLISH, "situations.json"), encoding="utf-8") as f:
    key = json.load(f)
kind_of = {r.get("id"): r.get("kind") for r in german if isinstance(r, dict)}
for s in key.get("situations", []):
    for e in s.get("entries", []):
        if kind_of.get(e) != s.get("kind"):
            fail(f"situation {s.get('id')}: entry {e} is {kind_of.get(e)!r} here, the situation is {s.get('kind')!r}")
for d in key.get("distractors", []):
    if d.get("entry") not in kind_of:
        fail(f"distractor {d.get('entry')}: no such record")

kinds = collections.Counter(r.get("kind") for r in german if isinstance(r, dict))
lengths = sorted(len(r["text"].split()) for r in german if isinstance(r, dict) and isinstance(r.get("text"), str))
print(f"records       {len(german)}  ({kinds['dream']} dreams, {kinds['note']} notes), one to one with ../journal/records.jsonl")
if lengths:
    print(f"words/entry   min {lengths[0]}, median {lengths[len(lengths) // 2]}, max {lengths[-1]}")
print(f"english share {counts['english']} of {counts['words']} words are English function words")
print(f"key           {len(key.get('situations', []))} situations, {len(key.get('distractors', []))} distractors "
      "(../journal/situations.json)")

if problems:
    print(f"\nFAILED: {len(problems)} problem(s)")
    for p in problems[:50]:
        print("  " + p)
    sys.exit(1)
print("\nOK: all checks pass")
