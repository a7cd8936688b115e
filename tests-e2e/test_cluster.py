"""Kindred beyond one machine: three clustered nats-servers with JetStream, `kindred node`s and a
`kindred serve --cluster` router, all real processes on loopback ports (docs/scale-out.md).

Writes are acknowledged only once the replicated write log holds them, so killing a nats-server or
a node loses no acknowledged write; owners stay apart across shards exactly as in one process.
"""

import hashlib
import json
import os
import sqlite3
import subprocess
import threading
import time

import pytest

from cluster_support import NatsCluster, Node, Router, cluster_status, nats_publish, stream_leader, wait_all_led
from conftest import INVALID_PARAMS, NOT_FOUND, REPO, REQUEST_CANCELLED, Server, run_cli, vec

SHARDS = 16
SHARD_UNAVAILABLE = -32060


def fnv1a(data):
    h = 0xCBF29CE484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def shard_of(owner, shards=SHARDS):
    """docs/scale-out.md: FNV-1a (64-bit) of the owner's NFC UTF-8 bytes, modulo the shard count."""
    import unicodedata

    return fnv1a(unicodedata.normalize("NFC", owner).encode("utf-8")) % shards


@pytest.fixture
def cluster(tmp_path):
    nats = NatsCluster(tmp_path)
    started = []

    def node(name, **kw):
        n = Node(tmp_path, nats.urls, name, shards=SHARDS, **kw)
        started.append(n)
        return n

    routers = []

    def router(args=()):
        r = Router(tmp_path, nats.urls, args=args)
        routers.append(r)
        r.initialize()
        return r

    yield nats, node, router
    for r in routers:
        if r.proc.poll() is None:
            r.proc.kill()
            r.proc.wait()
        r._stderr.close()
    for n in started:
        n.stop()
    nats.stop()


def owners_on_two_nodes(status, count=6):
    """`count` owners whose shards are led by at least two different nodes."""
    leaders = {s["shard"]: s["leader"] for s in status["shards"]}
    owners, i = [], 0
    while len(owners) < count or len({leaders[shard_of(o)] for o in owners}) < 2:
        owners.append(f"person-{i}")
        i += 1
    return owners


def owners_led_by(status, node, count=2):
    """`count` owners on as many different shards, all led by `node`."""
    led = {s["shard"] for s in status["shards"] if s["leader"] == node}
    owners = []
    for i in range(1000):
        o = f"person-{i}"
        if shard_of(o) in led and shard_of(o) not in map(shard_of, owners):
            owners.append(o)
        if len(owners) == count:
            return owners
    raise AssertionError(f"fewer than {count} shards led by {node}: {status}")


def upsert(r, owner, records):
    """Upserts and waits until the records are searchable (the node embeds them first)."""
    return r.result("records/upsert", {"owner": owner, "records": records, "waitForIndex": True}, timeout=60)


def test_router_answers_every_owner_from_its_shard_and_keeps_owners_apart(cluster):
    nats, node, router = cluster
    a, b = node("a"), node("b")
    status = wait_all_led(nats.urls, [a, b])
    assert {s["leader"] for s in status["shards"]} == {"a", "b"}
    r = router()
    owners = owners_on_two_nodes(status)

    topics = ["walked the dog by the river at dawn", "argued with my sister about money", "baked sourdough bread for the first time"]
    markers = {owner: f"zq{k}x" for k, owner in enumerate(owners)}
    for owner in owners:
        upsert(r, owner, [{"id": f"e{j}", "revision": 1, "text": f"{markers[owner]} {t}"} for j, t in enumerate(topics)])
    for k, owner in enumerate(owners):
        hits = r.result("search/query", {"owner": owner, "text": "baking bread", "mode": "semantic", "limit": 50}, timeout=60)["results"]
        assert [h["id"] for h in hits][0] == "e2" and sorted(h["id"] for h in hits) == ["e0", "e1", "e2"]
        got = r.result("records/get", {"owner": owner, "id": "e1"})
        assert got["record"]["text"] == f"{markers[owner]} argued with my sister about money"
        # Another owner's marker word is found under that owner only.
        other = owners[(k + 1) % len(owners)]
        assert r.result("search/query", {"owner": owner, "text": markers[other], "mode": "keyword"})["results"] == []
        assert [h["id"] for h in r.result("search/query", {"owner": other, "text": markers[other], "mode": "keyword"})["results"]]
    # Another owner's id is not found under this owner, and an owner with no records finds nothing.
    err = r.error("records/get", {"owner": "nobody-at-all", "id": "e1"})
    assert err["code"] == NOT_FOUND
    assert r.result("search/query", {"owner": "nobody-at-all", "text": "bread", "mode": "semantic"})["results"] == []

    # Each write went through its shard's log and was applied at the sequence the log gave it; the
    # shard's SQLite file holds that sequence (stored in the write's own transaction).
    status = cluster_status(nats.urls)
    for owner in owners:
        row = status["shards"][shard_of(owner)]
        assert row["logSequence"] > 0 and row["applied"] == row["logSequence"] and row["lag"] == 0, row
        path = a.tmp / f"node-{row['leader']}" / f"shard-{row['shard']}.sqlite"
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            assert db.execute("SELECT sequence FROM applied_sequence").fetchone()[0] == row["logSequence"]

    # A request without an owner cannot be routed: an error naming the field; bad params are the nodes' errors.
    err = r.error("index/status", {})
    assert err["code"] == INVALID_PARAMS and err["data"]["field"] == "owner"
    err = r.error("records/upsert", {"owner": owners[0], "records": [{"id": "x", "revision": 1, "text": "t"}], "colour": 1})
    assert err["code"] == INVALID_PARAMS and "colour" in err["message"]
    assert r.shutdown_and_exit() == 0

    # The human form of the status: one line per shard, then one per node. Each shard's standby copy
    # is on the other node (a node opens its copies in the background: on a loaded machine the last
    # ones can take a few seconds, so the status is asked again until they are all there).
    deadline = time.monotonic() + 60
    while True:
        text = run_cli("cluster", "status", "--nats", nats.urls)
        assert text.returncode == 0, text.stderr
        lines = text.stdout.splitlines()
        assert lines[0].split() == ["shard", "leader", "log", "applied", "lag", "standbys", "(lag)"] and len(lines) == 1 + SHARDS + 2
        pairs = [(line, {line.split()[1], line.split()[5]}) for line in lines[1:1 + SHARDS]]
        if all(pair == {"a", "b"} for _, pair in pairs) or time.monotonic() > deadline:
            break
        time.sleep(1)
    for line, pair in pairs:
        assert pair == {"a", "b"}, line
    assert lines[-2].startswith("node a: last heartbeat") and lines[-1].startswith("node b: last heartbeat")


