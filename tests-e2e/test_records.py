"""Records end to end: persistence across restarts, owner isolation under random interleavings,
deletes and permissions taking effect at once, and validation that refuses a whole request."""

import os
import random

import pytest

from conftest import DIM, INVALID_PARAMS, LIMIT_EXCEEDED, NOT_FOUND, near, record, vec


def ids_of(result):
    return [r["id"] for r in result["results"]]


def search_ids(srv, owner, vector, limit=1000):
    return ids_of(srv.result("search/query", {"owner": owner, "vector": vector, "limit": limit}))


# -- persistence -----------------------------------------------------------------------------

def test_persistence_across_restarts(spawn, db):
    srv = spawn()
    srv.initialize()
    recs = [record(f"r{i}", text=f"persistent note {i}", vector_seed=i, kind="note", date="2024-05-0%d" % (i % 9 + 1),
                   tags=["t%d" % (i % 3)], metadata={"n": i, "even": i % 2 == 0}) for i in range(40)]
    assert {r["status"] for r in srv.result("records/upsert", {"owner": "o", "records": recs})["results"]} == {"created"}
    srv.result("records/upsert", {"owner": "o", "records": [record("r1", revision=5, text="edited", vector_seed=1001)]})
    srv.result("records/delete", {"owner": "o", "ids": ["r2"]})
    srv.result("records/setPermissions", {"owner": "o", "id": "r3", "permissions": {"search": False}})
    before = {i: srv.result("records/get", {"owner": "o", "id": f"r{i}"}) for i in [0, 1, 3, 39]}
    status_before = srv.result("index/status", {"owner": "o"})
    assert srv.shutdown_and_exit() == 0

    for round_ in range(2):  # and once more, to be sure reopening does not change anything
        srv = spawn(db_path=db)
        srv.initialize()
        for i, got in before.items():
            assert srv.result("records/get", {"owner": "o", "id": f"r{i}"}) == got
        assert srv.error("records/get", {"owner": "o", "id": "r2"})["code"] == NOT_FOUND
        status = srv.result("index/status", {"owner": "o"})
        for k in ["records", "searchable", "vectors", "indexed"]:
            assert status[k] == status_before[k], k
        assert status["records"] == 39 and status["searchable"] == 38 and status["indexed"] == 38
        assert search_ids(srv, "o", vec(1001), limit=1) == ["r1"]
        assert search_ids(srv, "o", vec(7), limit=1) == ["r7"]
        found = search_ids(srv, "o", vec(3))
        assert "r3" not in found and "r2" not in found and len(found) == 38
        # Revisions still only move forward after a restart.
        res = srv.result("records/upsert", {"owner": "o", "records": [record("r1", revision=4, text="older", vector_seed=1)]})
        assert res["results"][0]["status"] == "stale"
        assert srv.shutdown_and_exit() == 0


# -- owner isolation -------------------------------------------------------------------------

