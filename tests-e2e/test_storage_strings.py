"""Strings reach the database whole: a NUL inside a record's text is data, over the real binary."""

from conftest import record


def test_text_with_a_nul_round_trips_whole(spawn, db):
    srv = spawn()
    srv.initialize()
    text = "c\u0000d and the train"
    res = srv.result("records/upsert", {"owner": "o", "records": [record("n1", text=text, vector_seed=1, tags=["x"])]})
    assert [r["status"] for r in res["results"]] == ["created"]
    assert srv.result("records/get", {"owner": "o", "id": "n1"})["record"]["text"] == text
    # The text cut at its NUL is another text: the same revision with it is a conflict.
    res = srv.result("records/upsert", {"owner": "o", "records": [record("n1", text="c", vector_seed=1)]})
    assert [r["status"] for r in res["results"]] == ["conflict"]
    assert srv.shutdown_and_exit() == 0
    srv = spawn(db_path=db)
    srv.initialize()
    assert srv.result("records/get", {"owner": "o", "id": "n1"})["record"]["text"] == text