def test_node_and_cluster_commands_refuse_bad_arguments(tmp_path):
    for args, says in [
        (["node", "--data", str(tmp_path), "--name", "a"], "--nats URL is required"),
        (["node", "--nats", "nats://127.0.0.1:9", "--name", "a"], "--data DIR is required"),
        (["node", "--nats", "nats://127.0.0.1:9", "--data", str(tmp_path), "--name", "a b"], "--name must be"),
        (["node", "--nats", "nats://127.0.0.1:9", "--data", str(tmp_path), "--name", "a", "--shards", "0"], "--shards must be"),
        (["cluster", "status"], "--nats URL is required"),
        (["cluster", "move", "--nats", "nats://127.0.0.1:9"], "expected the subcommand status, drain or refresh"),
        (["cluster", "refresh", "--nats", "nats://127.0.0.1:9", "--parallel", "0"], "--parallel must be"),
        (["cluster", "drain", "--nats", "nats://127.0.0.1:9"], "drain needs one NODE"),
        (["cluster", "drain", "a b", "--nats", "nats://127.0.0.1:9"], "NODE must be"),
        (["serve", "--cluster", "nats://127.0.0.1:9", "--timeout-ms", "5"], "--timeout-ms must be"),
    ]:
        r = run_cli(*args)
        assert r.returncode == 2 and says in r.stderr, (args, r.returncode, r.stderr)
    # cluster.* keys are checked wherever they are set: out of range or unknown, the key is named.
    bad = tmp_path / "bad.json"
    for doc, says in [({"cluster": {"failoverMs": 10}}, "cluster.failoverMs: expected at least 500"),
                      ({"cluster": {"shards": 0}}, "cluster.shards: expected an integer from 1 to 4096"),
                      ({"cluster": {"shard": 16}}, "cluster.shard: unknown configuration key")]:
        bad.write_text(json.dumps(doc))
        for args in (["node", "--nats", "nats://127.0.0.1:9", "--data", str(tmp_path), "--name", "a", "--config", str(bad)],
                     ["cluster", "drain", "a", "--nats", "nats://127.0.0.1:9", "--config", str(bad)]):
            r = run_cli(*args)
            assert r.returncode == 2 and says in r.stderr, (args, doc, r.stderr)
    r = run_cli("serve", "--cluster", "nats://127.0.0.1:9", "--set", "cluster.timeoutMs=5")
    assert r.returncode == 2 and "cluster.timeoutMs: expected at least 100" in r.stderr, r.stderr
    r = run_cli("serve", "--cluster", "nats://127.0.0.1:9", env={**os.environ, "KINDRED_CLUSTER_RETRY_MS": "-1"})
    assert r.returncode == 2 and "cluster.retryMs: expected 0 or more" in r.stderr, r.stderr
    # No NATS server there: a failure naming what could not be reached.
    r = run_cli("cluster", "status", "--nats", "nats://127.0.0.1:9")
    assert r.returncode == 1 and "nats://127.0.0.1:9" in r.stderr, r.stderr


def test_initialize_reports_the_cluster_and_the_nodes_model(cluster, tmp_path):
    nats, node, router = cluster
    # The shard count from the configuration file (cluster.shards), not a flag.
    config = tmp_path / "kindred.json"
    config.write_text(json.dumps({"cluster": {"shards": SHARDS, "failoverMs": 2000}}))
    a = node("a", config=config)
    wait_all_led(nats.urls, [a])
    r = router()
    # `router()` initialized it; a second client sees the same answer shape.
    r2 = Router(r.stderr_path.parent, nats.urls)
    init = r2.initialize()
    caps = init["capabilities"]
    assert caps["cluster"] == {"shards": SHARDS}
    assert caps["embedder"]["dimension"] == 384
    assert "records/upsert" in caps["methods"] and "initialize" in caps["methods"]
    assert r2.shutdown_and_exit() == 0


