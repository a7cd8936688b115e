"""Owner isolation, randomised: three owners with overlapping record ids, every read and write method
tried across owners, with owners and ids drawn to include NUL, invalid UTF-8 and look-alike Unicode.

Every owner's texts carry a marker word of their own. A leak is any answer given to one owner that
shows another owner's marker, id set or count; after every step the server's state is compared with a
model of what each exact owner string wrote. The run is seeded, so a failure names its seed and step.
"""

import random
import unicodedata
import zlib

import pytest

from conftest import INVALID_PARAMS, PARSE_ERROR, vec

# Three owners; the third is written in NFC so its NFD twin below is a distinct, look-alike string.
OWNERS = ["alice", "bob", "\u00e9lise"]
# Strings that look like an owner or collide with one when cut at a NUL, normalised, or case-folded.
LOOKALIKES = [
    "alice\u0000mallory", "alice\u0000", "\u0000", "\u0000alice", "bob\u0000",
    "Alice", "ALICE", "alice ", " alice", "\u0430lice",  # Cyrillic a
    "al\u200bice", "alice\ufeff", "e\u0301lise", "\u00c9lise", "\uff41lice",  # NFD twin, capital, fullwidth a
]
IDS = ["diary-1", "diary-2", "diary-3", "note-1", "n"]
ID_LOOKALIKES = ["diary-1\u0000zzz", "diary-1\u0000", "\u0000", "diary-1 ", "d\u0456ary-1", "DIARY-1",
                 "diary\u20111", "n\u0000", "note-1\u200d"]
