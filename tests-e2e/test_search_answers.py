"""What a search answer tells over the wire, with the real model: `pending` while records wait for
the embedder, `waitForIndex` on upsert, highlights that point at the right text, score fusion that
keeps a semantic first hit the keyword list misses, and records that must never appear."""

import pytest

from conftest import vec

DREAMS = [
    ("t1", "2025-01-04", "The carriage doors slid shut as I reached the platform. The train pulled away and I was left holding my ticket."),
    ("t2", "2025-02-10", "I kept running for my train but it left without me every time, and the departures board kept changing."),
    ("calm", "2025-03-01", "I was at the station with my mother, calmly waiting for the morning train. We shared a flask of tea."),
    ("fly1", "2025-03-15", "I was flying over the fields at dawn, arms out, the hedges far below me."),
    ("fly2", "2025-04-02", "Soaring above the rooftops of the city. I could feel the wind holding me up."),
    ("teeth", "2025-04-20", "All my teeth crumbled and fell into my hands while I tried to smile at the dinner party."),
]


def records(revision=1):
    return [{"id": i, "revision": revision, "text": t, "kind": "dream", "date": d} for i, d, t in DREAMS]


def test_pending_is_reported_until_the_embedder_has_caught_up(server):
    many = [{"id": f"n{k}", "revision": 1, "text": f"Note {k}: a long list of errands, the bakery, the post office and the garage."} for k in range(300)]
    server.result("records/upsert", {"owner": "me", "records": many})
    first = server.result("search/query", {"owner": "me", "text": "errands at the bakery", "mode": "hybrid"})
    assert 0 < first["pending"] <= 300
    # Other owners' waiting records are not counted.
    server.result("records/upsert", {"owner": "other", "records": [{"id": "x", "revision": 1, "text": "x", "vector": vec(1)}]})
    assert "pending" not in server.result("search/query", {"owner": "other", "vector": vec(1), "mode": "semantic"})
    for _ in range(600):
        r = server.result("search/query", {"owner": "me", "text": "errands at the bakery", "mode": "semantic"})
        if "pending" not in r:
            break
        assert r["pending"] <= first["pending"] + 300
        __import__("time").sleep(0.1)
    assert "pending" not in r and len(r["results"]) == 10


def test_wait_for_index_answers_once_searchable(server):
    r = server.result("records/upsert", {"owner": "me", "records": records(), "waitForIndex": True}, timeout=120)
    assert r["indexed"] is True
    assert [x["status"] for x in r["results"]] == ["created"] * len(DREAMS)
    hits = server.result("search/query", {"owner": "me", "text": "the dream where I kept missing a train", "mode": "semantic", "limit": 3})
    assert "pending" not in hits
    assert {"t1", "t2"} <= {h["id"] for h in hits["results"]}
    # An unchanged re-send has nothing to wait for.
    again = server.result("records/upsert", {"owner": "me", "records": records(), "waitForIndex": True})
    assert again["indexed"] is True and [x["status"] for x in again["results"]] == ["unchanged"] * len(DREAMS)


def test_wait_for_index_must_be_a_boolean(server):
    err = server.error("records/upsert", {"owner": "me", "records": records(), "waitForIndex": "yes"})
    assert err["code"] == -32602 and "waitForIndex" in err["message"]


def test_hybrid_keeps_the_semantic_first_hit_and_finds_both_flying_dreams(server):
    server.result("records/upsert", {"owner": "me", "records": records(), "waitForIndex": True}, timeout=120)
    train = server.result("search/query", {"owner": "me", "text": "the dream where I kept missing a train", "limit": 3})
    assert train["mode"] == "hybrid"
    ids = [h["id"] for h in train["results"]]
    assert ids[:2] in (["t1", "t2"], ["t2", "t1"]), ids
    fly = server.result("search/query", {"owner": "me", "text": "I could fly", "limit": 2})
    assert {h["id"] for h in fly["results"]} == {"fly1", "fly2"}


def test_highlight_is_the_matching_sentence_with_exact_offsets(server):
    text = ("We drove to the coast on Saturday. The tide was out and the sand went on for miles. "
            "Later the kite broke free and sailed over the dunes, which made Tomas laugh. Home by nine.")
    server.result("records/upsert", {"owner": "me", "records": [{"id": "k", "revision": 1, "text": text}], "waitForIndex": True}, timeout=120)
    for mode in ("keyword", "hybrid", "semantic"):
        hit = server.result("search/query", {"owner": "me", "text": "kites flying over dunes", "mode": mode})["results"][0]
        h, p = hit["highlight"], hit["passage"]
        # Offsets count Unicode scalars, as Python indexes a str.
        assert text[h["start"]:h["end"]] == h["text"]
        assert text[p["start"]:p["end"]] == p["text"]
        assert p["start"] <= h["start"] < h["end"] <= p["end"]
        if mode != "semantic":
            assert h["text"] == "Later the kite broke free and sailed over the dunes, which made Tomas laugh."
    # Non-ASCII before the sentence shifts scalar offsets, not bytes.
    text2 = "Ça commence: café, crème brûlée — 🌊 waves. The lighthouse beam swept the rocks."
    server.result("records/upsert", {"owner": "me", "records": [{"id": "u", "revision": 1, "text": text2, "vector": vec(5)}]})
    hit = server.result("search/query", {"owner": "me", "text": "lighthouse", "mode": "keyword"})["results"][0]
    assert hit["id"] == "u"
    assert text2[hit["highlight"]["start"]:hit["highlight"]["end"]] == "The lighthouse beam swept the rocks."


@pytest.mark.parametrize("mode", ["keyword", "semantic", "hybrid"])
def test_deleted_and_search_off_records_never_appear(server, mode):
    server.result("records/upsert", {"owner": "me", "records": records(), "waitForIndex": True}, timeout=120)
    server.result("records/delete", {"owner": "me", "ids": ["t1"]})
    server.result("records/setPermissions", {"owner": "me", "id": "t2", "permissions": {"search": False}})
    hidden = server.result("records/upsert", {"owner": "me", "records": [
        {"id": "t3", "revision": 1, "text": "I missed the last train home and the platform emptied.", "permissions": {"search": False}}]})
    assert hidden["results"][0]["status"] == "created"
    r = server.result("search/query", {"owner": "me", "text": "missed the train at the platform", "mode": mode, "limit": 50})
    ids = {h["id"] for h in r["results"]}
    assert not ids & {"t1", "t2", "t3"}, ids
    assert "calm" in ids or mode == "keyword"
    sim = server.result("search/similar", {"owner": "me", "id": "calm", "limit": 50})
    assert not {h["id"] for h in sim["results"]} & {"t1", "t2", "t3"}
