"""Joining from snapshots against replaying the whole write log. One node on SHARDS shards takes
WRITES one-record upserts of texts (each embedded by the model); with snapshots on
(`cluster.snapshotEveryMs` 3 000 and no count: each shard is snapshotted a few seconds after its
writes, and its log trimmed), or off. Then the node is killed and a node with empty files takes
every shard: the time until it serves them all, and until every record has its vector — from the
snapshots (which hold the leader's vectors) and the log's tail, or from the whole log (every text
embedded again). Prints each snapshot's size and the time to take it and to restore it (from the
nodes' log lines), and how many log entries the shards' subjects still hold."""

import argparse
import json
import pathlib
import random
import re
import sys
import tempfile
import time

from replay import entry
from cluster_support import NatsCluster, Node, Router, cluster_status, wait_all_led  # noqa: E402

OWNERS = 32


def pending(r):
    return sum(r.result("index/status", {"owner": f"owner{k}"}, timeout=120)["pendingEmbeddings"] for k in range(OWNERS))


def run(snapshots, writes, shards):
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        config = pathlib.Path(tmp) / "cluster.json"
        config.write_text(json.dumps({"cluster": {"shards": shards, "failoverMs": 1000, "standbys": 0, "snapshotEvery": 0,
                                                  "snapshotEveryMs": 3000 if snapshots else 0}}))
        nats = NatsCluster(tmp)
        nodes = [Node(tmp, nats.urls, "n0", config=config)]
        try:
            wait_all_led(nats.urls, nodes, timeout=120)
            r = Router(tmp, nats.urls)
            r.initialize()
            for i in range(writes):
                r.result("records/upsert", entry(i, False, rng), timeout=120)
            while pending(r):
                time.sleep(0.2)
            r.shutdown_and_exit()
            taken = []
            if snapshots:
                # Each shard's snapshot after its last write (the one holding the whole log).
                deadline = time.monotonic() + 120
                while time.monotonic() < deadline:
                    status = cluster_status(nats.urls)
                    if all(s["snapshot"] and s["snapshot"]["sequence"] == s["logSequence"] for s in status["shards"]):
                        break
                    time.sleep(0.5)
                taken = [(int(b), int(ms)) for b, ms in re.findall(r"snapshot \S+ at \d+, (\d+) bytes in \d+ chunks, (\d+) ms", nodes[0].log_path.read_text())]
            status = cluster_status(nats.urls)
            nodes[0].kill()
            t = time.monotonic()
            fresh = Node(tmp, nats.urls, "fresh", config=config)
            nodes.append(fresh)
            wait_all_led(nats.urls, [fresh], timeout=900)
            serving = time.monotonic() - t
            r = Router(tmp, nats.urls)
            r.initialize()
            while pending(r):
                time.sleep(0.2)
            whole = time.monotonic() - t
            r.shutdown_and_exit()
            restored = [(int(b), int(ms)) for b, ms in re.findall(r"restored from snapshot \S+ at \d+ \((\d+) bytes, (\d+) ms\)", fresh.log_path.read_text())]
            out = {"snapshots": snapshots, "writes": writes, "shards": shards, "seconds_until_serving": round(serving, 1),
                   "seconds_until_all_embedded": round(whole, 1)}
            if snapshots:
                out.update(snapshots_taken=len(taken), snapshot_bytes=[b for b, _ in taken[-shards:]],
                           snapshot_ms=[ms for _, ms in taken[-shards:]], restored=len(restored),
                           restore_ms=[ms for _, ms in restored],
                           log_first_after_trim=[s["logFirst"] for s in status["shards"]],
                           log_last=[s["logSequence"] for s in status["shards"]])
            return out
        finally:
            for n in nodes:
                n.stop()
            nats.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--writes", type=int, default=1000)
    ap.add_argument("--shards", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=1)
    a = ap.parse_args()
    for _ in range(a.rounds):
        for snapshots in (True, False):
            print(json.dumps(run(snapshots, a.writes, a.shards)), flush=True)


if __name__ == "__main__":
    sys.exit(main())