def write_until(r, owner, start, count, acked, deadline_s=90):
    """Upserts records `start..start+count` one per request; returns the ids acknowledged."""
    deadline = time.monotonic() + deadline_s
    for i in range(start, start + count):
        assert time.monotonic() < deadline, "writes stalled"
        resp = r.call("records/upsert", {"owner": owner, "records": [{"id": f"r{i}", "revision": 1, "text": f"entry {i} of {owner}"}]}, timeout=60)
        if "result" in resp:
            acked.append(f"r{i}")
        else:
            assert resp["error"]["code"] == SHARD_UNAVAILABLE, resp
            assert resp["error"]["data"]["retryable"] is True


def wait_standby_current(urls, shard, node, timeout=60):
    """Waits until `node`'s standby copy of `shard` has applied the shard's whole log; returns the row."""
    deadline = time.monotonic() + timeout
    row = None
    while time.monotonic() < deadline:
        row = cluster_status(urls)["shards"][shard]
        if row["standbys"] == [{"node": node, "applied": row["logSequence"], "lag": 0}]:
            return row
        time.sleep(0.3)
    raise AssertionError(f"no current standby copy of shard {shard} on {node} after {timeout}s: {row}")


def all_present(r, owner, ids):
    missing = []
    for i in ids:
        resp = r.call("records/get", {"owner": owner, "id": i}, timeout=60)
        if "result" not in resp:
            missing.append((i, resp["error"]))
    return missing


def test_kill_9_of_a_nats_server_loses_no_acknowledged_write(cluster):
    nats, node, router = cluster
    a = node("a")
    wait_all_led(nats.urls, [a])
    r = router()
    acked = []
    write_until(r, "kim", 0, 20, acked)
    nats.kill(1)
    write_until(r, "kim", 20, 20, acked)
    assert len(acked) >= 30, f"only {len(acked)} of 40 writes acknowledged with two of three servers up"
    assert all_present(r, "kim", acked) == []
    # The log on the surviving servers holds every write, and the node applied all of it.
    row = cluster_status(nats.urls)["shards"][shard_of("kim")]
    assert row["applied"] == row["logSequence"] and row["logSequence"] >= len(acked), row


def test_kill_9_of_the_nats_server_leading_the_shard_map_moves_no_shard(cluster):
    """A live node keeps its shards through the loss of one nats-server. Killing the server that
    leads the map's bucket makes every heartbeat fail ("no responders") while JetStream elects
    another leader (4-9 s, longer than the failover's 1 s here), and the nodes on that server move to
    another one: nobody's silence then is a death, and no shard changes node (docs/scale-out.md,
    Failover and moves)."""
    nats, node, router = cluster
    nodes = [node(n, failover_ms=1000) for n in ("a", "b", "c")]
    before = wait_all_led(nats.urls, nodes)
    leaders = {s["shard"]: s["leader"] for s in before["shards"]}
    owners = owners_on_two_nodes(before, count=3)
    writers = [router() for _ in owners]
    going, acked, answers, threads = start_writers(writers, owners, at_least=3)
    # Twice: the server leading the map's bucket killed, started again 8 s later (the election, the
    # failover after it and rounds to act on it), and 8 s more (the nodes' heartbeats land again).
    k = 0
    for _ in range(2):
        deadline = time.monotonic() + 30
        while not (map_leader := stream_leader(nats.client_ports[(k + 1) % 3], "KV_kindred-cluster")):
            assert time.monotonic() < deadline, "the map's bucket has no leader"
            time.sleep(0.5)
        k = int(map_leader[1:])
        nats.kill(k)
        time.sleep(8)
        nats.start(k)
        time.sleep(8)
    going.clear()
    for t in threads:
        t.join(timeout=120)
    assert all(e["code"] == SHARD_UNAVAILABLE and e["data"]["retryable"] for e in answers), answers
    status = cluster_status(nats.urls)
    assert {s["shard"]: s["leader"] for s in status["shards"]} == leaders, (status, "\n".join(n.log() for n in nodes))
    for n in nodes:
        log = n.log_path.read_text(errors="replace")
        assert "taken over from" not in log and "led by another node now" not in log, log
    # Writes went on meanwhile, and every acknowledged one is there.
    reader = router()
    for o in owners:
        assert all_present(reader, o, acked[o]) == [], o