# Raw bytes that are not UTF-8, spliced into a JSON string on the wire.
INVALID_UTF8 = [b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xc0\xaf", b"\x80abc"]


def marker(owner):
    """A word that only this exact owner's texts contain (keyword search finds it; stemming keeps it)."""
    return "zq" + owner.encode("utf-8").hex() + "x"


def has_nul(s):
    """Strings the server refuses as an owner or id: with U+0000, or not in Unicode NFC (so that
    canonically equivalent spellings such as "\u00e9" and "e\u0301" can never name one owner in one
    place and two in another)."""
    return "\u0000" in s or not unicodedata.is_normalized("NFC", s)


class Model:
    """What each exact owner string has written: owner -> id -> (revision, text)."""

    def __init__(self):
        self.records = {}
        # owner -> id -> revision of the deletion (a tombstone: a replay at or below it is stale).
        self.tombstones = {}

    def owner_records(self, owner):
        return self.records.setdefault(owner, {})


def collect_strings(value, out):
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            out.append(k)
            collect_strings(v, out)
    elif isinstance(value, list):
        for v in value:
            collect_strings(v, out)
    return out


class Run:
    def __init__(self, server, seed):
        self.s = server
        self.rng = random.Random(seed)
        self.seed = seed
        self.model = Model()
        self.step = 0
        self.owners_seen = set(OWNERS)
        self.counts = {"ok": 0, "refused": 0, "parse": 0}

    # -- drawing -------------------------------------------------------------------------------

    def draw_owner(self):
        return self.rng.choice(OWNERS) if self.rng.random() < 0.6 else self.rng.choice(LOOKALIKES)

    def draw_id(self):
        return self.rng.choice(IDS) if self.rng.random() < 0.7 else self.rng.choice(ID_LOOKALIKES)

    def text_for(self, owner, id, revision):
        return f"{marker(owner)} entry {id} revision {revision}: the train left the station \u0000 early"

    # -- checking ------------------------------------------------------------------------------

    def where(self):
        return f"seed {self.seed}, step {self.step}"

    def assert_no_leak(self, owner, answer):
        """No string in `answer` carries another owner's marker."""
        strings = collect_strings(answer, [])
        for other in self.owners_seen:
            if other == owner:
                continue
            m = marker(other)
            for s in strings:
                assert m not in s, f"{self.where()}: answer to owner {owner!r} shows {other!r}'s data: {s[:120]!r}"

    def expect_refused_for_nul(self, owner, ids, response):
        """Owners and ids with NUL or not in NFC are refused with -32602 naming the field."""
        if has_nul(owner) or any(has_nul(i) for i in ids):
            assert "error" in response, f"{self.where()}: NUL or non-NFC owner or id accepted: {response}"
            assert response["error"]["code"] == INVALID_PARAMS, f"{self.where()}: {response}"
            message = response["error"]["message"]
            assert ("owner" in message) or ("id" in message), f"{self.where()}: error does not name the field: {message}"
            self.counts["refused"] += 1
            return True
        return False

    def call(self, method, params):
        r = self.s.call(method, params)
        if "result" in r:
            self.counts["ok"] += 1
            self.assert_no_leak(params.get("owner"), r["result"])
        return r

    def track_owner(self, owner):
        if not has_nul(owner):
            self.owners_seen.add(owner)

    # -- operations ----------------------------------------------------------------------------

    def op_upsert(self):
        owner, id = self.draw_owner(), self.draw_id()
        self.track_owner(owner)
        mine = self.model.owner_records(owner) if not has_nul(owner) else {}
        tomb = self.model.tombstones.get(owner, {}).get(id) if not has_nul(owner) else None
        replay = id not in mine and tomb is not None and self.rng.random() < 0.3
        revision = (mine[id][0] + 1) if id in mine else (tomb if replay else (tomb or 0) + 1)
        text = self.text_for(owner, id, revision)
        r = self.call("records/upsert", {"owner": owner, "records": [
            {"id": id, "revision": revision, "text": text, "vector": vec(zlib.crc32(f"{owner}/{id}".encode("utf-8", "surrogatepass"))), "tags": ["t"]}]})
        if self.expect_refused_for_nul(owner, [id], r):
            return
        assert "result" in r, f"{self.where()}: {r}"
        status = r["result"]["results"][0]["status"]
        if replay:
            # A replayed revision of a deleted record stays deleted.
            assert status == "stale", f"{self.where()}: replay of deleted {owner!r}/{id!r} rev {revision}: {status}"
            return
        assert status in ("created", "updated"), f"{self.where()}: {owner!r}/{id!r} rev {revision}: {status}"
        assert (status == "created") == (id not in mine), f"{self.where()}: {owner!r}/{id!r}: {status} but model has {mine.get(id)}"
        self.model.owner_records(owner)[id] = (revision, text)

    def op_get(self):
        owner, id = self.draw_owner(), self.draw_id()
        r = self.call("records/get", {"owner": owner, "id": id})
        if self.expect_refused_for_nul(owner, [id], r):
            return
        mine = self.model.records.get(owner, {})
        if id in mine:
            assert "result" in r, f"{self.where()}: {owner!r}/{id!r} should exist: {r}"
            rec = r["result"]["record"]
            assert rec["id"] == id and rec["revision"] == mine[id][0] and rec["text"] == mine[id][1], f"{self.where()}: {rec}"
        else:
            assert "error" in r, f"{self.where()}: {owner!r}/{id!r} should not exist, got {r}"

    def op_delete(self):
        owner = self.draw_owner()
        ids = sorted({self.draw_id() for _ in range(self.rng.randint(1, 3))})
        r = self.call("records/delete", {"owner": owner, "ids": ids})
        if self.expect_refused_for_nul(owner, ids, r):
            return
        mine = self.model.records.get(owner, {})
        expected = sorted(i for i in ids if i in mine)
        assert sorted(r["result"]["deleted"]) == expected, f"{self.where()}: {owner!r} delete {ids!r}: {r['result']}"
        for i in expected:
            self.model.tombstones.setdefault(owner, {})[i] = mine.pop(i)[0]

    def op_set_permissions(self):
        owner, id = self.draw_owner(), self.draw_id()
        r = self.call("records/setPermissions", {"owner": owner, "id": id, "permissions": {"search": True}})
        if self.expect_refused_for_nul(owner, [id], r):
            return
        assert ("result" in r) == (id in self.model.records.get(owner, {})), f"{self.where()}: {owner!r}/{id!r}: {r}"

    def op_search_keyword(self):
        owner = self.draw_owner()
        # Ask for the searcher's own marker and for another owner's: only the first may match.
        other = self.rng.choice(sorted(self.owners_seen))
        text = f"{marker(owner)} {marker(other)} station"
        r = self.call("search/query", {"owner": owner, "text": text, "mode": "keyword", "limit": 50})
        if self.expect_refused_for_nul(owner, [], r):
            return
        ids = sorted(h["id"] for h in r["result"]["results"])
        assert ids == sorted(self.model.records.get(owner, {})), f"{self.where()}: keyword hits for {owner!r}: {ids}"

    def op_search_vector(self):
        owner = self.draw_owner()
        r = self.call("search/query", {"owner": owner, "vector": vec(self.rng.randint(0, 1 << 16)), "mode": "semantic", "limit": 50})
        if self.expect_refused_for_nul(owner, [], r):
            return
        ids = sorted(h["id"] for h in r["result"]["results"])
        assert ids == sorted(self.model.records.get(owner, {})), f"{self.where()}: semantic hits for {owner!r}: {ids}"

    def op_similar(self):
        owner, id = self.draw_owner(), self.draw_id()
        r = self.call("search/similar", {"owner": owner, "id": id, "limit": 50})
        if self.expect_refused_for_nul(owner, [id], r):
            return
        mine = self.model.records.get(owner, {})
        if id not in mine:
            assert "error" in r, f"{self.where()}: similar to a record {owner!r} does not have: {r}"
            return
        ids = sorted(h["id"] for h in r["result"]["results"])
        assert ids == sorted(i for i in mine if i != id), f"{self.where()}: similar hits for {owner!r}: {ids}"

    def op_status(self):
        owner = self.draw_owner()
        r = self.call("index/status", {"owner": owner})
        if self.expect_refused_for_nul(owner, [], r):
            return
        assert r["result"]["records"] == len(self.model.records.get(owner, {})), f"{self.where()}: status for {owner!r}: {r['result']}"

    def op_occurrences(self):
        owner, id = self.draw_owner(), self.draw_id()
        mine = self.model.records.get(owner, {}) if not has_nul(owner) else {}
        revision = mine[id][0] if id in mine else 1
        r = self.call("occurrences/put", {"owner": owner, "recordId": id, "revision": revision, "occurrences": [
            {"category": "place", "description": "a station", "excerpt": "the train left the station"}]})
        if self.expect_refused_for_nul(owner, [id], r):
            return
        assert ("result" in r) == (id in mine), f"{self.where()}: occurrences for {owner!r}/{id!r}: {r}"

    def op_patterns(self):
        owner = self.draw_owner()
        r = self.call("patterns/refresh", {"owner": owner})
        if self.expect_refused_for_nul(owner, [], r):
            return
        f = self.call("patterns/findings", {"owner": owner})
        assert "result" in f, f"{self.where()}: {f}"
        for finding in f["result"]["findings"]:
            for e in finding["evidence"]:
                assert e["recordId"] in self.model.records.get(owner, {}), f"{self.where()}: evidence {e} for {owner!r}"

    def op_invalid_utf8(self):
        """An owner or id with bytes that are not UTF-8: refused as a parse error, nothing changes."""
        bad = self.rng.choice(INVALID_UTF8)
        base = self.rng.choice(OWNERS).encode("utf-8")
        id = self.s.new_id()
        field = self.rng.choice(["owner", "id"])
        owner_bytes = base + bad if field == "owner" else base
        id_bytes = b"diary-1" + bad if field == "id" else b"diary-1"
        body = (b'{"jsonrpc":"2.0","id":%d,"method":"records/upsert","params":{"owner":"' % id + owner_bytes +
                b'","records":[{"id":"' + id_bytes + b'","revision":99,"text":"x"}]}}')
        self.s.send_raw(body + b"\n")
        # A parse error has id null: wait for it rather than for our id.
        m = self.s.wait_for(lambda m: isinstance(m, dict) and "error" in m and m.get("id") is None)
        assert m["error"]["code"] == PARSE_ERROR, f"{self.where()}: {m}"
        self.counts["parse"] += 1

    def full_check(self):
        """Every record of every owner reads back whole; no owner sees another's count."""
        for owner in sorted(self.owners_seen):
            mine = self.model.records.get(owner, {})
            status = self.call("index/status", {"owner": owner})["result"]
            assert status["records"] == len(mine), f"{self.where()}: {owner!r} has {status['records']}, model {len(mine)}"
            for id, (revision, text) in mine.items():
                rec = self.call("records/get", {"owner": owner, "id": id})["result"]["record"]
                assert rec["text"] == text and rec["revision"] == revision, f"{self.where()}: {owner!r}/{id!r}: {rec}"

    def run(self, steps):
        ops = [(self.op_upsert, 5), (self.op_get, 3), (self.op_delete, 1), (self.op_set_permissions, 1),
               (self.op_search_keyword, 2), (self.op_search_vector, 2), (self.op_similar, 1), (self.op_status, 1),
               (self.op_occurrences, 1), (self.op_patterns, 0.1), (self.op_invalid_utf8, 0.5)]
        fns, weights = zip(*ops)
        for self.step in range(steps):
            self.rng.choices(fns, weights)[0]()
            if self.step % 100 == 99:
                self.full_check()
        self.full_check()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_owners_never_see_each_other(server, seed):
    run = Run(server, seed)
    run.run(400)
    # The draw really exercised both sides: accepted calls and NUL refusals and parse errors.
    assert run.counts["ok"] > 200 and run.counts["refused"] > 20 and run.counts["parse"] > 3, run.counts
    # Look-alike owners that were accepted are distinct owners with their own data.
    assert len(run.owners_seen) > len(OWNERS), run.owners_seen


def test_nul_owner_is_refused_and_does_not_reach_alice(server):
    server.result("records/upsert", {"owner": "alice", "records": [{"id": "diary-1", "revision": 1, "text": "alice's", "vector": vec(1)}]})
    for method, params in [
        ("records/get", {"owner": "alice\u0000mallory", "id": "diary-1"}),
        ("records/delete", {"owner": "alice\u0000mallory", "ids": ["diary-1"]}),
        ("records/delete", {"owner": "alice", "ids": ["diary-1\u0000zzz"]}),
        ("search/query", {"owner": "alice\u0000mallory", "text": "alice", "mode": "keyword"}),
        ("records/upsert", {"owner": "\u0000", "records": [{"id": "x", "revision": 1, "text": "x", "vector": vec(2)}]}),
    ]:
        err = server.error(method, params)
        assert err["code"] == INVALID_PARAMS, (method, err)
        assert "owner" in err["message"] or "id" in err["message"], (method, err)
    rec = server.result("records/get", {"owner": "alice", "id": "diary-1"})["record"]
    assert rec["text"] == "alice's"


def test_canonically_equivalent_spellings_are_refused_not_merged(server):
    server.result("records/upsert", {"owner": "\u00e9lise", "records": [{"id": "\u00e9t\u00e9", "revision": 1, "text": "NFC", "vector": vec(4)}]})
    for params in [{"owner": "e\u0301lise", "id": "\u00e9t\u00e9"}, {"owner": "\u00e9lise", "id": "e\u0301te\u0301"}]:
        err = server.error("records/get", params)
        assert err["code"] == INVALID_PARAMS and "NFC" in err["message"], err
    hits = server.result("search/query", {"owner": "\u00e9lise", "vector": vec(4), "mode": "semantic"})["results"]
    assert [h["id"] for h in hits] == ["\u00e9t\u00e9"]


def test_text_with_nul_is_stored_whole(server):
    server.result("records/upsert", {"owner": "alice", "records": [{"id": "c", "revision": 1, "text": "c\u0000d", "vector": vec(3)}]})
    assert server.result("records/get", {"owner": "alice", "id": "c"})["record"]["text"] == "c\u0000d"
