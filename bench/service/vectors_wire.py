"""Client vectors over RPC: N records with 384-d vectors sent to `kindred serve` as `records/upsert`
batches, once with each vector as a JSON array of numbers and once as base64 of little-endian float32,
on fresh databases, side by side in one run (alternating when --rounds > 1).

The messages are built before the clock starts (a client's own encoding is not timed); the time is from
the first byte sent to the last answer read, each batch waiting for its answer, plus the server's
processor time (user + system, from /proc). Numbers are written as a client holding float32 values
writes them (Python's repr of each float32 value, as numpy's `tolist()` gives them: up to 17
significant digits). The server runs without an embedder: these records carry their own vectors.

    python3 bench/service/vectors_wire.py [--n 200000] [--batch 1000] [--rounds 1]
"""
import argparse, base64, json, os, random, struct, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DIM = 384


def distinct_vectors(count, seed=7):
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        v = [rng.gauss(0, 1) for _ in range(DIM)]
        s = sum(x * x for x in v) ** 0.5
        # Rounded to float32, as a client holding float32 vectors has them.
        out.append(list(struct.unpack("<%df" % DIM, struct.pack("<%df" % DIM, *[x / s for x in v]))))
    return out


def messages(n, batch, form, pool):
    out = []
    for first in range(0, n, batch):
        recs = []
        for i in range(first, min(n, first + batch)):
            v = pool[i % len(pool)]
            vector = v if form == "json" else base64.b64encode(struct.pack("<%df" % DIM, *v)).decode("ascii")
            recs.append({"id": f"r{i}", "revision": 1, "text": f"record {i}", "vector": vector})
        msg = {"jsonrpc": "2.0", "id": len(out) + 2, "method": "records/upsert", "params": {"owner": "o", "records": recs}}
        out.append((json.dumps(msg, separators=(",", ":")) + "\n").encode())
    return out


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run(kindred, msgs):
    with tempfile.TemporaryDirectory() as d:
        p = subprocess.Popen([kindred, "serve", "--db", os.path.join(d, "k.sqlite"), "--framing", "ndjson",
                              "--set", "embedder.provider=none", "--set", "index.dimension=384"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        p.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\n')
        p.stdin.flush()
        json.loads(p.stdout.readline())
        cpu0 = cpu_seconds(p.pid)
        t = time.perf_counter()
        for m in msgs:
            p.stdin.write(m)
            p.stdin.flush()
            while True:
                answer = json.loads(p.stdout.readline())
                if "id" in answer:
                    break
            if "error" in answer:
                raise RuntimeError(answer["error"])
        wall = time.perf_counter() - t
        cpu = cpu_seconds(p.pid) - cpu0
        p.stdin.write(b'{"jsonrpc":"2.0","id":0,"method":"index/status","params":{"owner":"o"}}\n')
        p.stdin.flush()
        status = json.loads(p.stdout.readline())["result"]
        p.stdin.close()
        p.wait()
        return wall, cpu, status["vectors"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200_000)
    ap.add_argument("--batch", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--kindred", default=os.environ.get("KINDRED_BIN", os.path.join(ROOT, ".build", "release", "kindred")))
    a = ap.parse_args()
    pool = distinct_vectors(2000)
    results = {"json": [], "base64": []}
    sizes = {}
    for r in range(a.rounds):
        for form in ("json", "base64"):
            msgs = messages(a.n, a.batch, form, pool)
            sizes[form] = sum(len(m) for m in msgs)
            wall, cpu, stored = run(a.kindred, msgs)
            assert stored == a.n, (form, stored)
            results[form].append((wall, cpu))
            print(f"round {r + 1} {form:6}: {a.n} records, {sizes[form] / 1e6:.0f} MB sent, {wall:.1f} s, "
                  f"server processor {cpu:.1f} s, {a.n / wall:.0f} records/s", flush=True)
    for form in ("json", "base64"):
        w = min(x for x, _ in results[form]); c = min(y for _, y in results[form])
        print(f"{form:6}: best {w:.1f} s wall, {c:.1f} s server processor")
    jw = min(x for x, _ in results["json"]); bw = min(x for x, _ in results["base64"])
    print(f"base64 ÷ json wall time: {bw / jw:.2f}×")


if __name__ == "__main__":
    main()
