#!/usr/bin/env python3
"""Writes a small database with an old `kindred` build, for Tests/StorageTests/Fixtures.

    python3 scripts/make-schema-fixture.py KINDRED_BIN OUT.sqlite [--patterns]
    python3 scripts/make-schema-fixture.py --compact FILE.sqlite...   (only the last step)

A fixture is written by the code that released its schema version (check out the commit, build it,
run this); the folder holds versions 1 to 5, 16 and 21. Each holds records of two owners (edited,
deleted, hidden from search, with tags, metadata and client vectors), and with --patterns (schema 3 and later) a client occurrence,
a refresh that groups the passages of three similar records (one-passage records use their own
vector, so no embedder is needed) and a dismiss correction. The migration tests upgrade each fixture.
From version 21 on, run it with KINDRED_CONFIG naming a file that sets `embedder.precision` to
`float32`, so that the index version is the one the earlier fixtures hold.
"""

import json
import os
import random
import sqlite3
import subprocess
import sys


def vec(seed, dim=384):
    r = random.Random(seed)
    return [round(r.uniform(-1.0, 1.0), 5) for _ in range(dim)]


def near(v, seed, eps=0.02):
    r = random.Random(seed)
    return [round(x + r.uniform(-eps, eps), 5) for x in v]


class Client:
    def __init__(self, binary, db):
        self.proc = subprocess.Popen([binary, "serve", "--db", db], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.next_id = 1

    def call(self, method, params=None):
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            msg["params"] = params
        self.next_id += 1
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        self.proc.stdin.flush()
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise SystemExit(f"server ended during {method}")
            reply = json.loads(line)
            if reply.get("id") == msg["id"]:
                if "error" in reply:
                    raise SystemExit(f"{method}: {reply['error']}")
                return reply["result"]

    def close(self):
        self.call("shutdown")
        self.proc.stdin.write(b'{"jsonrpc":"2.0","method":"exit"}\n')
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


TRAIN = [
    ("r1", "I missed the train again and watched it leave the station without me.", "the train left without me"),
    ("r2", "At the station the last train pulled away while I was still on the stairs.", "the train pulled away without me"),
    ("r3", "Running for a train that left the platform just as I arrived.", "the train left as I arrived"),
    ("r4", "The night train departed and I stood alone on the empty platform.", "the train departed without me"),
]


def main():
    binary, out = sys.argv[1], sys.argv[2]
    patterns = "--patterns" in sys.argv[3:]
    if os.path.exists(out):
        os.remove(out)
    c = Client(binary, out)
    c.call("initialize", {"processId": None, "capabilities": {}})
    alice = [{"id": rid, "revision": 1, "text": text, "kind": "dream", "date": f"2024-05-0{i + 1}",
              "tags": ["travel"], "metadata": {"mood": "anxious", "n": i}, "vector": near(vec(1), i)}
             for i, (rid, text, _) in enumerate(TRAIN)]
    alice.append({"id": "walk", "revision": 1, "text": "A quiet walk by the river at dusk.", "kind": "note",
                  "date": "2024-05-09", "vector": vec(10)})
    alice.append({"id": "gone", "revision": 1, "text": "A record that is deleted.", "vector": vec(11)})
    alice.append({"id": "hidden", "revision": 1, "text": "A private train note kept out of search.", "vector": vec(12),
                  "permissions": {"search": False, "patterns": True}})
    c.call("records/upsert", {"owner": "alice", "records": alice})
    c.call("records/upsert", {"owner": "alice", "records": [dict(alice[0], revision=2, text=alice[0]["text"] + " Again.")]})
    c.call("records/delete", {"owner": "alice", "ids": ["gone"]})
    c.call("records/upsert", {"owner": "bob", "records": [
        {"id": "r1", "revision": 1, "text": "Bob swam across a cold river.", "kind": "dream", "vector": vec(20)}]})
    if patterns:
        rid, text, description = TRAIN[3]
        c.call("occurrences/put", {"owner": "alice", "recordId": rid, "revision": 1, "occurrences": [
            {"category": "object", "description": description, "excerpt": "the empty platform", "tags": ["t"]}]})
        c.call("patterns/refresh", {})
        groups = c.call("patterns/findings", {"owner": "alice"})["findings"]
        if groups:
            g = groups[0]
            c.call("patterns/correct", {"owner": "alice", "correction": {
                "kind": "dismiss", "groupId": g["groupId"], "occurrenceId": g["evidence"][-1]["occurrenceId"], "note": "not this one"}})
        else:
            raise SystemExit("no group formed")
    c.close()
    compact(out)
    print(out, os.path.getsize(out), "bytes")


def compact(path):
    """Rewrites the file with 1 KiB pages (same schema and rows, a quarter of the size)."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=DELETE")
    db.execute("PRAGMA page_size=1024")
    db.execute("VACUUM")
    db.close()


if __name__ == "__main__" and sys.argv[1:2] == ["--compact"]:
    for p in sys.argv[2:]:
        compact(p)
        print(p, os.path.getsize(p), "bytes")
elif __name__ == "__main__":
    main()
