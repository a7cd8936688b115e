#!/usr/bin/env python3
"""Fidelity of the int8 forward pass: cosine of each int8 vector to the float32 vector of the same
text (`kindred embed --set embedder.precision=…`), on the 56 parity sentences and on every entry of
the bundled journal; prints min and mean per set and the lowest texts. (Line breaks inside a text
become spaces: the tokenizer splits on both alike, so the tokens are the same.)

Usage: fidelity.py [--kindred PATH]
"""
import argparse
import json
import math
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def embed(kindred, texts, precision):
    data = "".join(t.replace("\r", " ").replace("\n", " ") + "\n" for t in texts)
    p = subprocess.run([kindred, "embed", "--set", f"embedder.precision={precision}", "--file", "-"],
                       input=data, capture_output=True, text=True, check=True)
    vectors = [json.loads(line) for line in p.stdout.splitlines()]
    assert len(vectors) == len(texts)
    return vectors


def cosine(a, b):
    return sum(x * y for x, y in zip(a, b)) / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--kindred", default=str(ROOT / ".build/release/kindred"))
    args = p.parse_args()
    sets = {
        "parity sentences": [s["text"] for s in json.loads((ROOT / "Tests/EmbeddingTests/Fixtures/minilm_reference.json").read_text())["sentences"]],
        "journal entries": [json.loads(l)["text"] for l in (ROOT / "datasets/journal/records.jsonl").read_text().splitlines() if l.strip()],
    }
    for name, texts in sets.items():
        c = [cosine(a, b) for a, b in zip(embed(args.kindred, texts, "int8"), embed(args.kindred, texts, "float32"))]
        low = sorted(range(len(c)), key=c.__getitem__)[:3]
        print(f"{name} ({len(c)}): min {min(c):.5f}, mean {sum(c) / len(c):.5f}, below 0.998: {sum(x < 0.998 for x in c)}; "
              f"lowest: " + ", ".join(f"{c[i]:.5f} {texts[i][:30]!r}" for i in low))


if __name__ == "__main__":
    sys.exit(main())
