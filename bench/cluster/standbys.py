"""What standby copies cost and buy: two nodes on 16 shards, with `cluster.standbys` 0 and then 1.
One client upserts WRITES records through a router (owners on every shard); then node n0 is killed
with SIGKILL and the time until n1 serves all 16 shards is taken (the failover: `failover_ms` of
silence, then each of n0's shards applied into n1's store — the whole log without a copy, the tail
with one). Also the time a fresh standby needs to copy a shard's log when the cluster starts with
history (the join cost of a copy)."""

import argparse
import json
import os
import sys
import tempfile
import time

from throughput import HERE, WORDS  # noqa: F401  (sets the import path)
from cluster_support import Router, cluster_status, running_cluster, wait_all_led  # noqa: E402


def write(r, writes):
    t = time.monotonic()
    for i in range(writes):
        owner = f"owner{i % 32}"
        r.result("records/upsert", {"owner": owner, "records": [{"id": f"r{i}", "revision": 1,
                 "text": f"entry {i}: the {WORDS[i % len(WORDS)]} and the {WORDS[(i * 7 + 3) % len(WORDS)]}"}]}, timeout=120)
    return time.monotonic() - t


def standbys_current(urls, timeout=900):
    t = time.monotonic()
    while time.monotonic() - t < timeout:
        rows = cluster_status(urls)["shards"]
        if all(s["standbys"] and all(c["lag"] == 0 for c in s["standbys"]) for s in rows):
            return time.monotonic() - t
        time.sleep(0.2)
    raise AssertionError("standby copies not current")


def run(standbys, writes, failover_ms):
    env = {**os.environ, "KINDRED_CLUSTER_STANDBYS": str(standbys)}
    with tempfile.TemporaryDirectory() as tmp, running_cluster(tmp, ["n0", "n1"], shards=16, failover_ms=failover_ms, env=env) as (nats, nodes):
        wait_all_led(nats.urls, nodes, timeout=120)
        r = Router(tmp, nats.urls)
        r.initialize()
        took = write(r, writes)
        out = {"standbys": standbys, "writes_per_s": round(writes / took, 1)}
        if standbys:
            out["standby_catch_up_s"] = round(standbys_current(nats.urls), 2)
        r.shutdown_and_exit()
        nodes[0].kill()
        t = time.monotonic()
        wait_all_led(nats.urls, [nodes[1]], timeout=900)
        out["failover_s"] = round(time.monotonic() - t, 2)
        out["log_entries"] = writes
        return out

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--writes", type=int, default=400)
    ap.add_argument("--failover-ms", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=2)
    a = ap.parse_args()
    for _ in range(a.rounds):
        for s in (0, 1):
            print(json.dumps(run(s, a.writes, a.failover_ms)), flush=True)


if __name__ == "__main__":
    sys.exit(main())
