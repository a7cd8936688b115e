"""Remote embedders against a real HTTP server on loopback (provider_stub.py): each provider's wire
format, retries that are bounded and visible, failures that lose nothing and degrade search to
keyword matching, usage on responses, per-owner daily totals and limits — and the API key never in
any output."""

import json
import os
import time

import pytest

from conftest import INVALID_PARAMS, LIMIT_EXCEEDED, Server
from provider_stub import Provider

KEY = "sk-loopback-test-key-5e3f9a"
EMBEDDER_UNAVAILABLE = -32030
DIM = 16

TEXTS = {
    "train": "I kept missing the train, the doors closed as I ran down the platform",
    "teacher": "A teacher handed back an exam covered in red ink",
    "garden": "Tomatoes and basil grew tall in the garden by the fence",
}


@pytest.fixture
def provider():
    p = Provider(dim=DIM)
    yield p
    p.close()


@pytest.fixture
def remote(tmp_path, db, provider):
    """remote(kind, *sets) → an initialized server embedding with `kind` at the loopback provider."""
    servers = []

    def make(kind="openai", *sets, key=KEY, db_path=None, dimension=DIM):
        base = {"openai": provider.url + "/v1", "ollama": provider.url, "gemini": provider.url + "/v1beta"}[kind]
        args = ["--set", f"embedder.url={base}", "--set", "embedder.model=test-embed-1",
                "--set", "embedder.retryBaseMs=50", "--set", "embedder.retryMaxMs=2000", "--set", "embedder.timeoutMs=1500"]
        if dimension is not None:
            args += ["--set", f"index.dimension={dimension}"]
        for s in sets:
            args += ["--set", s]
        env = dict(os.environ, KINDRED_EMBEDDER=kind)
        if key:
            env["KINDRED_EMBEDDER_API_KEY"] = key
        s = Server(db_path or db, tmp_path, args=args, env=env)
        servers.append(s)
        s.initialize()
        return s

    yield make
    for s in servers:
        if s.proc.poll() is None:
            s.proc.kill()
            s.proc.wait()
        s._stderr.close()


def upsert(s, ids=TEXTS, owner="me", wait=True):
    recs = [{"id": i, "revision": 1, "text": TEXTS[i]} for i in ids]
    return s.result("records/upsert", {"owner": owner, "records": recs, "waitForIndex": wait}, timeout=60)


def everything_said(s):
    """Every byte the server wrote: protocol stream and stderr."""
    frames = b"".join(body for _, body in s.raw_frames)
    return frames.decode(errors="replace") + s.stderr_path.read_text(errors="replace")


@pytest.mark.parametrize("kind", ["openai", "ollama", "gemini"])
def test_each_wire_format_indexes_and_searches(kind, remote, provider):
    s = remote(kind)
    info = s.result("index/status", {"owner": "me"})
    assert info["indexVersion"] == f"test-embed-1@{DIM}" and info["embedder"]["provider"] == kind
    r = upsert(s)
    assert all(x["status"] == "created" for x in r["results"])
    found = s.result("search/query", {"owner": "me", "text": "missing the train", "mode": "semantic", "limit": 1})
    assert [h["id"] for h in found["results"]] == ["train"]
    usage = found["usage"][0]
    assert usage["provider"] == kind and usage["calls"] == 1 and usage["attempts"] == 1
    assert usage["inputCharacters"] == len("missing the train")
    path, headers, body = provider.embedding_requests()[0]
    if kind == "openai":
        assert path == "/v1/embeddings" and headers["authorization"] == f"Bearer {KEY}"
        assert body["model"] == "test-embed-1" and body["input"] == [TEXTS[i] for i in TEXTS]
        assert usage["tokens"] > 0
    elif kind == "ollama":
        assert path == "/api/embed" and headers["authorization"] == f"Bearer {KEY}"
        assert body == {"model": "test-embed-1", "input": [TEXTS[i] for i in TEXTS]}
    else:
        assert path == "/v1beta/models/test-embed-1:batchEmbedContents" and headers["x-goog-api-key"] == KEY
        assert "authorization" not in headers
        assert body["requests"][0]["model"] == "models/test-embed-1"
        assert body["requests"][0]["content"] == {"parts": [{"text": TEXTS["train"]}]}
        assert body["requests"][0]["outputDimensionality"] == DIM
    status = s.result("index/status", {"owner": "me"})
    assert status["vectors"] == 3 and status["pendingEmbeddings"] == 0
    assert s.shutdown_and_exit() == 0
    assert KEY not in everything_said(s)


