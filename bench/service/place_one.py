"""Placing one new record through `kindred serve`: records/upsert, then patterns/refresh, timed.

The history is the first N texts of the grouping speed corpus with their MiniLM vectors (given to
Kindred as client vectors, so nothing is embedded while timing), one passage occurrence each, all in
one category. A cold `kindred patterns refresh` process (which reads the whole history) is timed for
comparison.
"""
import argparse, datetime, json, os, shutil, statistics, struct, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "bench", "results", "grouping-data")
DIM = 384


SYNTHETIC = {}


def synthetic_rows(total, seed=1, clusters=None, spread=0.6, one_offs=0.2):
    """Rows like the engine's synthetic speed run: unit vectors near one of `clusters` random centres
    (n / 250 by default), a fifth of them one-offs; texts name the situation."""
    import numpy as np
    rng = np.random.default_rng(seed)
    clusters = clusters or max(1, total // 250)
    centres = rng.standard_normal((clusters, DIM)).astype(np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    which = rng.integers(0, clusters, total)
    noise = rng.standard_normal((total, DIM)).astype(np.float32)
    noise /= np.linalg.norm(noise, axis=1, keepdims=True)
    alone = rng.random(total) < one_offs
    v = np.where(alone[:, None], noise, centres[which] + spread * noise)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    texts = [f"entry {i} about something else entirely" if alone[i] else f"entry {i} about situation {which[i]}" for i in range(total)]
    return texts, v.astype("<f4").tobytes()


def records(start, n, prefix):
    if SYNTHETIC:
        texts, blob = SYNTHETIC["rows"]
        for i in range(n):
            v = struct.unpack_from(f"{DIM}f", blob, (start + i) * DIM * 4)
            yield {"id": f"{prefix}{start + i}", "revision": 1, "text": texts[start + i], "date": "2026-01-01",
                   "vector": [round(x, 7) for x in v]}
        return
    texts = open(os.path.join(DATA, "speed-corpus.txt"), encoding="utf-8").read().split("\n")
    with open(os.path.join(DATA, "speed-corpus.f32"), "rb") as f:
        f.seek(start * DIM * 4)
        data = f.read(n * DIM * 4)
    for i in range(n):
        v = struct.unpack_from(f"{DIM}f", data, i * DIM * 4)
        yield {"id": f"{prefix}{start + i}", "revision": 1, "text": texts[start + i] or "(empty)", "date": "2026-01-01",
               "vector": [round(x, 7) for x in v]}


class Server:
    def __init__(self, kindred, db, config=None):
        extra = ["--config", config] if config else []
        self.p = subprocess.Popen([kindred, "serve", "--db", db, "--framing", "ndjson"] + extra, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.n = 0

    def call(self, method, params):
        self.n += 1
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params}) + "\n")
        self.p.stdin.flush()
        while True:
            m = json.loads(self.p.stdout.readline())
            if m.get("id") == self.n:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m["result"]

    def close(self):
        self.call("shutdown", {})
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "exit"}) + "\n")
        self.p.stdin.flush()
        self.p.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--place", type=int, default=30)
    ap.add_argument("--kindred", default=os.environ.get("KINDRED_BIN", os.path.join(ROOT, ".build", "release", "kindred")))
    ap.add_argument("--synthetic", action="store_true",
                    help="clustered random vectors (numpy) instead of the grouping speed corpus")
    ap.add_argument("--prepared", help="directory keeping the ingested and built history: made on the first run, "
                    "copied (not changed) on later runs with the same --n and --synthetic")
    a = ap.parse_args()
    if a.synthetic:
        SYNTHETIC["rows"] = synthetic_rows(a.n + a.place + 1)
    tmp = tempfile.mkdtemp(prefix="kindred-service-bench-")
    db = os.path.join(tmp, "k.sqlite")
    kept = a.prepared and os.path.join(a.prepared, f"{'synthetic' if a.synthetic else 'corpus'}-{a.n}")
    if kept and os.path.exists(os.path.join(kept, "build.json")):
        for name in os.listdir(kept):
            shutil.copy(os.path.join(kept, name), os.path.join(tmp, name))
        meta = json.load(open(os.path.join(tmp, "build.json")))
        ingest, build = meta["ingest"], meta["build"]
    else:
        history = os.path.join(tmp, "history.jsonl")
        with open(history, "w") as out:
            for r in records(0, a.n, "r"):
                out.write(json.dumps(r) + "\n")
        t0 = time.time()
        subprocess.run([a.kindred, "ingest", "--db", db, "--owner", "ana", "--json", history], check=True, capture_output=True)
        ingest = time.time() - t0
        build = json.loads(subprocess.run([a.kindred, "patterns", "refresh", "--db", db, "--owner", "ana", "--json"],
                                          check=True, capture_output=True, text=True).stdout)
        if kept:
            os.makedirs(kept, exist_ok=True)
            for name in os.listdir(tmp):
                if name.startswith("k.sqlite"):
                    shutil.copy(os.path.join(tmp, name), os.path.join(kept, name))
            json.dump({"ingest": ingest, "build": build}, open(os.path.join(kept, "build.json"), "w"))
    extra = list(records(a.n, a.place + 1, "new"))
    load_before = os.getloadavg()[0]
    s = Server(a.kindred, db)
    s.call("initialize", {})
    t0 = time.time()
    s.call("patterns/refresh", {"owner": "ana"})
    first = time.time() - t0
    trips, durations, joined = [], [], 0
    for r in extra[:a.place]:
        s.call("records/upsert", {"owner": "ana", "records": [r]})
        t0 = time.time()
        res = s.call("patterns/refresh", {"owner": "ana"})
        trips.append((time.time() - t0) * 1000)
        durations.append(res["durationMs"])
        joined += 1 if res["assigned"] > 0 else 0
    s.close()
    one = os.path.join(tmp, "one.jsonl")
    with open(one, "w") as out:
        out.write(json.dumps(extra[a.place]) + "\n")
    subprocess.run([a.kindred, "ingest", "--db", db, "--owner", "ana", "--json", one], check=True, capture_output=True)
    t0 = time.time()
    cold = json.loads(subprocess.run([a.kindred, "patterns", "refresh", "--db", db, "--owner", "ana", "--json"],
                                     check=True, capture_output=True, text=True).stdout)
    cold_wall = time.time() - t0
    trips.sort()
    lines = [
        f"# Service: placing one record ({datetime.date.today()}, {os.cpu_count()} cores)", "",
        f"History: {a.n:,} records of the {'synthetic clustered vectors' if a.synthetic else 'grouping speed corpus'} with client vectors, "
        "one passage occurrence each (one category).", "",
        "| step | time |", "|---|---:|",
        f"| ingest {a.n:,} records | {ingest:.1f} s |",
        f"| first refresh (passage occurrences + full build), `kindred patterns refresh` | {build['durationMs'] / 1000:.1f} s |",
        f"| first `patterns/refresh` of a fresh `kindred serve` (reads the state) | {first * 1000:.0f} ms |",
        f"| upsert + `patterns/refresh` of one new record, median of {a.place} (round trip of the refresh) | **{statistics.median(trips):.0f} ms** |",
        f"| same, p90 | {trips[min(len(trips) - 1, len(trips) * 9 // 10)]:.0f} ms |",
        f"| same, `durationMs` median | {statistics.median(durations):.0f} ms |",
        f"| one new record with a cold `kindred patterns refresh` process (reads the whole history) | {cold['durationMs']} ms ({cold_wall * 1000:.0f} ms wall) |",
        "", f"{joined} of {a.place} new records joined a group. Load average (1 min) {load_before:.1f} before the server started, "
        f"{os.getloadavg()[0]:.1f} at the end; binary {a.kindred}.",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    os.makedirs(os.path.join(ROOT, "bench", "results"), exist_ok=True)
    path = os.path.join(ROOT, "bench", "results", f"service-{datetime.date.today():%Y%m%d}.md")
    open(path, "w").write(text)
    print("written", path, file=sys.stderr)


if __name__ == "__main__":
    main()
