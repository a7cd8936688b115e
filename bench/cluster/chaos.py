"""Chaos run: three nats-servers, three nodes (failover after 3 s of silence), two clients writing
through their own routers without pause and a third reading through its own, for MINUTES minutes
while, every PERIOD seconds (× 0.5–1), one node or one nats-server (never two at once) is killed with
SIGKILL and started again 1–8 s later. At the end every acknowledged write must be readable through
a fresh router.

The report (the last line, JSON; the lines before it in words):
- kills of each kind;
- writes acknowledged, refused (the retryable -32060) and lost;
- the longest write stall (the longest a writing client went without an acknowledgement: the write
  in flight when a node or server died, any refusals after it, until one was acknowledged) and the
  longest read stall (the same for the reading client's successful reads), each overall and after
  each kind of kill, and the longest wait for one write. After a nats-server's kill, also the part
  of a write stall after the write log's stream had a new leader (from the nats-servers' logs): when
  the killed server led it, no append can be acknowledged until JetStream's Raft elects another
  (4-9 s in nats-server, not configurable), whatever Kindred does;
- takeovers (a node taking a silent node's shard), and those from live nodes (a running node finding
  its shard taken: it logs "led by another node now; giving it up"), which must be 0;
- with --snapshot-every N (each shard snapshotted every N of its writes, its log trimmed, restarted
  nodes and standbys starting their copies from snapshots): snapshots taken, restored and refused,
  and copies started again from a snapshot, each event counted once;
- "embedding stopped" lines in the nodes' logs (a normal hand-over logs none).
Exits 1 when an acknowledged write is lost, a write stall after a node's kill exceeds failoverMs + 2 s
or a live node lost a shard.
"""

import argparse
import contextlib
import datetime
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
FAILOVER_MS = 3000
READ_OWNERS = [f"reader-owner{k}" for k in range(10)]


def writer(router, name, stop, acked, refused, waits, answered):
    """Upserts one record per request until `stop`; `answered` gets (time, acknowledged) per answer."""
    i = 0
    while not stop.is_set():
        owner = f"{name}-owner{i % 5}"
        t = time.monotonic()
        resp = router.call("records/upsert", {"owner": owner, "records": [{"id": f"r{i}", "revision": 1, "text": f"{owner} entry {i}"}]}, timeout=180)
        now = time.monotonic()
        waits.append(now - t)
        if "result" in resp:
            acked.append((owner, f"r{i}"))
        else:
            assert resp["error"]["code"] == SHARD_UNAVAILABLE, resp
            refused.append((owner, f"r{i}"))
        answered.append((now, "result" in resp, owner))
        i += 1


def reader(router, stop, answered, failures):
    """Reads each reading owner's record in turn until `stop`; `answered` gets (time, read)."""
    i = 0
    while not stop.is_set():
        owner = READ_OWNERS[i % len(READ_OWNERS)]
        resp = router.call("records/get", {"owner": owner, "id": "seed"}, timeout=180)
        ok = "result" in resp
        if not ok:
            failures.append(resp["error"])
        answered.append((time.monotonic(), ok, owner))
        i += 1


def stalls(answered, start):
    """(length, end, owner) of each wait between two successful answers of one client (the first
    from `start`), the owner being the one whose request ended it."""
    out, last = [], start
    for t, ok, owner in answered:
        if ok:
            out.append((t - last, t, owner))
            last = t
    return out


def after_kind(stall, kills):
    """The kind of kill a stall followed: the last one before its end, if no more than 15 s before
    its start (a shard may be asked only a while after its node died)."""
    length, end = stall[0], stall[1]
    kinds = [k for t, k in kills if end - length - 15 <= t <= end]
    return kinds[-1] if kinds else "none"


def shard_of(owner, shards):
    """docs/scale-out.md: FNV-1a (64-bit) of the owner's UTF-8 bytes, modulo the shard count."""
    h = 0xCBF29CE484222325
    for b in owner.encode("utf-8"):
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h % shards