def test_owner_isolation_random_interleaving(server):
    seed = int(os.environ.get("KINDRED_E2E_SEED", random.randrange(1 << 30)))
    rng = random.Random(seed)
    owners = ["alice", "bob"]
    pool = [f"id{i}" for i in range(25)]  # both owners use the same ids
    model = {o: {} for o in owners}  # id → (revision, text, vector seed, searchable)
    revisions = {o: {} for o in owners}
    vseed = 10_000

    def check():
        for o in owners:
            other = [x for x in owners if x != o][0]
            st = server.result("index/status", {"owner": o})
            assert st["records"] == len(model[o]), f"seed={seed}"
            assert st["searchable"] == sum(1 for v in model[o].values() if v[3]), f"seed={seed}"
            for rid in pool:
                r = server.call("records/get", {"owner": o, "id": rid})
                if rid in model[o]:
                    rev, text, _, search = model[o][rid]
                    assert r["result"]["record"]["revision"] == rev and r["result"]["record"]["text"] == text, f"seed={seed}"
                    assert r["result"]["record"]["permissions"]["search"] == search
                else:
                    assert r["error"]["code"] == NOT_FOUND, f"seed={seed} {o}/{rid} should not exist: {r}"
            expected = {rid for rid, v in model[o].items() if v[3]}
            # Query with the other owner's vectors too: only this owner's records may come back.
            probes = [v[2] for v in list(model[o].values())[:3]] + [v[2] for v in list(model[other].values())[:3]]
            for p in probes:
                got = search_ids(server, o, vec(p))
                assert set(got) == expected, f"seed={seed} owner={o}"
                assert len(got) == len(expected)
            for rid, v in list(model[o].items())[:3]:
                if v[3]:
                    assert search_ids(server, o, vec(v[2]), limit=1) == [rid], f"seed={seed}"
                    sim = server.result("search/similar", {"owner": o, "id": rid, "limit": 1000})
                    assert set(ids_of(sim)) == expected - {rid}, f"seed={seed}"
            for word in ["alice", "bob"]:
                kw = server.result("search/query", {"owner": o, "text": f"secret{word}", "mode": "keyword", "limit": 1000})
                hits = set(ids_of(kw))
                if word != o:
                    assert not hits, f"seed={seed}: {o} sees {word}'s words"
                else:
                    assert hits == expected, f"seed={seed}"

    for step in range(240):
        o = rng.choice(owners)
        op = rng.random()
        if op < 0.6:
            batch = rng.sample(pool, rng.randint(1, 4))
            recs = []
            for rid in batch:
                rev = revisions[o].get(rid, 0) + rng.randint(1, 3)
                revisions[o][rid] = rev
                vseed += 1
                search = rng.random() > 0.15
                text = f"secret{o} {rid} rev {rev}"
                recs.append(record(rid, revision=rev, text=text, vector_seed=vseed, permissions={"search": search}))
                model[o][rid] = (rev, text, vseed, search)
            res = server.result("records/upsert", {"owner": o, "records": recs})
            assert {r["status"] for r in res["results"]} <= {"created", "updated"}, f"seed={seed}"
        elif op < 0.85:
            ids = rng.sample(pool, rng.randint(1, 3))
            res = server.result("records/delete", {"owner": o, "ids": ids})
            assert sorted(res["deleted"]) == sorted(i for i in ids if i in model[o]), f"seed={seed}"
            assert sorted(res["missing"]) == sorted(i for i in ids if i not in model[o]), f"seed={seed}"
            for i in ids:
                model[o].pop(i, None)
        else:
            rid = rng.choice(pool)
            flag = rng.random() < 0.5
            r = server.call("records/setPermissions", {"owner": o, "id": rid, "permissions": {"search": flag}})
            if rid in model[o]:
                assert r["result"]["record"]["permissions"]["search"] == flag
                rev, text, vs, _ = model[o][rid]
                model[o][rid] = (rev, text, vs, flag)
            else:
                assert r["error"]["code"] == NOT_FOUND, f"seed={seed}"
        if step % 40 == 39:
            check()
    check()


# -- delete and permissions ------------------------------------------------------------------

def test_delete_and_permissions_take_effect_at_once(server):
    recs = [record(f"r{i}", text=f"shared words number{i}", vector_seed=i) for i in range(10)]
    server.result("records/upsert", {"owner": "o", "records": recs})
    q = near(vec(4), seed=1)
    assert search_ids(server, "o", q, limit=1) == ["r4"]

    p = server.result("records/setPermissions", {"owner": "o", "id": "r4", "permissions": {"search": False}})
    assert p["record"]["permissions"] == {"search": False, "patterns": True}
    assert p["indexed"] is False
    assert "r4" not in search_ids(server, "o", q)
    assert "r4" not in ids_of(server.result("search/query", {"owner": "o", "text": "number4", "mode": "keyword"}))
    assert "r4" not in ids_of(server.result("search/similar", {"owner": "o", "id": "r5", "limit": 100}))
    assert server.result("index/status", {"owner": "o"})["searchable"] == 9
    # The record itself is still there.
    assert server.result("records/get", {"owner": "o", "id": "r4"})["record"]["permissions"]["search"] is False

    p = server.result("records/setPermissions", {"owner": "o", "id": "r4", "permissions": {"search": True}})
    assert p["indexed"] is True
    assert search_ids(server, "o", q, limit=1) == ["r4"]
    assert ids_of(server.result("search/query", {"owner": "o", "text": "number4", "mode": "keyword"})) == ["r4"]

    # patterns only: search is untouched.
    p = server.result("records/setPermissions", {"owner": "o", "id": "r4", "permissions": {"patterns": False}})
    assert p["record"]["permissions"] == {"search": True, "patterns": False}
    assert search_ids(server, "o", q, limit=1) == ["r4"]

    d = server.result("records/delete", {"owner": "o", "ids": ["r4", "zzz"]})
    assert d["deleted"] == ["r4"] and d["missing"] == ["zzz"]
    assert "r4" not in search_ids(server, "o", q)
    assert "r4" not in ids_of(server.result("search/query", {"owner": "o", "text": "number4", "mode": "keyword"}))
    assert server.error("records/get", {"owner": "o", "id": "r4"})["code"] == NOT_FOUND
    assert server.error("search/similar", {"owner": "o", "id": "r4"})["code"] == NOT_FOUND
    e = server.error("records/setPermissions", {"owner": "o", "id": "r4", "permissions": {"search": True}})
    assert e["code"] == NOT_FOUND and e["data"]["id"] == "r4"
    # The deleted revision replayed is stale (a tombstone); a higher one re-creates the id.
    res = server.result("records/upsert", {"owner": "o", "records": [record("r4", revision=1, vector_seed=4)]})
    assert res["results"][0]["status"] == "stale" and res["results"][0]["deleted"] is True
    assert "r4" not in search_ids(server, "o", q)
    res = server.result("records/upsert", {"owner": "o", "records": [record("r4", revision=2, vector_seed=4)]})
    assert res["results"][0]["status"] == "created"
    assert search_ids(server, "o", q, limit=1) == ["r4"]