def test_batches_follow_the_batch_size(remote, provider):
    s = remote("openai", "embedder.batchSize=2")
    upsert(s)
    sizes = [len(b["input"]) for _, _, b in provider.embedding_requests()]
    assert sizes == [2, 1]


def test_429_with_retry_after_is_honoured_and_visible(remote, provider):
    s = remote("openai")
    upsert(s)
    provider.script = [("429", 1)]
    t0 = time.monotonic()
    r = s.result("search/query", {"owner": "me", "text": "garden basil", "mode": "semantic", "limit": 1})
    waited = time.monotonic() - t0
    assert [h["id"] for h in r["results"]] == ["garden"]
    assert r["usage"][0]["calls"] == 1 and r["usage"][0]["attempts"] == 2
    assert waited >= 0.9, "Retry-After: 1 was not honoured"
    logs = [n["params"]["message"] for n in s.notifications if n["method"] == "window/logMessage"]
    s.wait_for(lambda m: m.get("method") == "window/logMessage" and "HTTP 429" in m["params"]["message"], timeout=5)


def test_a_retry_after_longer_than_the_longest_wait_ends_the_attempts(remote, provider):
    s = remote("openai")
    upsert(s)
    provider.script = [("429", 120)]
    t0 = time.monotonic()
    r = s.result("search/query", {"owner": "me", "text": "garden basil", "limit": 3})
    assert time.monotonic() - t0 < 5
    assert r["mode"] == "keyword" and "HTTP 429" in r["degraded"]["reason"] and "retry after" in r["degraded"]["reason"]


def test_retries_are_bounded_and_errors_name_provider_and_status(remote, provider):
    s = remote("openai", "embedder.maxRetries=2")
    upsert(s)
    before = len(provider.embedding_requests())
    provider.down = True
    e = s.error("search/query", {"owner": "me", "text": "train", "mode": "semantic"})
    assert e["code"] == EMBEDDER_UNAVAILABLE
    assert e["data"]["provider"] == "openai" and e["data"]["status"] == 503 and e["data"]["attempts"] == 3
    assert "openai HTTP 503" in e["message"]
    assert len(provider.embedding_requests()) - before == 3
    r = s.result("search/query", {"owner": "me", "text": "train platform"})
    assert r["mode"] == "keyword" and "openai HTTP 503" in r["degraded"]["reason"]
    assert [h["id"] for h in r["results"]] == ["train"]
    assert r["usage"][0]["attempts"] == 3
    assert KEY not in everything_said(s)


@pytest.mark.parametrize("failure, words", [
    (("slow", 4), "no answer within"),
    ("malformed", "not JSON"),
    ("wrongdim", f"dimension {DIM + 3}"),
    ("wrongcount", "vectors for"),
])
def test_bad_answers_lose_nothing_and_records_are_retried_later(failure, words, remote, provider):
    s = remote("openai", "embedder.maxRetries=0", "embedder.retryLaterMs=500")
    upsert(s, ["garden"])
    provider.script = [failure]
    r = s.result("records/upsert", {"owner": "me", "records": [{"id": "train", "revision": 1, "text": TEXTS["train"]},
                                                                {"id": "teacher", "revision": 1, "text": TEXTS["teacher"]}]})
    assert [x["status"] for x in r["results"]] == ["created", "created"]
    # The failed batch is reported, the records wait, then the later retry embeds them.
    s.wait_for(lambda m: m.get("method") == "window/logMessage" and words in m["params"]["message"], timeout=15)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        st = s.result("index/status", {"owner": "me"})
        if st["pendingEmbeddings"] == 0:
            break
        time.sleep(0.2)
    assert st["pendingEmbeddings"] == 0 and st["vectors"] == 3 and st["records"] == 3
    found = s.result("search/query", {"owner": "me", "text": "teacher exam", "mode": "semantic", "limit": 1})
    assert [h["id"] for h in found["results"]] == ["teacher"]


