"""The embedded model and the pattern engine, driven over pipes: text-only records, progress,
semantic search, the server without a model, and pattern discovery with corrections."""

import json
import math
import os
import subprocess
import time

from conftest import BIN, LOCAL_VERSION, Server

EMBEDDER_UNAVAILABLE = -32030
STALE_GROUP_VERSION = -32021

DREAMS = [
    ("d1", "I was at the station and kept missing the train, every time.", "missing a train", "kept missing the train"),
    ("d2", "The train pulled away without me while I ran down the platform.", "the train leaving without me", "The train pulled away without me"),
    ("d3", "Again I missed my train and watched it disappear.", "missed my train", "I missed my train"),
    ("d4", "I sat happily waiting at a station with a coffee.", "happily waiting at a station", "happily waiting at a station"),
]


def serve(db, tmp_path, env=None):
    s = Server(db, tmp_path, env=env)
    return s


def test_embed_cli_prints_unit_vectors_in_order():
    out = subprocess.run([BIN, "embed", "Hello world!", "A man is eating food."], capture_output=True, text=True, check=True)
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(rows) == 2
    assert all(len(r) == 384 for r in rows)
    assert all(abs(math.sqrt(sum(x * x for x in r)) - 1) < 1e-4 for r in rows)
    again = subprocess.run([BIN, "embed", "A man is eating food."], capture_output=True, text=True, check=True)
    # Alone or in a batch, the same text gets the same vector (to float32 rounding).
    assert max(abs(a - b) for a, b in zip(json.loads(again.stdout), rows[1])) < 1e-5


def test_text_records_are_embedded_in_the_background_with_progress(db, tmp_path):
    s = serve(db, tmp_path)
    try:
        init = s.initialize()
        assert init["capabilities"]["embedder"]["available"] is True
        assert init["capabilities"]["embedder"]["dimension"] == 384
        records = [{"id": i, "revision": 1, "text": text, "kind": "dream"} for i, text, _, _ in DREAMS]
        records += [{"id": f"n{k}", "revision": 1, "text": f"Shopping list number {k}: bread, milk, eggs."} for k in range(40)]
        r = s.result("records/upsert", {"owner": "me", "records": records, "workDoneToken": "emb-1"})
        assert [x["status"] for x in r["results"]] == ["created"] * len(records)
        end = s.wait_for(lambda m: m.get("method") == "$/progress" and m["params"]["value"]["kind"] == "end", timeout=60)
        assert end["params"]["token"] == "emb-1"
        kinds = [n["params"]["value"]["kind"] for n in s.notifications if n.get("method") == "$/progress"]
        assert kinds[0] == "begin"
        status = s.result("index/status", {"owner": "me"})
        assert status["pendingEmbeddings"] == 0
        assert status["indexed"] == len(records)
        assert status["indexVersion"] == LOCAL_VERSION
        hits = s.result("search/query", {"owner": "me", "text": "the dream where I kept missing a train", "mode": "semantic", "limit": 3})
        assert hits["results"][0]["id"] in ("d1", "d3")
        assert {h["id"] for h in hits["results"]} <= {"d1", "d2", "d3", "d4"}
        assert s.shutdown_and_exit() == 0
    finally:
        s.close()


def test_without_a_model_the_server_still_serves_and_says_how_to_install(db, tmp_path):
    env = dict(os.environ, KINDRED_MODEL_DIR=str(tmp_path / "no-model-here"))
    s = serve(db, tmp_path, env=env)
    try:
        init = s.initialize()
        assert init["capabilities"]["embedder"]["available"] is False
        s.result("records/upsert", {"owner": "me", "records": [{"id": "t", "revision": 1, "text": "missed the train again"}]})
        err = s.error("search/query", {"owner": "me", "text": "train", "mode": "semantic"})
        assert err["code"] == EMBEDDER_UNAVAILABLE
        assert "fetch-model" in err["message"]
        hybrid = s.result("search/query", {"owner": "me", "text": "train"})
        assert hybrid["mode"] == "keyword"
        assert hybrid["degraded"]["reason"]
        assert [h["id"] for h in hybrid["results"]] == ["t"]
        # The record nobody could embed is counted as waiting in every answer.
        assert hybrid["pending"] == 1
        assert s.result("index/status", {"owner": "me"})["pendingEmbeddings"] == 1
        assert s.shutdown_and_exit() == 0
    finally:
        s.close()
    # With the model back, the waiting record is embedded and found by meaning.
    s = serve(db, tmp_path)
    try:
        s.initialize()
        for _ in range(400):
            if s.result("index/status", {"owner": "me"})["pendingEmbeddings"] == 0:
                break
            time.sleep(0.05)
        hits = s.result("search/query", {"owner": "me", "text": "a railway journey", "mode": "semantic"})
        assert [h["id"] for h in hits["results"]] == ["t"]
    finally:
        s.close()