def test_upsert_with_search_false_is_never_found(server):
    server.result("records/upsert", {"owner": "o", "records": [
        record("hidden", text="needle haystack", vector_seed=1, permissions={"search": False}),
        record("shown", text="haystack", vector_seed=2)]})
    assert search_ids(server, "o", vec(1)) == ["shown"]
    assert ids_of(server.result("search/query", {"owner": "o", "text": "needle", "mode": "keyword"})) == []
    server.result("records/upsert", {"owner": "o", "records": [record("hidden", revision=2, text="needle haystack", vector_seed=1)]})
    assert search_ids(server, "o", vec(1), limit=1) == ["hidden"]


# -- validation ------------------------------------------------------------------------------

GOOD = {"id": "g", "revision": 1, "text": "fine"}


def bad_vector_element():
    v = vec(1)
    v[7] = "0.5"
    return dict(GOOD, vector=v)


@pytest.mark.parametrize("bad,field", [
    (bad_vector_element(), "records[0].vector[7]"),
    (dict(GOOD, vector=[0.1, None] + vec(1)[2:]), "records[0].vector[1]"),
    (dict(GOOD, vector=vec(1)[:DIM - 1]), "records[0].vector"),
    (dict(GOOD, vector=vec(1) + [0.5]), "records[0].vector"),
    (dict(GOOD, vector=[0.0] * DIM), "records[0].vector"),
    (dict(GOOD, vector=[1e39] + vec(1)[1:]), "records[0].vector[0]"),
    ({"id": "g", "revision": 1}, "records[0].text"),
    ({"revision": 1, "text": "x"}, "records[0].id"),
    (dict(GOOD, id=""), "records[0].id"),
    (dict(GOOD, id=7), "records[0].id"),
    (dict(GOOD, revision=0), "records[0].revision"),
    (dict(GOOD, revision=-3), "records[0].revision"),
    (dict(GOOD, revision=1.5), "records[0].revision"),
    (dict(GOOD, revision="1"), "records[0].revision"),
    (dict(GOOD, colour="red"), "records[0].colour"),
    (dict(GOOD, date="May 1st"), "records[0].date"),
    (dict(GOOD, tags=["a", 1]), "records[0].tags[1]"),
    (dict(GOOD, metadata={"nested": {"a": 1}}), "records[0].metadata.nested"),
    (dict(GOOD, permissions={"read": True}), "records[0].permissions.read"),
    (dict(GOOD, permissions={"search": "yes"}), "records[0].permissions.search"),
    ("not an object", "records[0]"),
])
def test_invalid_record_names_the_field(server, bad, field):
    e = server.error("records/upsert", {"owner": "o", "records": [bad]})
    assert e["code"] == INVALID_PARAMS
    assert e["data"]["field"] == field, e
    assert field in e["message"]
    assert server.result("index/status", {"owner": "o"})["records"] == 0