def test_a_refused_key_is_not_echoed(remote, provider):
    s = remote("openai", "embedder.maxRetries=0")
    provider.script = ["401"]
    r = s.result("search/query", {"owner": "me", "text": "anything"})
    assert "openai HTTP 401" in r["degraded"]["reason"] and "[redacted]" in r["degraded"]["reason"]
    assert KEY not in everything_said(s)


def test_daily_limit_refuses_remote_calls_and_search_degrades(remote, provider):
    s = remote("openai", "usage.dailyCallLimit=3")
    upsert(s)  # one call
    for _ in range(2):
        r = s.result("search/query", {"owner": "me", "text": "train", "mode": "semantic", "limit": 1})
        assert r["usage"][0]["calls"] == 1
    calls = len(provider.embedding_requests())
    r = s.result("search/query", {"owner": "me", "text": "train platform"})
    assert r["mode"] == "keyword" and "usage.dailyCallLimit" in r["degraded"]["reason"]
    assert [h["id"] for h in r["results"]] == ["train"] and "usage" not in r
    e = s.error("search/query", {"owner": "me", "text": "train", "mode": "semantic"})
    assert e["code"] == LIMIT_EXCEEDED and e["data"]["field"] == "usage.dailyCallLimit" and e["data"]["limit"] == 3
    assert len(provider.embedding_requests()) == calls, "a refused call reached the provider"
    # Another owner has a day of its own.
    other = s.result("search/query", {"owner": "you", "text": "train", "mode": "semantic"})
    assert other["usage"][0]["calls"] == 1
    # Records of the owner past the limit wait; nothing is lost.
    s.result("records/upsert", {"owner": "me", "records": [{"id": "late", "revision": 1, "text": "a late dream of trains"}]})
    s.wait_for(lambda m: m.get("method") == "window/logMessage" and "records of one owner wait" in m["params"]["message"], timeout=10)
    assert s.result("index/status", {"owner": "me"})["pendingEmbeddings"] == 1
    totals = s.result("usage/daily", {"owner": "me"})
    assert totals["limits"]["dailyCallLimit"] == 3
    assert [(d["provider"], d["calls"], d["attempts"]) for d in totals["days"]] == [("openai", 3, 3)]
    assert totals["days"][0]["day"] == totals["today"]
    assert totals["days"][0]["inputCharacters"] == sum(len(t) for t in TEXTS.values()) + 2 * len("train")
    assert s.result("usage/daily", {"owner": "me", "from": "2000-01-01", "to": "2000-01-02"})["days"] == []
    e = s.error("usage/daily", {"owner": "me", "from": "yesterday"})
    assert e["code"] == INVALID_PARAMS and "from" in e["message"]
    e = s.error("usage/daily", {"owner": "me", "day": "2026-01-01"})
    assert e["code"] == INVALID_PARAMS and "day" in e["message"]


def test_usage_survives_a_restart(remote, provider, db):
    s = remote("openai")
    upsert(s)
    assert s.shutdown_and_exit() == 0
    again = remote("openai")
    days = again.result("usage/daily", {"owner": "me"})["days"]
    assert days[0]["calls"] == 1


def test_key_never_in_status_or_initialize(remote, provider):
    s = remote("gemini")
    init = s.result("index/status", {})
    assert KEY not in json.dumps(init)


