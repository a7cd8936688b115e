"""Validates a translation of this journal (a folder beside it: records.jsonl, translated entry by
entry) against the English journal, and prints its counts. Used by each translation's check.py;
standard library only.

- records.jsonl holds the English journal's entries one to one, in the same order, with the same
  fields in the same order: every field but `text` (id, revision, kind, date, tags, metadata) equal
  to the English record's;
- every text is non-empty, differs from the English text, and reads as the language: more of its
  function words than English ones in every entry, and few English ones over the whole file;
- every name of the English journal (Marta, Lucia, Tomas, Mr. Halloran, Biscuit, ...) appears in an
  entry exactly when it appears in the English entry, so no detail that ties an entry to its
  situation is lost or added;
- the key is the English journal's (situations.json here, checked by check.py): every entry it names
  is a record of the translation, with the kind its situation says; the folder holds no copy of it.
"""
import collections
import json
import os
import re
import sys

ENGLISH = os.path.dirname(os.path.abspath(__file__))
NAMES = ["Marta", "Lucia", "Tomas", "Priya", "Sam", "Hannah", "Halloran", "Biscuit", "Okafor", "Owen",
         "Lena", "Elena", "Larkin", "Jess", "Ada", "Juno", "Gerald", "Marmalade", "Carver", "Brennan"]
ENGLISH_WORDS = set("""the and were of to my with that had it she he they this is for on at
    but not you what when there into from""".split())
MAX_ENGLISH_SHARE = 0.01


def main(folder, language, function_words):
    """Checks the translation in `folder` (its function words: a set of lower-case words) and exits
    0 when every check passes, 1 otherwise."""
    folder = os.path.dirname(os.path.abspath(folder)) if folder.endswith(".py") else os.path.abspath(folder)
    problems = []
    fail = problems.append

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
        return re.findall(r"[^\W\d_]+", text.lower())

    english = load_jsonl(os.path.join(ENGLISH, "records.jsonl"))
    translated = load_jsonl(os.path.join(folder, "records.jsonl"))
    if len(translated) != len(english):
        fail(f"{len(translated)} records, the English journal has {len(english)}")
    name_rx = {n: re.compile(r"\b%s(s|')?(?!\w)" % n) for n in NAMES}
    counts = collections.Counter()
    for n, (en, tr) in enumerate(zip(english, translated), 1):
        where = f"records.jsonl:{n}"
        if not isinstance(tr, dict):
            fail(f"{where}: not an object")
            continue
        if list(tr) != list(en):
            fail(f"{where}: fields {list(tr)} differ from the English record's {list(en)} (same keys, same order)")
        for field in en:
            if field != "text" and tr.get(field) != en[field]:
                fail(f"{where}: {field} {tr.get(field)!r} differs from the English record's {en[field]!r}")
        text = tr.get("text")
        if not isinstance(text, str) or not text.strip():
            fail(f"{where}: empty text")
            continue
        if text.strip() == en["text"].strip():
            fail(f"{where}: text identical to the English entry")
        w = words(text)
        native = sum(x in function_words for x in w)
        e = sum(x in ENGLISH_WORDS for x in w)
        counts["words"] += len(w)
        counts["english"] += e
        if native <= e:
            fail(f"{where}: {native} {language} and {e} English function words; not {language}?")
        for name, rx in name_rx.items():
            if bool(rx.search(text)) != bool(rx.search(en["text"])):
                fail(f"{where}: {name} {'missing' if rx.search(en['text']) else 'added'}")
    if counts["words"] and counts["english"] / counts["words"] > MAX_ENGLISH_SHARE:
        fail(f"{counts['english']} of {counts['words']} words are English function words")

    if os.path.exists(os.path.join(folder, "situations.json")):
        fail("situations.json: the key is ../journal/situations.json; a copy here could drift from it")
    with open(os.path.join(ENGLISH, "situations.json"), encoding="utf-8") as f:
        key = json.load(f)
    kind_of = {r.get("id"): r.get("kind") for r in translated if isinstance(r, dict)}
    in_situation = set()
    for s in key.get("situations", []):
        for e in s.get("entries", []):
            in_situation.add(e)
            if kind_of.get(e) != s.get("kind"):
                fail(f"situation {s.get('id')}: entry {e} is {kind_of.get(e)!r} here, the situation is {s.get('kind')!r}")
    distractors = {d.get("entry") for d in key.get("distractors", [])}
    for d in distractors - set(kind_of):
        fail(f"distractor {d}: no such record")

    kinds = collections.Counter(r.get("kind") for r in translated if isinstance(r, dict))
    lengths = sorted(len(r["text"].split()) for r in translated if isinstance(r, dict) and isinstance(r.get("text"), str))
    print(f"records       {len(translated)}  ({kinds['dream']} dreams, {kinds['note']} notes), one to one with ../journal/records.jsonl")
    dates = sorted(r["date"] for r in translated if isinstance(r, dict) and isinstance(r.get("date"), str))
    if dates:
        print(f"dates         {dates[0]} .. {dates[-1]}")
    if lengths:
        print(f"words/entry   min {lengths[0]}, median {lengths[len(lengths) // 2]}, max {lengths[-1]}")
    print(f"english share {counts['english']} of {counts['words']} words are English function words")
    print(f"key           {len(key.get('situations', []))} situations holding {len(in_situation)} entries, "
          f"{len(distractors)} distractors, {len(kind_of) - len(in_situation) - len(distractors - in_situation)} one-offs (../journal/situations.json)")
    if problems:
        print(f"\nFAILED: {len(problems)} problem(s)")
        for p in problems[:50]:
            print("  " + p)
        sys.exit(1)
    print(f"\nOK: all checks pass ({language})")
