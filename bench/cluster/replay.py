"""Whether model vectors should travel in the write log: the rate at which a node with empty files
applies a shard log (a failover without a copy, a move, a new standby) when the log holds texts
only — the node embeds each on apply, as today — against a log whose upserts carry the vector
(base64 float32, as a client may send it: nothing to embed on apply), and the size of a log entry
either way. One node on 16 shards; WRITES upserts of one record each; then the node is killed and
a node with empty files applies the whole log: the time until it serves every shard, and until
every record has its vector (texts are embedded after they are applied, in the background)."""

import argparse
import base64
import json
import random
import struct
import sys
import tempfile
import time

from throughput import WORDS, replay
from cluster_support import Router, running_cluster, wait_all_led  # noqa: E402


def entry(i, with_vector, rng):
    record = {"id": f"r{i}", "revision": 1,
              "text": f"entry {i}: walked by the {WORDS[i % len(WORDS)]} and thought about the {WORDS[(i * 7 + 3) % len(WORDS)]} all afternoon"}
    if with_vector:
        v = [rng.gauss(0, 1) for _ in range(384)]
        n = sum(x * x for x in v) ** 0.5
        record["vector"] = base64.b64encode(struct.pack("<384f", *[x / n for x in v])).decode()
    return {"owner": f"owner{i % 32}", "records": [record]}


def run(with_vector, writes):
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp, running_cluster(tmp, ["n0"], shards=16) as (nats, nodes):
        wait_all_led(nats.urls, nodes, timeout=120)
        r = Router(tmp, nats.urls)
        r.initialize()
        size = 0
        for i in range(writes):
            params = entry(i, with_vector, rng)
            size += len(json.dumps({"method": "records/upsert", "params": params}, separators=(",", ":")))
            r.result("records/upsert", params, timeout=120)
        r.shutdown_and_exit()
        t = time.monotonic()
        out = replay(tmp, nats, nodes, writes)
        # Applying answers an upsert before its text is embedded (in the background, as in one
        # process): the semantic index is whole once no record waits for its vector.
        r = Router(tmp, nats.urls)
        r.initialize()
        while sum(r.result("index/status", {"owner": f"owner{k}"}, timeout=120)["pendingEmbeddings"] for k in range(32)):
            time.sleep(0.2)
        out["seconds_until_all_embedded"] = round(time.monotonic() - t, 1)
        r.shutdown_and_exit()
        out.update({"vectors_in_log": with_vector, "bytes_per_entry": size // writes})
        return out

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--writes", type=int, default=600)
    ap.add_argument("--rounds", type=int, default=2)
    a = ap.parse_args()
    for _ in range(a.rounds):
        for with_vector in (False, True):
            print(json.dumps(run(with_vector, a.writes)), flush=True)


if __name__ == "__main__":
    sys.exit(main())