def test_pattern_work_waits_for_a_failing_provider_and_reports_usage(remote, provider):
    s = remote("openai", "embedder.maxRetries=0", "patterns.passageOccurrences=false")
    upsert(s)
    occ = [{"category": "action", "description": "missing a departing train", "excerpt": "missing the train"}]
    provider.down = True
    r = s.result("occurrences/put", {"owner": "me", "recordId": "train", "revision": 1, "occurrences": occ})
    assert r["vectors"] == "waiting" and "openai HTTP 503" in r["waiting"]["reason"]
    assert r["usage"][0]["attempts"] == 1
    refreshed = s.result("patterns/refresh", {"owner": "me"})
    assert refreshed["waitingForEmbedder"] == 1 and refreshed["groupsCreated"] == 0
    # Once the provider answers, the next refresh computes the waiting vector (and says what it cost).
    provider.down = False
    refreshed = s.result("patterns/refresh", {"owner": "me"})
    assert refreshed["waitingForEmbedder"] == 0 and refreshed["vectorsComputed"] == 1
    assert refreshed["usage"][0]["calls"] == 1
    assert KEY not in everything_said(s)


def test_queries_and_documents_are_sent_apart(remote, provider):
    s = remote("openai", "embedder.queryInputType=query", "embedder.documentInputType=passage",
               "embedder.queryPrefix=q: ", "embedder.documentPrefix=d: ")
    st = s.result("index/status", {"owner": "me"})
    assert st["indexVersion"] == f'test-embed-1@{DIM};document-type=passage;document-prefix="d: "'
    upsert(s)
    found = s.result("search/query", {"owner": "me", "text": "missing the train", "mode": "semantic", "limit": 1})
    assert [h["id"] for h in found["results"]] == ["train"]
    assert found["usage"][0]["inputCharacters"] == len("q: missing the train")
    (_, _, docs), (_, _, query) = provider.embedding_requests()
    assert docs["input_type"] == "passage" and docs["input"] == ["d: " + TEXTS[i] for i in TEXTS]
    assert query["input_type"] == "query" and query["input"] == ["q: missing the train"]
    # Occurrences are documents too.
    s.result("occurrences/put", {"owner": "me", "recordId": "train", "revision": 1,
                                 "occurrences": [{"category": "action", "description": "running for a train", "excerpt": "missing the train"}]})
    _, _, occ = provider.embedding_requests()[-1]
    assert occ["input_type"] == "passage" and occ["input"] == ["d: running for a train"]


def test_gemini_is_told_task_types(remote, provider):
    s = remote("gemini", "embedder.queryInputType=query", "embedder.documentInputType=document")
    assert s.result("index/status", {})["indexVersion"] == f"test-embed-1@{DIM};document-type=RETRIEVAL_DOCUMENT"
    upsert(s, ["garden"])
    s.result("search/query", {"owner": "me", "text": "basil", "mode": "semantic"})
    (_, _, docs), (_, _, query) = provider.embedding_requests()
    assert [r["taskType"] for r in docs["requests"]] == ["RETRIEVAL_DOCUMENT"]
    assert [r["taskType"] for r in query["requests"]] == ["RETRIEVAL_QUERY"]


def test_an_input_type_the_provider_cannot_send_names_the_field(remote, provider):
    s = remote("ollama", "embedder.documentInputType=passage")
    st = s.result("index/status", {})
    assert st["embedder"]["available"] is False
    assert st["embedder"]["problem"].startswith("embedder.documentInputType: the ollama provider cannot send an input type")
    r = s.result("search/query", {"owner": "me", "text": "anything"})
    assert r["mode"] == "keyword" and "embedder.documentInputType" in r["degraded"]["reason"]
    assert provider.embedding_requests() == []