def test_kill_9_of_a_node_moves_its_shards_and_loses_no_acknowledged_write(cluster):
    nats, node, router = cluster
    failover_s = 2
    a, b = node("a", failover_ms=failover_s * 1000), node("b", failover_ms=failover_s * 1000)
    status = wait_all_led(nats.urls, [a, b])
    # Two owners on two different shards of the node to kill.
    owners = owners_led_by(status, "a")
    # A request that reaches the node just as it dies gets no answer (NATS cannot tell the requester
    # that the responder went): the router sends it again as soon as the map gives its shard to b,
    # long before its 30 s timeout (cluster.timeoutMs).
    writers = [router() for _ in owners]
    reader = router()
    first = []
    write_until(writers[0], owners[0], 0, 15, first)
    # b keeps a standby copy of a's shards and applies their logs as they grow.
    before = wait_standby_current(nats.urls, shard_of(owners[0]), "b")

    going, acked, answers, threads = start_writers(writers, owners, at_least=5)
    a.kill()
    killed = time.monotonic()
    in_flight = {o: len(WAITS[id(acked[o])]) for o in owners}
    # Reads are answered again once b takes the shards (the router retries a shard no node serves).
    resp = reader.call("records/get", {"owner": owners[0], "id": "r0"}, timeout=60)
    while "error" in resp and resp["error"]["code"] == SHARD_UNAVAILABLE and time.monotonic() - killed < 30:
        resp = reader.call("records/get", {"owner": owners[0], "id": "r0"}, timeout=60)
    recovered = time.monotonic() - killed
    assert "result" in resp, resp
    # Both clients' writes go on, to the new leader.
    after = {o: len(acked[o]) for o in owners}
    deadline = time.monotonic() + 60
    while min(len(acked[o]) - after[o] for o in owners) < 5:
        assert all(t.is_alive() for t in threads) and time.monotonic() < deadline, answers
        time.sleep(0.05)
    going.clear()
    for t in threads:
        t.join(timeout=120)
    assert all(e["code"] == SHARD_UNAVAILABLE and e["data"]["retryable"] for e in answers), answers
    assert all_present(reader, owners[0], first) == []
    for o in owners:
        assert all_present(reader, o, acked[o]) == [], o
    status = cluster_status(nats.urls)
    assert {s["leader"] for s in status["shards"]} == {"b"}
    for o in owners:
        row = status["shards"][shard_of(o)]
        assert row["applied"] == row["logSequence"] and row["lag"] == 0
    # Failover (2 s of silence) plus at most 2 s to take the shard from the standby copy and answer:
    # for reads, and for the writes in flight on a when it died, which the router sent again to b.
    assert recovered < failover_s + 2, recovered
    stalls = {o: max(w for w in WAITS[id(acked[o])][in_flight[o]:]) for o in owners}
    assert max(stalls.values()) < failover_s + 2, stalls
    # b took the shard from its standby copy: it applied only the log's tail.
    taken = [line for line in b.log().splitlines() if f"shard {shard_of(owners[0])}: leading (from its standby copy at " in line]
    assert taken and int(taken[-1].split("copy at ")[1].split(",")[0]) >= before["logSequence"], b.log()


def test_a_joining_node_gets_shards_and_moved_owners_keep_their_records(cluster):
    nats, node, router = cluster
    a = node("a")
    wait_all_led(nats.urls, [a])
    r = router()
    owners = [f"person-{i}" for i in range(10)]
    for owner in owners:
        upsert(r, owner, [{"id": f"j{k}", "revision": 1, "text": f"{owner} journal entry {k}"} for k in range(3)])
    b = node("b")
    status = wait_all_led(nats.urls, [a, b])
    moved = [o for o in owners if status["shards"][shard_of(o)]["leader"] == "b"]
    assert moved, "no owner's shard moved to the joining node"
    # The joining node rebuilt each moved shard from the log: every record is there, once.
    for owner in owners:
        assert all_present(r, owner, ["j0", "j1", "j2"]) == []
        assert r.result("index/status", {"owner": owner})["records"] == 3
    for row in status["shards"]:
        assert row["lag"] == 0, row


def test_a_node_restarted_after_kill_9_resumes_its_shards_from_its_files(cluster):
    nats, node, router = cluster
    a = node("a", failover_ms=30000)
    wait_all_led(nats.urls, [a])
    r = router()
    acked = []
    write_until(r, "lee", 0, 12, acked)
    a.kill()
    a.start()  # the same name and files, long before anyone would take its shards
    write_until(r, "lee", 12, 6, acked)
    assert len(acked) == 18 and all_present(r, "lee", acked) == []
    assert "leading (applied up to " in a.log()
    row = cluster_status(nats.urls)["shards"][shard_of("lee")]
    assert row["leader"] == "a" and row["applied"] == row["logSequence"] >= 18, row
    # It resumed from the sequence stored in the shard's file, not from the start of the log.
    resumed = [line for line in a.log().splitlines() if f"shard {shard_of('lee')}: leading" in line]
    assert len(resumed) == 2 and resumed_sequence(resumed[0]) == 0 and resumed_sequence(resumed[-1]) >= 12, resumed


def resumed_sequence(line):
    return int(line.rsplit("applied up to ", 1)[1].rstrip(")"))


# The seconds each write waited for its answer, by `id()` of the `acked` list `write_while` fills.
WAITS = {}


def write_while(r, owner, going, acked, answers):
    """Upserts records one per request while `going` is set; the ids acknowledged go to `acked`,
    every other answer (only the retryable -32060 is allowed) to `answers`, and the seconds each
    write waited for its answer to `WAITS[id(acked)]`."""
    i = 0
    waits = WAITS.setdefault(id(acked), [])
    while going.is_set():
        t = time.monotonic()
        resp = r.call("records/upsert", {"owner": owner, "records": [{"id": f"w{i}", "revision": 1, "text": f"entry {i} of {owner}"}]}, timeout=60)
        waits.append(time.monotonic() - t)
        if "result" in resp:
            acked.append(f"w{i}")
        else:
            answers.append(resp["error"])
        i += 1


