"""Chaos run: three nats-servers, three nodes and two clients writing through their own routers for
MINUTES minutes while, every PERIOD seconds, one node or one nats-server (never two at once) is
killed with SIGKILL and started again a few seconds later. At the end every acknowledged write must
be readable through a fresh router: the run prints the acknowledged, refused (retryable errors) and
lost counts, and the longest a client waited for one write. With --snapshot-every N the nodes
snapshot each shard every N writes and trim its log, so restarted nodes start copies from snapshots:
the run also counts the snapshots taken and restored.
"""

import argparse
import contextlib
import json
import pathlib
import random
import sys
import tempfile
import threading
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "tests-e2e"))

from cluster_support import NatsCluster, Node, Router, wait_all_led  # noqa: E402

SHARD_UNAVAILABLE = -32060


def writer(router, name, stop, acked, refused, waits):
    i = 0
    while not stop.is_set():
        owner = f"{name}-owner{i % 5}"
        t = time.monotonic()
        resp = router.call("records/upsert", {"owner": owner, "records": [{"id": f"r{i}", "revision": 1, "text": f"{owner} entry {i}"}]}, timeout=180)
        waits.append(time.monotonic() - t)
        if "result" in resp:
            acked.append((owner, f"r{i}"))
        else:
            assert resp["error"]["code"] == SHARD_UNAVAILABLE, resp
            refused.append((owner, f"r{i}"))
        i += 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--minutes", type=float, default=10)
    ap.add_argument("--period", type=float, default=20)
    ap.add_argument("--shards", type=int, default=16)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--snapshot-every", type=int, default=0, help="cluster.snapshotEvery (0: the default, 10 000)")
    ap.add_argument("--dir", help="keep the servers' stores and the nodes' logs in DIR (default: a temporary directory)")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    with (contextlib.nullcontext(a.dir) if a.dir else tempfile.TemporaryDirectory()) as tmp:
        nats = NatsCluster(tmp)
        config = None
        if a.snapshot_every:
            config = pathlib.Path(tmp) / "cluster.json"
            config.write_text(json.dumps({"cluster": {"shards": a.shards, "failoverMs": 3000, "snapshotEvery": a.snapshot_every, "snapshotEveryMs": 0}}))
        nodes = [Node(tmp, nats.urls, f"n{i}", shards=a.shards, failover_ms=3000, config=config) for i in range(3)]
        routers = []
        try:
            wait_all_led(nats.urls, nodes, timeout=120)
            stop = threading.Event()
            acked, refused, waits, threads = [], [], [], []
            for c in range(2):
                r = Router(tmp, nats.urls)
                r.initialize()
                routers.append(r)
                th = threading.Thread(target=writer, args=(r, f"c{c}", stop, acked, refused, waits), daemon=True)
                th.start()
                threads.append(th)
            end = time.monotonic() + a.minutes * 60
            kills = []
            while time.monotonic() < end:
                time.sleep(a.period * rng.uniform(0.5, 1.0))
                if rng.random() < 0.5:
                    k = rng.randrange(3)
                    nodes[k].kill()
                    kills.append(f"node n{k}")
                    time.sleep(rng.uniform(1, 8))
                    nodes[k].start()
                else:
                    k = rng.randrange(3)
                    nats.kill(k)
                    kills.append(f"nats-server {k}")
                    time.sleep(rng.uniform(1, 8))
                    nats.start(k)
                print(f"{time.strftime('%H:%M:%S')} killed and restarted {kills[-1]}; acknowledged {len(acked)}, refused {len(refused)}", flush=True)
            stop.set()
            for th in threads:
                th.join(timeout=200)
            wait_all_led(nats.urls, nodes, timeout=180)
            check = Router(tmp, nats.urls)
            check.initialize()
            lost = [w for w in acked if "result" not in check.call("records/get", {"owner": w[0], "id": w[1]}, timeout=120)]
            check.shutdown_and_exit()
            summary = {"minutes": a.minutes, "kills": len(kills), "acknowledged": len(acked), "refused": len(refused),
                       "lost": len(lost), "longest_write_wait_s": round(max(waits), 2),
                       "median_write_ms": round(sorted(waits)[len(waits) // 2] * 1000, 1)}
            logs = "".join(n.log_path.read_text(errors="replace") for n in nodes)
            summary.update(snapshots=logs.count(": snapshot "), restored=logs.count("restored from snapshot"),
                           snapshots_refused=logs.count(" refused: "), restarted_from_snapshot=logs.count("starts again from a snapshot"))
            print(json.dumps(summary))
            if lost:
                print("LOST:", lost[:20])
                sys.exit(1)
        finally:
            for r in routers:
                if r.proc.poll() is None:
                    r.proc.kill()
            for n in nodes:
                n.stop()
            nats.stop()


if __name__ == "__main__":
    main()
