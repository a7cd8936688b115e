"""Times long-text cases over `kindred serve` (NDJSON): keyword search over 1 MiB records, a
100 000-character query, and re-sending an unchanged 1 MiB record whose passages are occurrences."""
import json, os, random, subprocess, tempfile, time

BIN = os.environ.get("KINDRED_BIN", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".build", "release", "kindred"))
rng = random.Random(7)
VOCAB = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 9))) for _ in range(3000)]

def long_text(seed, size=1_000_000):
    r = random.Random(seed)
    out, n = [], 0
    while n < size:
        s = " ".join(r.choice(VOCAB) for _ in range(r.randint(6, 20))).capitalize() + ". "
        out.append(s); n += len(s)
    return "".join(out)[:size]

class Server:
    def __init__(self, db, *sets):
        args = [BIN, "serve", "--db", db, "--framing", "ndjson"]
        for s in sets: args += ["--set", s]
        self.p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.n = 0
        self.call("initialize", {"processId": None, "capabilities": {}})
    def call(self, method, params):
        self.n += 1
        msg = json.dumps({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params}) + "\n"
        self.p.stdin.write(msg.encode()); self.p.stdin.flush()
        while True:
            line = json.loads(self.p.stdout.readline())
            if line.get("id") == self.n:
                if "error" in line: raise RuntimeError(line["error"])
                return line["result"]
    def timed(self, method, params, reps=3):
        best = None
        for _ in range(reps):
            t = time.perf_counter(); r = self.call(method, params); d = time.perf_counter() - t
            best = d if best is None else min(best, d)
        return best, r
    def rss(self):
        st = open(f"/proc/{self.p.pid}/status").read().split("\n")
        get = lambda k: int(next(l for l in st if l.startswith(k)).split()[1]) // 1024
        return get("VmRSS:"), get("VmHWM:")
    def close(self):
        self.p.stdin.close(); self.p.wait(timeout=30)

def main():
    tmp = tempfile.mkdtemp()
    texts = [long_text(i) for i in range(5)]
    # Search over 5 records of 1 MB, with the model.
    s = Server(os.path.join(tmp, "search.sqlite"))
    s.call("records/upsert", {"owner": "o", "records": [{"id": f"r{i}", "revision": 1, "text": t} for i, t in enumerate(texts)]})
    # wait for embeddings
    for _ in range(600):
        st = s.call("index/status", {"owner": "o"})
        if st.get("pendingEmbeddings", st.get("pending", 0)) == 0: break
        time.sleep(0.5)
    w1, w2 = VOCAB[10], VOCAB[20]
    d, r = s.timed("search/query", {"owner": "o", "text": f"{w1} {w2}", "mode": "keyword"})
    print(f"keyword 2-word query over 5 x 1 MB: {d*1000:.0f} ms, {len(r['results'])} hits")
    d, r = s.timed("search/query", {"owner": "o", "text": f"{w1} {w2}"})
    print(f"hybrid 2-word query over 5 x 1 MB: {d*1000:.0f} ms, {len(r['results'])} hits")
    big = long_text(99, 100_000)
    d, r = s.timed("search/query", {"owner": "o", "text": big, "mode": "keyword"}, reps=1)
    print(f"keyword 100 000-char query: {d*1000:.0f} ms, {len(r['results'])} hits, notes={r.get('notes')}")
    d, r = s.timed("search/query", {"owner": "o", "text": big}, reps=1)
    print(f"hybrid 100 000-char query: {d*1000:.0f} ms, {len(r['results'])} hits")
    d, r = s.timed("search/query", {"owner": "o", "text": big, "mode": "semantic"}, reps=1)
    print(f"semantic 100 000-char query: {d*1000:.0f} ms, {len(r['results'])} hits")
    print("server RSS MB (now, peak):", s.rss())
    s.close()
    # Unchanged upsert of a 1 MB record whose passages are occurrences.
    u = Server(os.path.join(tmp, "up.sqlite"), "embedder.provider=none", "index.dimension=4")
    rec = {"id": "big", "revision": 1, "text": texts[0], "vector": [1, 0, 0, 0.5]}
    u.call("records/upsert", {"owner": "o", "records": [rec]})
    ref = u.call("patterns/refresh", {"owner": "o"})
    print("refresh:", {k: ref.get(k) for k in ("passageOccurrences", "waitingForEmbedder")})
    print("RSS MB before re-send (now, peak):", u.rss())
    d, r = u.timed("records/upsert", {"owner": "o", "records": [rec]})
    print(f"unchanged re-send of 1 MB record: {d*1000:.0f} ms, status {r['results'][0]['status']}")
    print("RSS MB after re-send (now, peak):", u.rss())
    rec2 = dict(rec, revision=2)
    d, r = u.timed("records/upsert", {"owner": "o", "records": [rec2]}, reps=1)
    print(f"same text, new revision: {d*1000:.0f} ms, status {r['results'][0]['status']}")
    print("RSS MB after (now, peak):", u.rss())
    u.close()

main()