def start_writers(writers, owners, at_least):
    """One `write_while` thread per (writer, owner), started; returns once every owner has `at_least`
    writes acknowledged, with (going, acked by owner, other answers, threads)."""
    going = threading.Event()
    going.set()
    acked = {o: [] for o in owners}
    answers = []
    threads = [threading.Thread(target=write_while, args=(w, o, going, acked[o], answers)) for w, o in zip(writers, owners)]
    for t in threads:
        t.start()
    while min(len(v) for v in acked.values()) < at_least:
        assert all(t.is_alive() for t in threads), answers
        time.sleep(0.05)
    return going, acked, answers, threads


def read_while(r, owners, going, failures):
    """Reads each owner's first record over and over while `going` is set; any error is a failure."""
    while going.is_set():
        for owner in owners:
            resp = r.call("records/get", {"owner": owner, "id": "w0"}, timeout=60)
            if "result" not in resp:
                failures.append(resp["error"])


def test_a_drained_node_hands_every_shard_over_while_two_clients_write(cluster):
    nats, node, router = cluster
    a, b = node("a"), node("b")
    status = wait_all_led(nats.urls, [a, b])
    on_a = [s["shard"] for s in status["shards"] if s["leader"] == "a"]
    # Two owners on two different shards of the node to drain.
    owners = owners_led_by(status, "a")
    writers = [router() for _ in owners]
    reader = router()
    err = run_cli("cluster", "drain", "zed", "--nats", nats.urls)
    assert err.returncode == 1 and "NODE" in err.stderr and "no node named 'zed'" in err.stderr, err.stderr

    going, acked, answers, threads = start_writers(writers, owners, at_least=10)
    read_failures = []
    readers = threading.Thread(target=read_while, args=(reader, owners, going, read_failures))
    readers.start()
    before = {o: len(acked[o]) for o in owners}
    drain = run_cli("cluster", "drain", "a", "--nats", nats.urls, timeout=180)
    during = {o: len(acked[o]) - before[o] for o in owners}
    # Writes go on after the move, to the new leader.
    after = {o: len(acked[o]) for o in owners}
    while min(len(acked[o]) - after[o] for o in owners) < 5:
        assert all(t.is_alive() for t in threads), answers
        time.sleep(0.1)
    going.clear()
    for t in threads + [readers]:
        t.join(timeout=120)
    assert drain.returncode == 0, drain.stderr + a.log()
    moves = drain.stdout.splitlines()
    assert sorted(int(line.split(":")[0].split()[1]) for line in moves[:-1]) == on_a, moves
    assert all(" a → b, applied up to " in line for line in moves[:-1]) and moves[-1] == f"node a drained: {len(on_a)} shards moved to b", moves
    assert all(n > 0 for n in during.values()), f"no write acknowledged while the shards moved: {during}"
    assert all(e["code"] == SHARD_UNAVAILABLE and e["data"]["retryable"] for e in answers), answers
    assert read_failures == [], read_failures

    # Every acknowledged write is readable from the new leader, which applied the whole log.
    status = cluster_status(nats.urls)
    assert [s["leader"] for s in status["shards"]] == ["b"] * SHARDS
    assert all(s["lag"] == 0 for s in status["shards"]), status
    for o in owners:
        assert all_present(reader, o, acked[o]) == []
        assert reader.result("index/status", {"owner": o})["records"] >= len(acked[o])
    assert {n["name"]: n["drained"] for n in status["nodes"]} == {"a": True, "b": False}
    # The drained node takes no shard back to even the spread while it keeps running...
    time.sleep(3)
    assert [s["leader"] for s in cluster_status(nats.urls)["shards"]] == ["b"] * SHARDS
    assert run_cli("cluster", "status", "--nats", nats.urls).stdout.splitlines()[-2].endswith(", drained")
    # ...and takes its share again once it starts again.
    a.stop()
    a.start()
    wait_all_led(nats.urls, [a, b])
    assert {n["name"]: n["drained"] for n in cluster_status(nats.urls)["nodes"]} == {"a": False, "b": False}


TOPICS = ["walked the dog by the river at dawn", "argued with my sister about money", "baked sourdough bread for the first time",
          "missed the last train home again", "a dream of flying over the sea", "planted tomatoes in the garden",
          "a long phone call with an old friend", "lost my keys on the way to work", "painted the kitchen a pale green"]


def semantic(r, owner, text):
    return [(h["id"], round(h["score"], 5)) for h in r.result("search/query", {"owner": owner, "text": text, "mode": "semantic", "limit": 50}, timeout=60)["results"]]


