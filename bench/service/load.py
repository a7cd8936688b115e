"""Sustained mixed load through one `kindred serve`: throughput, latency and memory per window.

One owner starts with --preload records (client vectors, so nothing is embedded). Then --requests
requests are sent with --inflight of them outstanding at any time, drawn at random in the mix
30 % `records/upsert` (--per-upsert new records each, with vectors and short texts), 40 %
`search/query` (semantic, by vector, limit 10) and 30 % `records/get` (a random stored record).
`--search-share S` sends S searches instead of 40 % (the gets take the rest of the 70 %): with 0,
the same writes and a read mix without the exact scan over the owner, to tell what grows with
the owner on the write path from what grows with the scan.
Every --window requests the bench prints the window's throughput, p50 and p99 latency (send to
answer), the owner's size, the server's processor time per request (user + system: on a machine
shared with other work it shows the cost that wall-clock figures blur), the client's own (on a
2-core machine the two share the cores, so requests/s ≈ cores ÷ (server + client ms per request)
when both are busy) and the server's resident memory
(VmRSS, and VmHWM at the end).

`--scaling` measures instead how search throughput grows with the requests in flight (1 and 2 by
default): search-only for --scaling-seconds each, on an owner of --preload records.

    python3 bench/service/load.py                       # 7 000 + 70 000 mixed requests
    python3 bench/service/load.py --requests 20000      # shorter
    python3 bench/service/load.py --search-share 0      # the same writes, gets instead of searches
    python3 bench/service/load.py --scaling --preload 50000
"""
import argparse, datetime, json, os, random, statistics, subprocess, sys, tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DIM = 384
WORDS = ("morning coffee walk river garden letter train station friend mother father sister brother "
         "meeting project deadline dinner kitchen recipe bread market rain storm sunshine winter summer "
         "holiday beach mountain village city museum concert song book chapter dream sleep doctor "
         "appointment bicycle car road bridge forest bird cat dog neighbour school lesson teacher").split()


def vector_json(rng):
    return "[" + ",".join(f"{rng.uniform(-1, 1):.5f}" for _ in range(DIM)) + "]"


def record_json(rng, rid):
    text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 24)))
    return '{"id":"%s","revision":1,"text":"%s","date":"2026-0%d-1%d","vector":%s}' % (
        rid, text, rng.randint(1, 9), rng.randint(0, 9), vector_json(rng))


def rss_kb(pid, field="VmRSS"):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


class Pipeline:
    """One `kindred serve` over NDJSON with up to `inflight` requests outstanding."""

    def __init__(self, kindred, db, extra):
        self.p = subprocess.Popen([kindred, "serve", "--db", db, "--framing", "ndjson", *extra], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=1 << 20)
        self.next_id = 0
        self.sent = {}
        self.lock = threading.Lock()
        self.done = threading.Condition(self.lock)
        self.answers = {}
        self.errors = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.p.stdout:
            m = json.loads(line)
            if "id" not in m:
                continue
            now = time.perf_counter()
            with self.lock:
                t0, kind, cb = self.sent.pop(m["id"])
                if "error" in m:
                    self.errors.append((kind, m["error"]))
                if cb:
                    cb(kind, now - t0, m)
                else:
                    self.answers[m["id"]] = m
                self.done.notify_all()

    def send(self, method, params_json, kind=None, cb=None, limit=None):
        with self.lock:
            while limit is not None and len(self.sent) >= limit:
                self.done.wait()
            self.next_id += 1
            rid = self.next_id
            self.sent[rid] = (time.perf_counter(), kind or method, cb)
        self.p.stdin.write(b'{"jsonrpc":"2.0","id":%d,"method":"%s","params":%s}\n' % (rid, method.encode(), params_json.encode()))
        self.p.stdin.flush()
        return rid

    def call(self, method, params_json):
        rid = self.send(method, params_json)
        with self.lock:
            while rid not in self.answers:
                self.done.wait()
            m = self.answers.pop(rid)
        if "error" in m:
            raise RuntimeError(f"{method}: {m['error']}")
        return m["result"]

    def drain(self):
        with self.lock:
            while self.sent:
                self.done.wait()

    def close(self):
        self.drain()
        self.call("shutdown", "{}")
        self.p.stdin.write(b'{"jsonrpc":"2.0","method":"exit"}\n')
        self.p.stdin.flush()
        self.p.wait()


