"""Search through `kindred serve`: N records with random client vectors (base64) and words, upserted in
batches of 500, then S searches one at a time (hybrid by text with a vector, semantic by vector,
keyword), on a fresh database without an embedder; wall time and the server's processor time (from
/proc) of each phase. Several binaries alternate, round by round, to compare two builds side by side.

    python3 bench/service/search_wire.py --kindred A --kindred B [--rounds 3] [--n 5000] [--searches 2000]
"""
import argparse, base64, json, os, random, struct, subprocess, tempfile, time
DIM = 384
def cpu(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")
def vec(rng):
    v = [rng.gauss(0, 1) for _ in range(DIM)]
    return base64.b64encode(struct.pack("<%df" % DIM, *v)).decode()
def main(binary, n=5000, searches=2000):
    rng = random.Random(3)
    words = "train station dream platform mother teacher sea house rain night door letter road dog garden".split()
    d = tempfile.mkdtemp()
    p = subprocess.Popen([binary, "serve", "--db", os.path.join(d, "s.sqlite"), "--framing", "ndjson", "--set", "embedder.provider=none",
                          "--set", "index.dimension=384"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    i = [0]
    def call(method, params):
        i[0] += 1
        p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": i[0], "method": method, "params": params}) + "\n").encode()); p.stdin.flush()
        while True:
            a = json.loads(p.stdout.readline())
            if a.get("id") == i[0]:
                if "error" in a: raise RuntimeError(a["error"])
                return a["result"]
    call("initialize", {})
    recs = [{"id": f"r{k}", "revision": 1, "text": " ".join(rng.choice(words) for _ in range(12)), "vector": vec(rng)} for k in range(n)]
    c0, t0 = cpu(p.pid), time.perf_counter()
    for k in range(0, n, 500): call("records/upsert", {"owner": "o", "records": recs[k:k + 500]})
    up_wall, up_cpu = time.perf_counter() - t0, cpu(p.pid) - c0
    qs = []
    for k in range(searches):
        m = k % 3
        if m == 0: qs.append({"owner": "o", "text": " ".join(rng.choice(words) for _ in range(3)), "vector": vec(rng), "limit": 10})
        elif m == 1: qs.append({"owner": "o", "vector": vec(rng), "mode": "semantic", "limit": 10})
        else: qs.append({"owner": "o", "text": " ".join(rng.choice(words) for _ in range(3)), "mode": "keyword", "limit": 10})
    c0, t0 = cpu(p.pid), time.perf_counter()
    for q in qs: call("search/query", q)
    s_wall, s_cpu = time.perf_counter() - t0, cpu(p.pid) - c0
    p.stdin.close(); p.wait()
    print(f"{binary}: upsert {n} in {up_wall:.2f} s wall, {up_cpu:.2f} s server CPU; {searches} searches {s_wall:.2f} s wall "
          f"({s_wall / searches * 1000:.2f} ms each), {s_cpu:.2f} s server CPU ({s_cpu / searches * 1000:.3f} ms each)", flush=True)
if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--kindred", action="append", help="binary to time (repeatable; default .build/release/kindred)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--n", type=int, default=5000)
    ap.add_argument("--searches", type=int, default=2000)
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for _ in range(a.rounds):
        for b in a.kindred or [os.path.join(root, ".build", "release", "kindred")]:
            main(b, a.n, a.searches)