def test_a_node_joining_after_the_log_was_trimmed_starts_from_a_snapshot(cluster, tmp_path):
    nats, node, router = cluster
    # Snapshots every 3 writes of a shard, and a second after a write: each owner's shard is
    # snapshotted, its log trimmed, and its last snapshot holds its last write.
    config = tmp_path / "snapshots.json"
    config.write_text(json.dumps({"cluster": {"shards": SHARDS, "failoverMs": 2000, "snapshotEvery": 3, "snapshotEveryMs": 1000}}))
    a = node("a", config=config)
    wait_all_led(nats.urls, [a])
    r = router()
    owners = [f"person-{i}" for i in range(6)]

    def write(k):
        for o in owners:
            upsert(r, o, [{"id": f"s{k}", "revision": 1, "text": f"{o} {TOPICS[k]}"}])

    write(0)
    first = {shard_of(o): cluster_status(nats.urls)["shards"][shard_of(o)]["logSequence"] for o in owners}
    for k in range(1, len(TOPICS)):
        write(k)
    # The log is trimmed below the older of the two snapshots kept. When a shard's first timed
    # snapshot came before its second round of writes, its two snapshots are that one and the last
    # one: the same text again, as a new revision, is one more write and one more snapshot.
    revision = {o: 1 for o in owners}
    deadline = time.monotonic() + 60
    while True:
        rows = [cluster_status(nats.urls)["shards"][s] for s in first]
        if all(row["snapshot"] and row["snapshot"]["sequence"] == row["logSequence"] and row["logFirst"] > first[row["shard"]]
               for row in rows) or time.monotonic() > deadline:
            break
        for row in rows:
            if row["snapshot"] and row["snapshot"]["sequence"] == row["logSequence"] and row["logFirst"] <= first[row["shard"]]:
                o = next(o for o in owners if shard_of(o) == row["shard"])
                revision[o] += 1
                upsert(r, o, [{"id": "s0", "revision": revision[o], "text": f"{o} {TOPICS[0]}"}])
        time.sleep(0.5)
    for row in rows:
        # The log no longer holds the shard's first writes: they are in the snapshot.
        assert row["snapshot"] and row["logFirst"] > first[row["shard"]], row
        assert row["snapshot"]["sequence"] == row["logSequence"] and row["snapshot"]["bytes"] > 0, row
    asked = ["baking bread", "a journey by train", "family quarrel over money"]
    before = {o: [semantic(r, o, q) for q in asked] for o in owners}
    assert all(len(hits) == len(TOPICS) for answers in before.values() for hits in answers)

    # A forged newest snapshot of one shard: its chunk is not what its header's digest says.
    target = shard_of(owners[0])
    real = cluster_status(nats.urls)["shards"][target]["snapshot"]
    junk = b"not a database " * 100
    forged = {"id": "forged", "shard": target, "sequence": real["sequence"] + 1, "size": len(junk),
              "sha256": hashlib.sha256(b"something else").hexdigest(), "chunks": 1, "logFrom": real["sequence"]}
    parts = nats_publish(nats.client_ports[0], [(f"kindred.snapshots.{target}.forged", json.dumps(forged).encode()),
                                                 (f"kindred.snapshots.{target}.forged", junk)])
    nats_publish(nats.client_ports[0], [(f"kindred.snapshots.{target}.done", json.dumps({**forged, "parts": parts}).encode())])
    deadline = time.monotonic() + 10
    while cluster_status(nats.urls)["shards"][target]["snapshot"]["id"] != "forged":
        assert time.monotonic() < deadline, "the forged snapshot is not the newest"
        time.sleep(0.2)

    b = node("b", config=config)
    status = wait_all_led(nats.urls, [a, b], timeout=120)
    moved = [o for o in owners if status["shards"][shard_of(o)]["leader"] == "b"]
    assert moved, "no owner's shard moved to the joining node"
    # b keeps a standby copy of each shard a still leads (it opens them in the background).
    for s in first:
        if status["shards"][s]["leader"] == "a":
            wait_standby_current(nats.urls, s, "b")
    log = b.log_path.read_text(errors="replace")
    # b refused the forged snapshot and started from the real one; it could not have replayed the
    # log from its start, which no longer holds the first writes.
    assert f"snapshot forged of shard {target} refused" in log, log
    for s in first:
        assert f"shard {s}: restored from snapshot " in log, (s, log)
    for o in owners:
        # The tail's texts are embedded again by their new leader, in the background.
        deadline = time.monotonic() + 60
        while (st := r.result("index/status", {"owner": o}))["pendingEmbeddings"] and time.monotonic() < deadline:
            time.sleep(0.2)
        assert st["records"] == len(TOPICS) and st["pendingEmbeddings"] == 0, st
        assert [semantic(r, o, q) for q in asked] == before[o], o


def without_store_ids(value):
    """A finding as the owner sees it, without the ids a store numbers across all its owners."""
    if isinstance(value, dict):
        return {k: without_store_ids(v) for k, v in value.items() if k not in ("groupId", "occurrenceId", "themeId")}
    if isinstance(value, list):
        return [without_store_ids(v) for v in value]
    return value


DEBIAN_NATS_SERVER = "/usr/sbin/nats-server"


def server_release(binary):
    out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=10).stdout
    return tuple(int(x) for x in out.strip().rsplit("v", 1)[-1].split("-")[0].split("."))


@pytest.mark.skipif(not os.path.exists(DEBIAN_NATS_SERVER) or server_release(DEBIAN_NATS_SERVER) >= (2, 9, 18),
                    reason="needs a nats-server before 2.9.18 (Debian 12's is 2.9.10; scripts/install-deps.sh installs it)")
