"""A folder of notes made from the bundled journal (datasets/journal) for `kindred lsp`: one file per
month (`journal/2025-01.md`) with a dated section per entry (`## 2025-01-04`), a note whose date is
its file name, a plain text file, a hidden folder, and a file that is not UTF-8. `where[id]` tells
the file and the lines (0-based, inclusive: heading to last line) each journal entry went to."""

import json
import pathlib
from collections import defaultdict

from conftest import REPO

JOURNAL = REPO / "datasets" / "journal"


def journal():
    return [json.loads(line) for line in (JOURNAL / "records.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]


def situations():
    return {s["id"]: s["entries"] for s in json.loads((JOURNAL / "situations.json").read_text(encoding="utf-8"))["situations"]}


def make(root, records=None):
    root = pathlib.Path(root)
    records = records if records is not None else journal()
    by_month = defaultdict(list)
    for r in records:
        by_month[r["date"][:7]].append(r)
    where = {}
    (root / "journal").mkdir(parents=True)
    for month, entries in sorted(by_month.items()):
        lines = [f"# Journal, {month}", ""]
        for r in entries:
            start = len(lines)
            lines += [f"## {r['date']}", "", r["text"]]
            where[r["id"]] = ("journal/" + f"{month}.md", start, len(lines) - 1)
            lines.append("")
        (root / "journal" / f"{month}.md").write_text("\n".join(lines), encoding="utf-8")
    (root / "ideas").mkdir()
    (root / "ideas" / "2025-03-15.md").write_text(
        "# A reading nook\n\nTurn the box room into a reading nook: a low armchair, a lamp with a warm bulb, "
        "and shelves for the paperbacks stacked by the bed.\n", encoding="utf-8")
    (root / "shopping.txt").write_text("Seed potatoes, twine for the bean poles, a new pair of gardening gloves.\n", encoding="utf-8")
    (root / ".private").mkdir()
    (root / ".private" / "secret.md").write_text("The combination of the bicycle lock is in the blue notebook.\n", encoding="utf-8")
    (root / "scan.md").write_bytes(b"# Scanned page\n\nCaf\xe9 au lait \xff\xfe on the terrace\n")
    return where