def test_patterns_over_the_wire(db, tmp_path):
    s = serve(db, tmp_path)
    try:
        s.initialize()
        s.result("records/upsert", {"owner": "me", "records": [
            {"id": i, "revision": 1, "text": text, "kind": "dream", "date": f"2025-03-0{n + 1}"} for n, (i, text, _, _) in enumerate(DREAMS)]})
        for i, _, description, excerpt in DREAMS:
            put = s.result("occurrences/put", {"owner": "me", "recordId": i, "revision": 1, "occurrences": [
                {"category": "situation", "description": description, "excerpt": excerpt}]})
            assert put["accepted"] == 1
        bad = s.result("occurrences/put", {"owner": "me", "recordId": "d1", "revision": 1, "occurrences": [
            {"category": "situation", "description": "missing a train", "excerpt": "kept missing the train"},
            {"category": "situation", "description": "a plane", "excerpt": "boarding a plane"}]})
        assert bad["accepted"] == 1
        assert bad["rejected"][0]["index"] == 1
        refresh = s.result("patterns/refresh", {"owner": "me", "workDoneToken": "pr"}, timeout=60)
        assert refresh["groupsCreated"] >= 1
        s.wait_for(lambda m: m.get("method") == "$/progress" and m["params"]["token"] == "pr"
                   and m["params"]["value"]["kind"] == "end", timeout=5)
        findings = s.result("patterns/findings", {"owner": "me"})
        recurring = [f for f in findings["findings"] if f["kind"] == "recurring"]
        assert len(recurring) == 1
        assert sorted(e["recordId"] for e in recurring[0]["evidence"]) == ["d1", "d2", "d3"]
        assert recurring[0]["eligible"] == findings["eligibleRecords"] == 4
        second = s.result("patterns/refresh", {"owner": "me"})
        assert second["groupsCreated"] == 0 and second["groupsChanged"] == 0
        gid = recurring[0]["groupId"]
        group = s.result("patterns/group", {"owner": "me", "groupId": gid})["group"]
        version = group["version"]
        s.result("patterns/setLabel", {"owner": "me", "groupId": gid, "version": version, "label": "Missing trains"})
        assert s.result("patterns/findings", {"owner": "me"})["findings"][0]["label"] == "Missing trains"
        d3 = next(m["occurrenceId"] for m in group["members"] if m["recordId"] == "d3")
        s.result("patterns/correct", {"owner": "me", "correction": {"kind": "dismiss", "groupId": gid, "occurrenceId": d3, "note": "different"}})
        after = s.result("patterns/group", {"owner": "me", "groupId": gid})["group"]
        assert "d3" not in [m["recordId"] for m in after["members"]]
        assert after.get("label") is None
        err = s.error("patterns/setLabel", {"owner": "me", "groupId": gid, "version": version, "label": "stale"})
        assert err["code"] == STALE_GROUP_VERSION
        s.result("patterns/refresh", {"owner": "me"})
        assert "d3" not in [m["recordId"] for m in s.result("patterns/group", {"owner": "me", "groupId": gid})["group"]["members"]]
        s.result("records/delete", {"owner": "me", "ids": ["d2"]})
        g = s.result("patterns/group", {"owner": "me", "groupId": gid})["group"]
        assert [m["recordId"] for m in g["members"]] == ["d1"]
        assert g["state"] == "dormant"
        assert s.shutdown_and_exit() == 0
    finally:
        s.close()
