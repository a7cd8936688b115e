"""Switching embedders on an existing database: vectors of the old version keep their rows until the
new version is complete; `index/rebuild` re-embeds in batches with progress, is cancellable and
resumes after a cancel or a crash (kill -9) without paying twice; search keeps answering throughout;
afterwards the old version's rows are gone."""

import os
import signal
import threading
import time

import pytest

from conftest import LOCAL_VERSION, REQUEST_CANCELLED, Server
from provider_stub import Provider

DIM = 16
EMBEDDER_UNAVAILABLE = -32030

DREAMS = [
    "I kept missing the train, the doors closed as I ran down the platform",
    "The bus left without me while I searched for my ticket",
    "A teacher handed back an exam covered in red ink",
    "Tomatoes and basil grew tall in the garden by the fence",
    "I was late for a flight and the gate kept moving further away",
    "My grandmother was baking bread in a kitchen full of light",
    "The ocean rose slowly over the pier while I watched calmly",
    "I sat an exam in a language I had never learned",
    "A dog followed me through an empty market at dawn",
    "I waited happily at the station with a coffee and a book",
    "The elevator would not stop at my floor however often I pressed",
    "My old bicycle was chained to a tree that had grown around it",
]


@pytest.fixture
def provider():
    p = Provider(dim=DIM)
    yield p
    p.close()


def local(tmp_path, db):
    s = Server(db, tmp_path, env={k: v for k, v in os.environ.items() if not k.startswith("KINDRED_EMBEDDER")})
    s.initialize()
    return s


def remote(tmp_path, db, provider, *sets):
    args = ["--set", f"embedder.url={provider.url}/v1", "--set", "embedder.model=stub-embed-1", "--set", f"index.dimension={DIM}",
            "--set", "embedder.batchSize=2", "--set", "embedder.retryBaseMs=50", "--set", "embedder.maxRetries=1"]
    for s in sets:
        args += ["--set", s]
    s = Server(db, tmp_path, args=args, env=dict(os.environ, KINDRED_EMBEDDER="openai"))
    s.initialize()
    return s


def versions(s):
    return {(v["indexVersion"], v["source"]): v["vectors"] for v in s.result("index/status", {})["vectorsByVersion"]}


def load_locally(tmp_path, db):
    s = local(tmp_path, db)
    recs = [{"id": f"d{i}", "revision": 1, "text": t} for i, t in enumerate(DREAMS)]
    s.result("records/upsert", {"owner": "me", "records": recs, "waitForIndex": True}, timeout=120)
    before = versions(s)
    assert before == {(LOCAL_VERSION, "model"): len(DREAMS)}
    assert s.shutdown_and_exit() == 0