def test_on_nats_servers_before_2_9_18_snapshots_are_taken_and_the_log_kept_whole(tmp_path):
    # Those releases replay a purge of one subject as a purge of every subject on a replica that
    # restarts (nats-server#4196): trimming one shard's log could wipe the others'.
    nats = NatsCluster(tmp_path, binary=DEBIAN_NATS_SERVER)
    config = tmp_path / "snapshots.json"
    config.write_text(json.dumps({"cluster": {"shards": SHARDS, "snapshotEvery": 2, "snapshotEveryMs": 500}}))
    a = Node(tmp_path, nats.urls, "a", shards=SHARDS, config=config)
    r = None
    try:
        wait_all_led(nats.urls, [a])
        r = Router(tmp_path, nats.urls)
        r.initialize()
        owner = "person-0"
        shard = shard_of(owner)
        upsert(r, owner, [{"id": "s0", "revision": 1, "text": f"{owner} {TOPICS[0]}"}])
        first = cluster_status(nats.urls)["shards"][shard]["logSequence"]
        for k in range(1, 4):
            upsert(r, owner, [{"id": f"s{k}", "revision": 1, "text": f"{owner} {TOPICS[k]}"}])
        deadline = time.monotonic() + 30
        while True:
            row = cluster_status(nats.urls)["shards"][shard]
            if (row["snapshot"] and row["snapshot"]["sequence"] == row["logSequence"]) or time.monotonic() > deadline:
                break
            time.sleep(0.3)
        assert row["snapshot"] and row["snapshot"]["sequence"] == row["logSequence"], row
        # Every write of the shard is still in the log, its first one included.
        assert row["logFirst"] == first and row["logSequence"] > first, row
        log = a.log_path.read_text(errors="replace")
        assert "nats-server 2.9." in log and "the write log is kept whole" in log and "log kept whole" in log, log[-2000:]
    finally:
        if r is not None and r.proc.poll() is None:
            r.proc.kill()
            r.proc.wait()
        a.stop()
        nats.stop()


def test_cluster_refresh_gives_every_owner_the_findings_of_one_process(cluster, tmp_path):
    nats, node, router = cluster
    a, b = node("a"), node("b")
    status = wait_all_led(nats.urls, [a, b])
    r = router()
    owners = owners_on_two_nodes(status, count=4)
    journal = [json.loads(line) for line in (REPO / "datasets" / "journal" / "records.jsonl").read_text().splitlines()]
    records = {o: journal[k * 40:(k + 1) * 40] for k, o in enumerate(owners)}
    single = Server(tmp_path / "single.sqlite", tmp_path)
    single.initialize()
    for o in owners:
        for s in (r, single):
            s.result("records/upsert", {"owner": o, "records": records[o], "waitForIndex": True}, timeout=120)

    refresh = run_cli("cluster", "refresh", "--nats", nats.urls, "--parallel", "3", timeout=300)
    assert refresh.returncode == 0, refresh.stderr
    lines = refresh.stdout.splitlines()
    # A line per shard as it ends, in any order, then the totals.
    assert sorted(int(line.split(":")[0].split()[1]) for line in lines[:-1]) == list(range(SHARDS)), lines
    owners_by_shard = {}
    for o in owners:
        owners_by_shard[shard_of(o)] = owners_by_shard.get(shard_of(o), 0) + 1
    for line in lines[:-1]:
        shard = int(line.split(":")[0].split()[1])
        assert f": {owners_by_shard.get(shard, 0)} owners, " in line, line
    assert lines[-1].startswith(f"refreshed {len(owners)} owners on {SHARDS} of {SHARDS} shards: "), lines[-1]

    one = single.result("patterns/refresh", {}, timeout=300)
    assert one["owners"] == len(owners)
    found = 0
    for o in owners:
        want = single.result("patterns/findings", {"owner": o, "includeRelated": True})
        got = r.result("patterns/findings", {"owner": o, "includeRelated": True})
        assert without_store_ids(got) == without_store_ids(want), o
        found += len(got["findings"])
    assert found > 0, "no owner has a finding: the comparison would hold for nothing"
    assert single.shutdown_and_exit() == 0


def test_mcp_on_the_cluster_acts_for_its_owner_through_the_owners_shard(cluster, tmp_path):
    import os

    import anyio
    from mcp import Client, StdioServerParameters

    from conftest import BIN

    nats, node, router = cluster
    a, b = node("a"), node("b")
    status = wait_all_led(nats.urls, [a, b])
    r = router()
    leaders = {s["shard"]: s["leader"] for s in status["shards"]}
    owners = [next(f"person-{i}" for i in range(1000) if leaders[shard_of(f"person-{i}")] == n) for n in ("a", "b")]
    for k, owner in enumerate(owners):
        upsert(r, owner, [{"id": f"e{j}", "revision": 1, "text": f"zq{k}x {t}"}
                          for j, t in enumerate(["missed the last train home again", "baked bread with my sister"])])
    r2 = run_cli("mcp", "--cluster", nats.urls, "--db", str(tmp_path / "x.sqlite"), "--owner", owners[0])
    assert r2.returncode == 2 and "--cluster and --db exclude each other" in r2.stderr, r2.stderr
    env = {k: os.environ[k] for k in ("KINDRED_MODEL_DIR", "OPENBLAS_CORETYPE", "XDG_DATA_HOME", "PATH") if k in os.environ}

    async def session(k, owner):
        params = StdioServerParameters(command=BIN, args=["mcp", "--cluster", nats.urls, "--owner", owner], env=env)
        async with Client(params, mode="legacy") as client:
            hits = (await client.call_tool("search", {"text": "train journey home", "limit": 5})).structured_content
            assert [h["id"] for h in hits["results"]][0] == "e0" and len(hits["results"]) == 2
            got = (await client.call_tool("get_record", {"id": "e1"})).structured_content
            assert got["record"]["text"] == f"zq{k}x baked bread with my sister"
            # The other owner's marker is not found: the tools reach this owner's records only.
            other = (await client.call_tool("search", {"text": f"zq{1 - k}x", "mode": "keyword"})).structured_content
            assert other["results"] == []
            bad = await client.call_tool("findings", {"owner": owners[1 - k]})
            assert bad.is_error and "`owner`" in bad.content[0].text
            # A write goes through the shard's log like any other.
            refreshed = await client.call_tool("refresh_patterns", {})
            assert not refreshed.is_error and refreshed.structured_content["owners"] == 1
            assert (await client.call_tool("index_status")).structured_content["records"] == 2

    before = cluster_status(nats.urls)
    for k, owner in enumerate(owners):
        anyio.run(session, k, owner)
    status = cluster_status(nats.urls)
    for owner in owners:
        row, was = status["shards"][shard_of(owner)], before["shards"][shard_of(owner)]
        # The refresh is in the shard's log (stream sequences count every shard's writes) and applied.
        assert row["applied"] == row["logSequence"] > was["logSequence"], (row, was)