def preload(pipe, rng, owner, n, batch=500):
    ids = []
    for start in range(0, n, batch):
        recs = [f"p{i}" for i in range(start, min(n, start + batch))]
        pipe.call("records/upsert", '{"owner":"%s","records":[%s]}' % (owner, ",".join(record_json(rng, r) for r in recs)))
        ids += recs
    return ids


def cpu_seconds(pid):
    """User + system processor time of the process so far."""
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def own_cpu_seconds():
    """User + system processor time of this client (both of its threads) so far."""
    t = os.times()
    return t.user + t.system


def pct(xs, p):
    s = sorted(xs)
    return s[min(len(s) - 1, int(round(p * (len(s) - 1))))]


def mixed(a, pipe, rng, ids):
    owner = a.owner
    # Requests prepared before timing, so the client's own work stays small while it runs.
    plan = []
    fresh = 0
    known = list(ids)
    for _ in range(a.requests):
        x = rng.random()
        if x < 0.3:
            recs = []
            for _ in range(a.per_upsert):
                rid = f"n{fresh}"
                fresh += 1
                recs.append(record_json(rng, rid))
                known.append(rid)
            plan.append(("records/upsert", "upsert", '{"owner":"%s","records":[%s]}' % (owner, ",".join(recs))))
        elif x < 0.3 + a.search_share:
            plan.append(("search/query", "search", '{"owner":"%s","vector":%s,"mode":"semantic","limit":10}' % (owner, vector_json(rng))))
        else:
            # A record stored before this request was planned (ids are written in plan order).
            plan.append(("records/get", "get", '{"owner":"%s","id":"%s"}' % (owner, rng.choice(known[:len(ids) + max(0, fresh - 8 * a.per_upsert)]))))
    rows = []
    lat = {"upsert": [], "search": [], "get": []}
    window_lat = []
    owner_size = len(ids)

    def done(kind, seconds, m):
        lat[kind].append(seconds)
        window_lat.append(seconds)

    print("| requests | owner records | req/s | p50 ms | p99 ms | upsert p50 | search p50 | get p50 | server CPU ms/req | client CPU ms/req | RSS MB |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    t_window = time.perf_counter()
    c_window = cpu_seconds(pipe.p.pid)
    own_window = own_cpu_seconds()
    first = None
    for i, (method, kind, params) in enumerate(plan, 1):
        if kind == "upsert":
            owner_size += a.per_upsert
        pipe.send(method, params, kind=kind, cb=done, limit=a.inflight)
        if i % a.window == 0 or i == len(plan):
            pipe.drain()
            now = time.perf_counter()
            with pipe.lock:
                w = list(window_lat)
                window_lat.clear()
                kinds = {k: list(v) for k, v in lat.items()}
                for v in lat.values():
                    v.clear()
            c_now = cpu_seconds(pipe.p.pid)
            own_now = own_cpu_seconds()
            row = {"requests": i, "owner": owner_size, "rps": len(w) / (now - t_window), "p50": pct(w, 0.5) * 1000,
                   "cpu_ms": (c_now - c_window) * 1000 / len(w), "client_ms": (own_now - own_window) * 1000 / len(w),
                   "p99": pct(w, 0.99) * 1000, "rss_mb": rss_kb(pipe.p.pid) / 1024,
                   **{f"{k}_p50": (pct(v, 0.5) * 1000 if v else 0) for k, v in kinds.items()}}
            rows.append(row)
            first = first or row
            print(f"| {i:,} | {owner_size:,} | {row['rps']:.0f} | {row['p50']:.1f} | {row['p99']:.1f} | {row['upsert_p50']:.1f} | "
                  f"{row['search_p50']:.1f} | {row['get_p50']:.1f} | {row['cpu_ms']:.2f} | {row['client_ms']:.2f} | {row['rss_mb']:.0f} |", flush=True)
            t_window = time.perf_counter()
            c_window = cpu_seconds(pipe.p.pid)
            own_window = own_cpu_seconds()
    if pipe.errors:
        print(f"{len(pipe.errors)} errors, first: {pipe.errors[0]}", file=sys.stderr)
    last = rows[-1]
    return rows, last["rps"] / first["rps"]


def scaling(a, pipe, rng):
    queries = ['{"owner":"%s","vector":%s,"mode":"semantic","limit":10}' % (a.owner, vector_json(rng)) for _ in range(500)]
    out = []
    for inflight in a.scaling_inflight:
        count = 0
        t0 = time.perf_counter()
        c0 = cpu_seconds(pipe.p.pid)
        while time.perf_counter() - t0 < a.scaling_seconds:
            pipe.send("search/query", queries[count % len(queries)], kind="search", cb=lambda *_: None, limit=inflight)
            count += 1
        pipe.drain()
        wall = time.perf_counter() - t0
        cpu = cpu_seconds(pipe.p.pid) - c0
        rps = count / wall
        out.append((inflight, rps))
        print(f"| {inflight} | {rps:.0f} | {rps / out[0][1]:.2f}× | {cpu * 1000 / count:.2f} | {cpu / wall:.2f} | {os.getloadavg()[0]:.1f} |", flush=True)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--preload", type=int, default=7000)
    ap.add_argument("--requests", type=int, default=70000)
    ap.add_argument("--per-upsert", type=int, default=2)
    ap.add_argument("--search-share", type=float, default=0.4, help="share of searches (0 to 0.7; gets take the rest of 0.7)")
    ap.add_argument("--inflight", type=int, default=8)
    ap.add_argument("--window", type=int, default=10000)
    ap.add_argument("--owner", default="ana")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scaling", action="store_true")
    ap.add_argument("--scaling-inflight", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--scaling-seconds", type=float, default=20)
    ap.add_argument("--set", action="append", default=[], help="key=value passed to kindred serve --set")
    ap.add_argument("--kindred", default=os.environ.get("KINDRED_BIN", os.path.join(ROOT, ".build", "release", "kindred")))
    a = ap.parse_args()
    if not 0 <= a.search_share <= 0.7:
        ap.error("--search-share must be between 0 and 0.7")
    rng = random.Random(a.seed)
    tmp = tempfile.mkdtemp(prefix="kindred-load-bench-")
    db = os.path.join(tmp, "k.sqlite")
    extra = ["--set", "embedder.provider=none", "--set", "index.dimension=384"]
    for kv in a.set:
        extra += ["--set", kv]
    pipe = Pipeline(a.kindred, db, extra)
    pipe.call("initialize", "{}")
    t0 = time.time()
    ids = preload(pipe, rng, a.owner, a.preload)
    print(f"# Load bench ({datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f})\n")
    print(f"Preloaded {a.preload:,} records in {time.time() - t0:.1f} s.\n")
    if a.scaling:
        print("| searches in flight | searches/s | vs one | server CPU ms/search | server cores busy | load average |\n|---:|---:|---:|---:|---:|---:|")
        scaling(a, pipe, rng)
    else:
        print(f"{a.requests:,} requests, {a.inflight} in flight: 30 % upserts ({a.per_upsert} records with vectors each), "
              f"{a.search_share:.0%} semantic searches by vector, {0.7 - a.search_share:.0%} gets.\n")
        rows, ratio = mixed(a, pipe, rng, ids)
        print(f"\nLast window ÷ first: {ratio:.2f}×; peak RSS {rss_kb(pipe.p.pid, 'VmHWM') / 1024:.0f} MB; "
              f"database {sum(os.path.getsize(os.path.join(tmp, f)) for f in os.listdir(tmp)) / 1e6:.0f} MB.")
    pipe.close()


if __name__ == "__main__":
    main()
