"""Occurrences of many records through `kindred serve`: one `occurrences/put` per record against
`items` batches, same records and descriptions, in one run.

The records are the bundled journal's entries (repeated under new ids up to N), given client vectors
so that nothing but the occurrence descriptions is embedded. Each record gets one occurrence per
sentence (up to three), the sentence being both excerpt and description, as an extractor would send.
The real model embeds the descriptions in both runs.
"""
import argparse, datetime, json, os, random, re, sys, tempfile, time

from place_one import Server

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DIM = 384


def corpus(n):
    rows = [json.loads(l) for l in open(os.path.join(ROOT, "datasets", "journal", "records.jsonl"), encoding="utf-8")]
    rng = random.Random(7)
    out = []
    for i in range(n):
        r = rows[i % len(rows)]
        v = [rng.gauss(0, 1) for _ in range(DIM)]
        s = sum(x * x for x in v) ** 0.5
        sentences = [x.strip() for x in re.split(r"(?<=[.!?])\s+", r["text"]) if len(x.strip()) > 3][:3]
        out.append(({"id": f"e{i}", "revision": 1, "text": r["text"], "date": r["date"], "vector": [round(x / s, 6) for x in v]},
                    [{"category": "situation", "description": x, "excerpt": x} for x in sentences]))
    return out


def run(kindred, rows, batch, embed):
    with tempfile.TemporaryDirectory() as d:
        config = None
        if not embed:
            config = os.path.join(d, "config.json")
            json.dump({"embedder": {"provider": "none"}}, open(config, "w"))
        s = Server(kindred, os.path.join(d, "k.sqlite"), config)
        s.call("initialize", {})
        for i in range(0, len(rows), 500):
            s.call("records/upsert", {"owner": "b", "records": [r for r, _ in rows[i:i + 500]]})
        t = time.perf_counter()
        if batch == 1:
            for r, occ in rows:
                s.call("occurrences/put", {"owner": "b", "recordId": r["id"], "revision": 1, "occurrences": occ})
        else:
            for i in range(0, len(rows), batch):
                items = [{"recordId": r["id"], "revision": 1, "occurrences": occ} for r, occ in rows[i:i + batch]]
                res = s.call("occurrences/put", {"owner": "b", "items": items})
                assert res["failed"] == 0, res
        put = time.perf_counter() - t
        t = time.perf_counter()
        s.call("patterns/refresh", {"owner": "b"})
        refresh = time.perf_counter() - t
        s.close()
    return put, refresh


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kindred", default=os.path.join(ROOT, ".build", "release", "kindred"))
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--batch", type=int, default=500)
    a = ap.parse_args()
    rows = corpus(a.n)
    occ = sum(len(o) for _, o in rows)
    lines = [f"# occurrences/put, {a.n} records, {occ} occurrences ({datetime.date.today()}, load {os.getloadavg()[0]:.2f})", "",
             "| embedder | how | puts | per record | then refresh |", "|---|---|---:|---:|---:|"]
    for embed in (True, False):
        single = run(a.kindred, rows, 1, embed)
        bulk = run(a.kindred, rows, a.batch, embed)
        name = "local model" if embed else "none (storage and pattern bookkeeping only)"
        lines += [f"| {name} | one call per record | {single[0]:.1f} s | {single[0] / a.n * 1000:.2f} ms | {single[1]:.2f} s |",
                  f"| {name} | `items`, {a.batch} per call | {bulk[0]:.1f} s | {bulk[0] / a.n * 1000:.2f} ms | {bulk[1]:.2f} s |",
                  f"| {name} | bulk / single | {bulk[0] / single[0]:.2f}× | | |"]
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