def b64(values):
    import base64
    import struct

    return base64.b64encode(struct.pack("<%df" % len(values), *values)).decode("ascii")


def without_ids(value):
    if isinstance(value, dict):
        return {k: without_ids(v) for k, v in value.items() if k != "id"}
    if isinstance(value, list):
        return [without_ids(v) for v in value]
    return value


def test_progress_the_judge_and_cancellation_travel_through_the_router_as_in_one_process(cluster, tmp_path):
    from test_judge import judged_call, small_journal, yes

    nats, node, router = cluster
    config = tmp_path / "judge.json"
    config.write_text(json.dumps({"cluster": {"shards": SHARDS, "failoverMs": 2000}, "patterns": {"judge": "client"}}))
    a = node("a", config=config)
    wait_all_led(nats.urls, [a])

    def opened(s, judge):
        caps = {"judge": True} if judge else {}
        init = s.result("initialize", {"processId": None, "clientInfo": {"name": "relay-e2e"}, "capabilities": caps})
        s.notify("initialized", {})
        assert init["capabilities"]["judge"] == "client"
        return s

    single = opened(Server(tmp_path / "single.sqlite", tmp_path, args=("--set", "patterns.judge=client")), judge=True)
    routed = opened(Router(tmp_path, nats.urls), judge=True)
    answers = {}
    for name, s in (("single", single), ("routed", routed)):
        small_journal(s)
        # The node asks the router's client, through the router, exactly what one process asks.
        r, questions = judged_call(s, "patterns/refresh", {"owner": "me", "workDoneToken": "rf"}, yes)
        assert "error" not in r, r
        progress = [n["params"] for n in s.notifications if n["method"] == "$/progress"]
        answers[name] = (without_ids(questions), r["result"]["groupsCreated"], r["result"]["judgeAsked"], progress,
                         without_store_ids(s.result("patterns/findings", {"owner": "me"})))
    assert answers["routed"] == answers["single"]
    questions, created, asked, progress, _ = answers["routed"]
    assert questions and created == 1 and asked == len(questions)
    assert {p["token"] for p in progress} == {"rf"} and "begin" in [p["value"]["kind"] for p in progress]
    assert progress[-1]["value"]["kind"] == "end"
    assert single.shutdown_and_exit() == 0

    # A write still queued on the node when its client cancels it is answered -32800 and never
    # made, as a write queued in one process: the cancellation reaches the node before the write
    # enters the log. (The node works on one shard's requests in arrival order: a refresh of many
    # records holds the write back.)
    busy = opened(Router(tmp_path, nats.urls), judge=False)
    other = opened(Router(tmp_path, nats.urls), judge=False)
    n = 6000
    for start in range(0, n, 250):
        busy.result("records/upsert", {"owner": "bulk", "records": [
            {"id": f"b{i}", "revision": 1, "text": f"bulk record {i}", "vector": b64(vec(i))} for i in range(start, start + 250)]}, timeout=120)
    busy.request_async("patterns/refresh", {"owner": "bulk"}, id="rf")
    time.sleep(0.2)
    other.request_async("records/upsert", {"owner": "bulk", "records": [{"id": "late", "revision": 1, "text": "a late record"}]}, id="x")
    time.sleep(0.1)
    while not busy.messages.empty():
        busy.pending.append(busy.messages.get())
    assert not any(m.get("id") == "rf" for m in busy.pending if isinstance(m, dict)), "the refresh ended before the write could be cancelled"
    other.notify("$/cancelRequest", {"id": "x"})
    cancelled = other.response("x", timeout=120)
    assert cancelled.get("error", {}).get("code") == REQUEST_CANCELLED, cancelled
    assert "result" in busy.response("rf", timeout=300)
    assert other.error("records/get", {"owner": "bulk", "id": "late"})["code"] == NOT_FOUND
    assert other.result("index/status", {"owner": "bulk"})["records"] == n
    for s in (routed, busy, other):
        assert s.shutdown_and_exit() == 0