def test_one_bad_record_in_five_writes_none(server):
    recs = [record(f"b{i}", vector_seed=i) for i in range(5)]
    recs[3] = dict(recs[3], revision=0)
    e = server.error("records/upsert", {"owner": "o", "records": recs})
    assert e["code"] == INVALID_PARAMS
    assert e["data"]["field"] == "records[3].revision" and e["data"]["index"] == 3
    assert [x["index"] for x in e["data"]["errors"]] == [3]
    for i in range(5):
        assert server.error("records/get", {"owner": "o", "id": f"b{i}"})["code"] == NOT_FOUND
    assert search_ids(server, "o", vec(0)) == []
    # Several problems are all listed; a duplicate id counts as one.
    recs = [record("c0", vector_seed=1), {"id": "c1", "revision": 1}, record("c0", vector_seed=2), record("c3", colour=1)]
    e = server.error("records/upsert", {"owner": "o", "records": recs})
    assert [(x["index"], x["field"]) for x in e["data"]["errors"]] == [
        (1, "records[1].text"), (2, "records[2].id"), (3, "records[3].colour")]
    assert server.result("index/status", {"owner": "o"})["records"] == 0


@pytest.mark.parametrize("method,params,field", [
    ("records/upsert", {"records": []}, "owner"),
    ("records/upsert", {"owner": "", "records": []}, "owner"),
    ("records/upsert", {"owner": "o"}, "records"),
    ("records/upsert", {"owner": "o", "records": {}}, "records"),
    ("records/delete", {"owner": "o"}, "ids"),
    ("records/delete", {"owner": "o", "ids": [1]}, "ids[0]"),
    ("records/setPermissions", {"owner": "o", "id": "x"}, "permissions"),
    ("records/setPermissions", {"owner": "o", "id": "x", "permissions": {"delete": True}}, "permissions.delete"),
    ("search/query", {"owner": "o"}, "text"),
    ("search/query", {"owner": "o", "vector": "abc"}, "vector"),
    ("search/query", {"owner": "o", "text": "x", "limit": 0}, "limit"),
    ("search/query", {"owner": "o", "text": "x", "limit": "5"}, "limit"),
    ("search/query", {"owner": "o", "text": "x", "filters": {"from": "yesterday"}}, "filters.from"),
    ("search/query", {"owner": "o", "text": "x", "filters": {"tagsMode": "some"}}, "filters.tagsMode"),
    ("search/query", {"owner": "o", "vector": vec(1), "mode": "keyword"}, "text"),
    ("search/similar", {"owner": "o"}, "id"),
    ("index/status", {"owner": ""}, "owner"),
])
def test_invalid_params_other_methods(server, method, params, field):
    e = server.error(method, params)
    assert e["code"] == INVALID_PARAMS, e
    assert e["data"]["field"] == field, e


def test_limits(server):
    e = server.error("records/upsert", {"owner": "o", "records": [{"id": f"x{i}", "revision": 1, "text": "t"} for i in range(10_001)]})
    assert e["code"] == LIMIT_EXCEEDED and e["data"]["field"] == "records" and e["data"]["limit"] == 10_000
    e = server.error("search/query", {"owner": "o", "text": "x", "limit": 1_000_000})
    assert e["code"] == LIMIT_EXCEEDED and e["data"]["field"] == "limit"
    assert server.result("index/status", {"owner": "o"})["records"] == 0


@pytest.mark.parametrize("text", ["", " ", "\n\t \u00a0\u3000"])
def test_a_record_without_words_is_refused_naming_text(spawn, text):
    """An empty record was stored and embedded; a blank query then found it at score 1.0."""
    srv = spawn()
    srv.initialize()
    e = srv.error("records/upsert", {"owner": "o", "records": [record("ok", text="words"), {"id": "blank", "revision": 1, "text": text}]})
    assert e["code"] == INVALID_PARAMS
    assert (e["data"]["field"], e["data"]["reason"]) == ("records[1].text", "must not be empty or blank")
    assert "nothing was written" in e["message"]
    assert srv.result("index/status", {"owner": "o"})["records"] == 0
    # With a vector of its own, too: the text is what a person reads back.
    e = srv.error("records/upsert", {"owner": "o", "records": [{"id": "v", "revision": 1, "text": text, "vector": vec(1)}]})
    assert e["data"]["field"] == "records[0].text"