def test_switching_embedders_rebuilds_while_search_keeps_working(tmp_path, db, provider):
    load_locally(tmp_path, db)
    provider.delay = 0.25
    s = remote(tmp_path, db, provider)
    st = s.result("index/status", {"owner": "me"})
    assert st["indexVersion"] == f"stub-embed-1@{DIM}" and st["pendingEmbeddings"] == len(DREAMS)
    time.sleep(0.5)
    assert provider.embedding_requests() == [], "vectors of another version were re-embedded without index/rebuild"
    assert versions(s) == {(LOCAL_VERSION, "model"): len(DREAMS)}

    # The previous (local) version keeps serving semantic search, without a call to the provider.
    r = s.result("search/query", {"owner": "me", "text": "the dream where I could not catch my train", "mode": "semantic", "limit": 2})
    assert r["results"][0]["id"] == "d0" and "usage" not in r
    assert any(LOCAL_VERSION in n for n in r["notes"])
    assert provider.embedding_requests() == []

    rid = s.request_async("index/rebuild", {"workDoneToken": "rb"})
    answered = 0
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        r = s.result("search/query", {"owner": "me", "text": "the dream where I could not catch my train", "limit": 3})
        assert r["results"] and "degraded" not in r, r
        if any("previous version" in n for n in r.get("notes", [])):
            assert r["results"][0]["id"] == "d0", r
            answered += 1
        if any(n["method"] == "$/progress" and n["params"]["value"]["kind"] == "end" for n in s.notifications):
            break
        time.sleep(0.1)
    done = s.response(rid, timeout=60)
    assert "error" not in done, done
    res = done["result"]
    assert res["reembedded"] == len(DREAMS) and res["deletedOtherVersions"] == len(DREAMS) and res["spaceReclaimed"]
    assert answered >= 3
    kinds = [n["params"]["value"]["kind"] for n in s.notifications if n["method"] == "$/progress" and n["params"]["token"] == "rb"]
    assert kinds[0] == "begin" and kinds[-1] == "end" and kinds.count("report") == len(DREAMS) // 2
    assert res["usage"][0]["calls"] == len(DREAMS) // 2
    assert versions(s) == {(f"stub-embed-1@{DIM}", "model"): len(DREAMS)}
    st = s.result("index/status", {"owner": "me"})
    assert st["pendingEmbeddings"] == 0 and st["vectorsOtherVersions"] == 0 and st["indexed"] == len(DREAMS)
    r = s.result("search/query", {"owner": "me", "text": "missing the train platform", "mode": "semantic", "limit": 1})
    assert [h["id"] for h in r["results"]] == ["d0"] and "notes" not in r and r["usage"][0]["calls"] == 1


def test_a_cancelled_then_crashed_rebuild_resumes_without_paying_twice(tmp_path, db, provider):
    load_locally(tmp_path, db)
    provider.delay = 0.2
    s = remote(tmp_path, db, provider)
    rid = s.request_async("index/rebuild", {"workDoneToken": "rb"})
    s.wait_for(lambda m: m.get("method") == "$/progress" and m["params"]["value"]["kind"] == "report", timeout=30)
    s.notify("$/cancelRequest", {"id": rid})
    assert s.response(rid)["error"]["code"] == REQUEST_CANCELLED
    staged = s.result("index/status", {})["rebuild"]["staged"]
    assert 2 <= staged < len(DREAMS)
    # The old version keeps every row until the new one is complete.
    assert versions(s)[(LOCAL_VERSION, "model")] == len(DREAMS)
    # A second rebuild is killed mid-way (kill -9), after at least one more batch.
    rid = s.request_async("index/rebuild", {"workDoneToken": "rb2"})
    s.wait_for(lambda m: m.get("method") == "$/progress" and m["params"]["token"] == "rb2" and m["params"]["value"]["kind"] == "report", timeout=30)
    s.proc.send_signal(signal.SIGKILL)
    s.proc.wait()
    calls_before = len(provider.embedding_requests())
    provider.delay = 0
    again = remote(tmp_path, db, provider)
    st = again.result("index/status", {})
    assert st["rebuild"]["staged"] >= staged + 2
    res = again.result("index/rebuild", {}, timeout=60)
    assert res["resumed"] == st["rebuild"]["staged"] and res["resumed"] + res["reembedded"] == len(DREAMS)
    assert len(provider.embedding_requests()) - calls_before == (res["reembedded"] + 1) // 2
    assert versions(again) == {(f"stub-embed-1@{DIM}", "model"): len(DREAMS)}


def test_a_provider_failure_stops_the_rebuild_and_keeps_the_old_version(tmp_path, db, provider):
    load_locally(tmp_path, db)
    s = remote(tmp_path, db, provider)
    provider.script = [None, "500", "500"]
    e = s.error("index/rebuild", {})
    assert e["code"] == EMBEDDER_UNAVAILABLE and e["data"]["provider"] == "openai" and e["data"]["status"] == 500
    assert versions(s)[(LOCAL_VERSION, "model")] == len(DREAMS)
    assert s.result("index/status", {})["rebuild"]["staged"] == 2
    res = s.result("index/rebuild", {})
    assert res["resumed"] == 2 and res["reembedded"] == len(DREAMS) - 2