def test_a_new_document_prefix_asks_for_a_rebuild_and_never_mixes_vectors(remote, provider, db):
    s = remote("openai")
    upsert(s)
    assert s.shutdown_and_exit() == 0
    calls = len(provider.embedding_requests())
    again = remote("openai", "embedder.documentPrefix=note: ")
    version = f'test-embed-1@{DIM};document-prefix="note: "'
    st = again.result("index/status", {"owner": "me"})
    assert st["indexVersion"] == version and st["pendingEmbeddings"] == 3 and st["indexed"] == 0
    assert [(v["indexVersion"], v["vectors"]) for v in st["vectorsByVersion"]] == [(f"test-embed-1@{DIM}", 3)]
    time.sleep(0.5)
    assert len(provider.embedding_requests()) == calls, "vectors of another version were re-embedded without index/rebuild"
    # Until the rebuild, the old vectors serve nothing: semantic search finds nothing, hybrid says why.
    assert again.result("search/query", {"owner": "me", "text": "garden basil", "mode": "semantic"})["results"] == []
    r = again.result("search/query", {"owner": "me", "text": "garden basil"})
    assert [h["id"] for h in r["results"]] == ["garden"] and "3 records wait for embedding" in r["degraded"]["reason"]
    calls = len(provider.embedding_requests())
    res = again.result("index/rebuild", {}, timeout=60)
    assert res["reembedded"] == 3 and res["deletedOtherVersions"] == 3 and res["indexVersion"] == version
    _, _, body = provider.embedding_requests()[calls]
    assert body["input"] == ["note: " + TEXTS[i] for i in TEXTS]
    st = again.result("index/status", {"owner": "me"})
    assert [(v["indexVersion"], v["vectors"]) for v in st["vectorsByVersion"]] == [(version, 3)] and st["pendingEmbeddings"] == 0
    found = again.result("search/query", {"owner": "me", "text": "garden basil", "mode": "semantic", "limit": 1})
    assert [h["id"] for h in found["results"]] == ["garden"]


@pytest.mark.parametrize("kind", ["openai", "gemini"])
def test_without_a_dimension_the_first_answer_fixes_it(kind, remote, provider):
    s = remote(kind, "embedder.maxRetries=0", dimension=None)
    st = s.result("index/status", {"owner": "me"})
    assert st["indexVersion"] == "test-embed-1@?" and st["dimension"] == 0
    # A client vector cannot be checked before the provider has said what size its vectors are.
    e = s.error("records/upsert", {"owner": "me", "records": [{"id": "v", "revision": 1, "text": "x", "vector": [1.0] * DIM}]})
    assert e["code"] == INVALID_PARAMS and "index.dimension" in e["message"]
    upsert(s)
    st = s.result("index/status", {"owner": "me"})
    assert st["indexVersion"] == f"test-embed-1@{DIM}" and st["dimension"] == DIM and st["vectors"] == 3
    if kind == "gemini":
        _, _, body = provider.embedding_requests()[0]
        assert "outputDimensionality" not in body["requests"][0], "an unset dimension was sent"
    found = s.result("search/query", {"owner": "me", "text": "missing the train", "mode": "semantic", "limit": 1})
    assert [h["id"] for h in found["results"]] == ["train"]
    s.result("records/upsert", {"owner": "me", "records": [{"id": "v", "revision": 1, "text": "x", "vector": [1.0] * DIM}]})
    # An answer of another size is refused, and nothing of it is stored.
    provider.script = ["wrongdim"]
    e = s.error("search/query", {"owner": "me", "text": "garden", "mode": "semantic"})
    assert e["code"] == EMBEDDER_UNAVAILABLE and f"dimension {DIM + 3}, the index has {DIM}" in e["message"]
    assert "first answer" in e["message"]
    assert s.shutdown_and_exit() == 0
    # The next start reads the size from the stored vectors, without asking the provider.
    calls = len(provider.embedding_requests())
    again = remote(kind, dimension=None)
    st = again.result("index/status", {"owner": "me"})
    assert st["indexVersion"] == f"test-embed-1@{DIM}" and st["indexed"] == 4
    assert len(provider.embedding_requests()) == calls
