"""Tombstones over the real binary: a deleted record's old revision replayed is stale, a higher
revision recreates it, and purged tombstones no longer stop a replay."""

import sqlite3

from conftest import INVALID_PARAMS, NOT_FOUND, record, run_cli


def statuses(res):
    return [(r["id"], r["revision"], r["status"]) for r in res["results"]]


def test_replay_after_delete_is_stale_then_higher_revision_recreates(spawn, db):
    srv = spawn()
    srv.initialize()
    srv.result("records/upsert", {"owner": "o", "records": [record("d1", revision=2, text="a diary entry", vector_seed=1)]})
    assert srv.result("records/delete", {"owner": "o", "ids": ["d1"]}) == {"deleted": ["d1"], "missing": []}

    for rev in (1, 2):
        res = srv.result("records/upsert", {"owner": "o", "records": [record("d1", revision=rev, text="replayed", vector_seed=1)]})
        assert statuses(res) == [("d1", 2, "stale")]
        assert res["results"][0]["deleted"] is True
    err = srv.error("records/get", {"owner": "o", "id": "d1"})
    assert err["code"] == NOT_FOUND
    assert err["data"]["deleted"] is True and err["data"]["revision"] == 2 and err["data"]["deletedAt"].endswith("Z")
    assert srv.result("search/query", {"owner": "o", "text": "replayed", "mode": "keyword"})["results"] == []
    assert srv.result("index/status", {"owner": "o"})["records"] == 0
    # Another owner is not affected by o's tombstone.
    assert statuses(srv.result("records/upsert", {"owner": "p", "records": [record("d1", text="p's own")]})) == [("d1", 1, "created")]

    res = srv.result("records/upsert", {"owner": "o", "records": [record("d1", revision=3, text="written again", vector_seed=2)]})
    assert statuses(res) == [("d1", 3, "created")]
    assert srv.result("records/get", {"owner": "o", "id": "d1"})["record"]["text"] == "written again"
    assert [r["id"] for r in srv.result("search/query", {"owner": "o", "text": "written", "mode": "keyword"})["results"]] == ["d1"]

    # The tombstone survives a restart.
    srv.result("records/delete", {"owner": "o", "ids": ["d1"]})
    assert srv.shutdown_and_exit() == 0
    srv = spawn(db_path=db)
    srv.initialize()
    res = srv.result("records/upsert", {"owner": "o", "records": [record("d1", revision=3, text="written again")]})
    assert statuses(res) == [("d1", 3, "stale")]


def test_purge_then_replay_creates(spawn, db):
    srv = spawn()
    srv.initialize()
    srv.result("records/upsert", {"owner": "o", "records": [record("a", text="first"), record("b", text="second")]})
    srv.result("records/upsert", {"owner": "q", "records": [record("a", text="q's")]})
    srv.result("records/delete", {"owner": "o", "ids": ["a", "b"]})
    srv.result("records/delete", {"owner": "q", "ids": ["a"]})
    # Nothing was deleted before 2000; one owner's purge leaves the others'.
    assert srv.result("records/purgeTombstones", {"owner": "o", "before": "2000-01-01"}) == {"purged": 0}
    assert srv.result("records/purgeTombstones", {"owner": "o", "before": "2999-01-01"}) == {"purged": 2}
    assert statuses(srv.result("records/upsert", {"owner": "o", "records": [record("a", text="first")]})) == [("a", 1, "created")]
    assert statuses(srv.result("records/upsert", {"owner": "q", "records": [record("a", text="q's")]})) == [("a", 1, "stale")]
    for bad, field in [({"owner": "o"}, "before"), ({"before": "soon"}, "before"), ({"owner": "", "before": "2999-01-01"}, "owner")]:
        err = srv.error("records/purgeTombstones", bad)
        assert err["code"] == INVALID_PARAMS and err["data"]["field"] == field, (bad, err)
    assert srv.shutdown_and_exit() == 0

    # The CLI purges every owner's tombstones older than a date.
    out = run_cli("tombstones", "purge", "--db", db, "--before", "2999-01-01")
    assert out.returncode == 0, out.stderr
    assert "1 tombstone purged" in out.stdout
    con = sqlite3.connect(db)
    assert con.execute("SELECT count(*) FROM record_tombstones").fetchone() == (0,)
    con.close()
    out = run_cli("tombstones", "purge", "--db", db, "--before", "someday")
    assert out.returncode == 2 and "--before" in out.stderr and "-32602" not in out.stderr