def longest(stall_lists, kills):
    """The longest stall overall and after each kind of kill, in seconds."""
    every = [s for lst in stall_lists for s in lst]
    out = {"all": round(max((s[0] for s in every), default=0), 2)}
    for kind in ("node", "nats-server", "none"):
        out[f"after {kind}"] = round(max((s[0] for s in every if after_kind(s, kills) == kind), default=0), 2)
    return out


def log_elections(tmp, start):
    """When the write log's stream got a new leader, from the nats-servers' logs, as seconds on this
    run's clock (`time.monotonic()`, whose `start` is the run's)."""
    offset = time.time() - time.monotonic()
    out = []
    for log in pathlib.Path(tmp).glob("nats-*.log"):
        for line in log.read_text(errors="replace").splitlines():
            if "new stream leader for '$G > KINDRED_WRITES'" in line:
                stamp = " ".join(line.split()[1:3])
                wall = datetime.datetime.strptime(stamp, "%Y/%m/%d %H:%M:%S.%f").timestamp()
                out.append(wall - offset)
    return sorted(t for t in out if t >= start)


def beyond_election(stall_lists, kills, elections):
    """The longest part of a write stall after a nats-server's kill that followed the write log's
    new leader: Kindred's own share of it (until then no write can be acknowledged at all)."""
    longest = 0.0
    for length, end, _ in (s for lst in stall_lists for s in lst):
        if after_kind((length, end), kills) != "nats-server":
            continue
        elected = [t for t in elections if end - length <= t <= end]
        longest = max(longest, end - elected[-1] if elected else length)
    return round(longest, 2)


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
        keys = {"shards": a.shards, "failoverMs": FAILOVER_MS}
        if a.snapshot_every:
            keys.update(snapshotEvery=a.snapshot_every, snapshotEveryMs=0)
        config = pathlib.Path(tmp) / "cluster.json"
        config.write_text(json.dumps({"cluster": keys}))
        nodes = [Node(tmp, nats.urls, f"n{i}", config=config) for i in range(3)]
        routers = []
        try:
            wait_all_led(nats.urls, nodes, timeout=120)

            def router():
                r = Router(tmp, nats.urls, args=("--config", str(config)))
                r.initialize()
                routers.append(r)
                return r

            reading = router()
            for owner in READ_OWNERS:
                reading.result("records/upsert", {"owner": owner, "records": [{"id": "seed", "revision": 1, "text": f"{owner} seed"}]}, timeout=120)
            stop = threading.Event()
            acked, refused, waits, threads = [], [], [], []
            written = [[], []]
            read, read_failures = [], []
            start = time.monotonic()
            for c in range(2):
                th = threading.Thread(target=writer, args=(router(), f"c{c}", stop, acked, refused, waits, written[c]), daemon=True)
                th.start()
                threads.append(th)
            th = threading.Thread(target=reader, args=(reading, stop, read, read_failures), daemon=True)
            th.start()
            threads.append(th)
            end = start + a.minutes * 60
            kills = []
            while time.monotonic() < end:
                time.sleep(a.period * rng.uniform(0.5, 1.0))
                k = rng.randrange(3)
                if rng.random() < 0.5:
                    nodes[k].kill()
                    kills.append((time.monotonic(), "node"))
                    what = f"node n{k}"
                    time.sleep(rng.uniform(1, 8))
                    nodes[k].start()
                else:
                    nats.kill(k)
                    kills.append((time.monotonic(), "nats-server"))
                    what = f"nats-server {k}"
                    time.sleep(rng.uniform(1, 8))
                    nats.start(k)
                print(f"{time.strftime('%H:%M:%S')} killed and restarted {what}; acknowledged {len(acked)}, refused {len(refused)}", flush=True)
            stop.set()
            for th in threads:
                th.join(timeout=200)
            wait_all_led(nats.urls, nodes, timeout=180)
            # The logs as they stand before the final check (nodes stopped at the end would take
            # each other's shards: that is no takeover from a live node).
            logs = "".join(n.log_path.read_text(errors="replace") for n in nodes)
            check = Router(tmp, nats.urls)
            check.initialize()
            lost = [w for w in acked if "result" not in check.call("records/get", {"owner": w[0], "id": w[1]}, timeout=120)]
            check.shutdown_and_exit()
            write_stalls = longest([stalls(w, start) for w in written], kills)
            write_stalls["after nats-server, beyond the log's election"] = beyond_election([stalls(w, start) for w in written], kills, log_elections(tmp, start))
            read_stalls = longest([stalls(read, start)], kills)
            # The long ones, with when they ended and the shard that ended them.
            for what, lists in (("write", [stalls(w, start) for w in written]), ("read", [stalls(read, start)])):
                for length, t, owner in sorted((x for lst in lists for x in lst), reverse=True)[:5]:
                    if length > 2:
                        print(f"{what} stall {length:.2f} s ending {t - start:.1f} s into the run, shard {shard_of(owner, a.shards)} "
                              f"({after_kind((length, t), kills)} kill at {[round(k - start, 1) for k, _ in kills if t - length - 15 <= k <= t]})")
            summary = {
                "minutes": a.minutes,
                "kills": {"node": sum(1 for _, k in kills if k == "node"), "nats-server": sum(1 for _, k in kills if k == "nats-server")},
                "acknowledged": len(acked), "refused": len(refused), "lost": len(lost),
                "longest_write_stall_s": write_stalls, "longest_read_stall_s": read_stalls,
                "reads": sum(1 for _, ok, _ in read if ok), "reads_refused": len(read_failures),
                "longest_write_wait_s": round(max(waits), 2), "median_write_ms": round(sorted(waits)[len(waits) // 2] * 1000, 1),
                "takeovers": logs.count("taken over from "), "takeovers_from_live_nodes": logs.count("led by another node now; giving it up"),
                "snapshots": logs.count(": snapshot "), "restored": logs.count("restored from snapshot"),
                "snapshots_refused": logs.count(" refused: "), "restarted_from_snapshot": logs.count("starts again from a snapshot"),
                "embedding_stopped_lines": logs.count("embedding stopped"),
                "failover_ms": FAILOVER_MS,
            }
            bound = FAILOVER_MS / 1000 + 2
            beyond = write_stalls["after nats-server, beyond the log's election"]
            print(f"kills: {summary['kills']['node']} of nodes, {summary['kills']['nats-server']} of nats-servers")
            print(f"writes: {len(acked)} acknowledged, {len(refused)} refused (retryable -32060), {len(lost)} lost")
            print(f"longest write stall: {write_stalls['all']} s (after a node's kill {write_stalls['after node']} s, "
                  f"after a nats-server's {write_stalls['after nats-server']} s, of which at most "
                  f"{beyond} s after the write log's stream had a new leader; "
                  f"with no kill near {write_stalls['after none']} s); failoverMs + 2 s = {bound} s")
            print(f"longest read stall: {read_stalls['all']} s (after a node's kill {read_stalls['after node']} s, "
                  f"after a nats-server's {read_stalls['after nats-server']} s); {summary['reads']} reads, {len(read_failures)} refused")
            print(f"takeovers: {summary['takeovers']}, from live nodes {summary['takeovers_from_live_nodes']}")
            print(f"snapshots: {summary['snapshots']} taken, {summary['restored']} restored, {summary['snapshots_refused']} refused; "
                  f"{summary['restarted_from_snapshot']} copies started again from a snapshot; "
                  f"{summary['embedding_stopped_lines']} 'embedding stopped' lines")
            print(json.dumps(summary), flush=True)
            failed = False
            if lost:
                print("LOST:", lost[:20])
                failed = True
            if write_stalls["after node"] > bound:
                print(f"a write stalled {write_stalls['after node']} s after a node's kill: more than failoverMs + 2 s")
                failed = True
            if summary["takeovers_from_live_nodes"]:
                print("a live node lost shards to another")
                failed = True
            if failed:
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
