"""Write and search throughput through `kindred serve --cluster` with 1, 2 and 3 nodes on three
clustered nats-servers, against one `kindred serve --db` process on the same machine, as ratios.

The baseline is one client of one `kindred serve --db`; through the cluster, one client of one router
and then CLIENTS clients, each with its own router and owners. Every client upserts WRITES records,
one request each (the text embedded by the model on the node), then sends SEARCHES semantic searches,
one at a time.
"""

import argparse
import json
import pathlib
import sys
import tempfile
import threading
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "tests-e2e"))

from cluster_support import NatsCluster, Node, Router, wait_all_led  # noqa: E402
from conftest import Server  # noqa: E402

WORDS = ("river dawn sister money bread dog train dream office rain garden letter doctor mountain "
         "kitchen music winter friend argument holiday").split()


def text(owner, i):
    w = [WORDS[(i * 7 + k * 3) % len(WORDS)] for k in range(8)]
    return f"{owner} wrote about the {w[0]} and the {w[1]}, then the {w[2]} near the {w[3]}; {w[4]} {w[5]} {w[6]} {w[7]}."


def client(conn, owners, writes, searches, out):
    t0 = time.monotonic()
    for i in range(writes):
        owner = owners[i % len(owners)]
        conn.result("records/upsert", {"owner": owner, "records": [{"id": f"r{i}", "revision": 1, "text": text(owner, i)}]}, timeout=120)
    t1 = time.monotonic()
    for i in range(searches):
        owner = owners[i % len(owners)]
        conn.result("search/query", {"owner": owner, "text": f"the {WORDS[i % len(WORDS)]} and the {WORDS[(i + 5) % len(WORDS)]}",
                                     "mode": "semantic", "limit": 10}, timeout=120)
    t2 = time.monotonic()
    out.append((t1 - t0, t2 - t1))


def run(conns, writes, searches):
    out, threads = [], []
    for c, conn in enumerate(conns):
        owners = [f"c{c}-owner{k}" for k in range(8)]
        threads.append(threading.Thread(target=client, args=(conn, owners, writes, searches, out)))
    t = time.monotonic()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    wall = time.monotonic() - t
    assert len(out) == len(conns), "a client failed"
    write_s = max(o[0] for o in out)
    search_s = max(o[1] for o in out)
    n = len(conns)
    return {"writes_per_s": round(n * writes / write_s, 1), "searches_per_s": round(n * searches / search_s, 1), "wall_s": round(wall, 1)}


def replay(tmp, nats, nodes, entries):
    """Kills the only node (its `entries` writes are in the log) and starts a node with empty files:
    the time from its start until it serves every shard is the time to apply the whole log, embedding
    every text again (a failover without a standby)."""
    shards = nodes[0].args[nodes[0].args.index("--shards") + 1]
    nodes[0].kill()
    t = time.monotonic()
    fresh = Node(tmp, nats.urls, "fresh", shards=shards, failover_ms=500)
    nodes[0] = fresh
    wait_all_led(nats.urls, [fresh], timeout=900)
    took = time.monotonic() - t
    return {"log_entries": entries, "seconds": round(took, 1), "entries_per_s": round(entries / took, 1)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", type=int, default=2)
    ap.add_argument("--writes", type=int, default=200)
    ap.add_argument("--searches", type=int, default=200)
    ap.add_argument("--shards", type=int, default=16)
    ap.add_argument("--nodes", default="1,2,3")
    a = ap.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        s = Server(pathlib.Path(tmp) / "single.sqlite", tmp)
        s.initialize()
        results["single"] = run([s], a.writes, a.searches)
        s.shutdown_and_exit()
        print("single", json.dumps(results["single"]), flush=True)
    for n in [int(x) for x in a.nodes.split(",")]:
        with tempfile.TemporaryDirectory() as tmp:
            nats = NatsCluster(tmp)
            nodes = [Node(tmp, nats.urls, f"n{i}", shards=a.shards) for i in range(n)]
            try:
                wait_all_led(nats.urls, nodes, timeout=120)
                for clients in sorted({1, a.clients}):
                    routers = [Router(tmp, nats.urls) for _ in range(clients)]
                    for r in routers:
                        r.initialize()
                    key = f"{n} nodes, {clients} client{'s' if clients > 1 else ''}"
                    results[key] = run(routers, a.writes, a.searches)
                    print(key, json.dumps(results[key]), flush=True)
                    for r in routers:
                        r.shutdown_and_exit()
                if n == 1:
                    logged = sum(a.writes * c for c in sorted({1, a.clients}))
                    results["replay"] = replay(tmp, nats, nodes, logged)
                    print("replay of the whole log on a fresh node", json.dumps(results["replay"]), flush=True)
            finally:
                for node in nodes:
                    node.stop()
                nats.stop()
    base = results["single"]
    print("\n| setup | writes/s | ÷ single | searches/s | ÷ single |\n|---|---:|---:|---:|---:|")
    for k, v in results.items():
        if k == "replay":
            continue
        print(f"| {k} | {v['writes_per_s']} | {v['writes_per_s'] / base['writes_per_s']:.2f}× | {v['searches_per_s']} | "
              f"{v['searches_per_s'] / base['searches_per_s']:.2f}× |")


if __name__ == "__main__":
    main()
