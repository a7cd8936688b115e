"""The Python client (clients/python, installed into the venv by run.sh) against the real binary:
a method per RPC method, typed errors, progress callbacks, cancellation and a clean shutdown."""

import pathlib
import re
import threading

import pytest

from conftest import BIN, vec

kindred_client = pytest.importorskip("kindred_client", reason="install it with: pip install clients/python (tests-e2e/run.sh does)")
from kindred_client import (  # noqa: E402
    BY_CODE, METHODS, Client, ConstraintConflict, EmbedderUnavailable, InvalidParams, KindredError, LimitExceeded,
    NotFound, RequestCancelled, RevisionConflict, ServerExited, StaleGroupVersion,
)


def start(db, *args):
    return Client.start(db=db, binary=BIN, args=args)


def test_installed_from_the_folder_with_a_method_per_rpc_method(db):
    assert kindred_client.__file__ and "site-packages" in kindred_client.__file__
    with start(db) as k:
        served = set(k.capabilities["methods"]) - {"initialize", "shutdown"}
        assert served == set(METHODS.values()), "a method of the server has no client method (or the other way round)"
        assert all(callable(getattr(k, name)) for name in METHODS)


def test_records_search_and_patterns_through_the_client(db):
    with start(db) as k:
        r = k.records_upsert(owner="me", wait_for_index=True, records=[
            {"id": "d1", "revision": 1, "kind": "dream", "date": "2024-01-02", "text": "I kept missing the train at the station."},
            {"id": "d2", "revision": 1, "kind": "dream", "date": "2024-01-09", "text": "The train left without me again."},
            {"id": "d3", "revision": 1, "kind": "dream", "date": "2024-01-20", "text": "Once more I missed my train."},
            {"id": "n1", "revision": 1, "kind": "note", "text": "Buy bread and milk."}])
        assert r["indexed"] is True and [x["status"] for x in r["results"]] == ["created"] * 4
        hits = k.search_query(owner="me", text="the dream where I missed a train", limit=3, filters={"kinds": ["dream"]})
        assert {h["id"] for h in hits["results"]} == {"d1", "d2", "d3"}
        assert k.records_get(owner="me", id="n1", passages=True)["passageList"][0]["text"] == "Buy bread and milk."
        for i in ("d1", "d2", "d3"):
            k.occurrences_put(owner="me", record_id=i, revision=1, occurrences=[
                {"category": "action", "description": "missing a train", "excerpt": "train"}])
        refresh = k.patterns_refresh(owner="me")
        assert refresh["recordsGrouped"] == 3
        findings = k.patterns_findings(owner="me", kinds=["dream"], evidence_limit=1)
        [f] = findings["findings"]
        assert (f["records"], f["eligible"], len(f["evidence"]), f["moreEvidence"]) == (3, 3, 1, 2)
        group = k.patterns_group(owner="me", group_id=f["groupId"])["group"]
        k.patterns_set_label(owner="me", group_id=f["groupId"], version=group["version"], label="trains")
        with pytest.raises(StaleGroupVersion) as e:
            k.patterns_set_label(owner="me", group_id=f["groupId"], version=group["version"] - 1, label="old")
        assert e.value.data["currentVersion"] == group["version"]


def test_each_error_code_is_its_own_exception(db):
    with start(db) as k:
        k.records_upsert(owner="me", records=[{"id": "a", "revision": 2, "text": "x", "vector": vec(1)}])
        with pytest.raises(InvalidParams) as e:
            k.search_query(owner="me", text="x", filter={"kinds": ["note"]})
        assert e.value.code == -32602 and e.value.field == "filter" and "filter" in str(e.value)
        with pytest.raises(NotFound) as nf:
            k.records_get(owner="me", id="nope")
        assert nf.value.data == {"what": "record", "id": "nope", "owner": "me"}
        with pytest.raises(LimitExceeded):
            k.search_query(owner="me", text="x", limit=100000)
        with pytest.raises(RevisionConflict):
            k.occurrences_put(owner="me", record_id="a", revision=1, occurrences=[])
        assert isinstance(nf.value, KindredError) and not isinstance(nf.value, InvalidParams)
    assert {c.code for c in (InvalidParams, NotFound, LimitExceeded, RevisionConflict, ConstraintConflict, StaleGroupVersion,
                              EmbedderUnavailable, RequestCancelled)} <= set(BY_CODE)
    with start(db, "--set", "embedder.provider=none") as k:
        with pytest.raises(EmbedderUnavailable) as e:
            k.index_rebuild()
        assert e.value.data["reason"] == "embedder.provider is none"


def test_the_error_classes_are_the_documented_codes():
    """One class per row of docs/methods.md's "Error codes" table (the table the server's one list
    of codes is checked against), named after the row: no code missing, none extra."""
    text = (pathlib.Path(__file__).parent.parent / "docs" / "methods.md").read_text()
    table = text.split("## Error codes", 1)[1].split("\n## ", 1)[0]
    documented = {int(m[1]): m[2] for m in re.finditer(r"^\| (-\d+) \| ([a-z ]+) \|", table, re.M)}
    assert len(documented) >= 15
    assert set(BY_CODE) == set(documented)
    for code, name in documented.items():
        assert BY_CODE[code].__name__ == "".join(w.capitalize() for w in name.split()), (code, name)


def test_progress_callbacks_cancellation_and_clean_shutdown(db):
    k = start(db)
    seen = []
    records = [{"id": f"r{i}", "revision": 1, "text": f"Entry number {i} about the sea and the harbour at dawn."} for i in range(300)]
    k.records_upsert(owner="me", records=records, wait_for_index=True)
    r = k.index_rebuild(on_progress=seen.append)
    assert r["reembedded"] == 300
    kinds = [v["kind"] for v in seen]
    assert kinds[0] == "begin" and kinds[-1] == "end" and "report" in kinds
    assert [v["percentage"] for v in seen if "percentage" in v] == sorted(v["percentage"] for v in seen if "percentage" in v)

    # A rebuild cancelled once it has started reports RequestCancelled; the server keeps serving.
    started = threading.Event()
    req = k.request("index/rebuild", on_progress=lambda v: started.set())
    assert started.wait(30)
    req.cancel()
    with pytest.raises(RequestCancelled):
        req.result(timeout=60)
    assert k.index_status(owner="me")["records"] == 300
    assert k.close() == 0
    with pytest.raises(ServerExited):
        k.index_status()


def test_a_judge_callable_answers_the_servers_questions(db):
    asked = []

    def judge(q):
        asked.append(q)
        if q["occurrence"]["recordId"] == "d3":
            raise RuntimeError("the model is unsure")
        return {"match": True, "sharedElement": "missing a train", "difference": "", "label": "missed trains"}

    base = vec(3)
    close = [[x + 0.001 * i for x in base] for i in range(3)]
    with Client.start(db=db, binary=BIN, args=["--set", "patterns.judge=client"], judge=judge) as k:
        k.records_upsert(owner="me", records=[{"id": f"d{i + 1}", "revision": 1, "text": f"missed the train {i}", "vector": v}
                                              for i, v in enumerate(close)])
        r = k.patterns_refresh(owner="me")
        assert asked and all(set(q) == {"owner", "occurrence", "group", "notes", "instruction"} for q in asked)
        # (The closest pair, d1 and d2, is asked about both ways, then d3 against their group.) The
        # exception went back as an error: the refresh says so and that occurrence waits.
        assert [q["occurrence"]["recordId"] for q in asked] == ["d1", "d2", "d3"]
        assert "RuntimeError: the model is unsure" in r["judgeProblem"] and r["waitingForJudge"] == 1
        group = k.patterns_findings(owner="me")["findings"]
        assert group and group[0]["label"] == "missed trains"


def test_a_missing_binary_says_how_to_point_the_client_at_one(tmp_path, monkeypatch):
    """The README's snippet died with a raw FileNotFoundError: 'kindred' when it was not on the PATH."""
    from kindred_client import BinaryNotFound

    monkeypatch.delenv("KINDRED_BIN", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(BinaryNotFound) as e:
        Client.start(db=tmp_path / "k.sqlite")
    message = str(e.value)
    assert "no program 'kindred' on the PATH" in message
    assert "binary='/path/to/kindred'" in message and "KINDRED_BIN=/path/to/kindred" in message and ".build/release/kindred" in message
    assert isinstance(e.value, FileNotFoundError)  # what callers caught before still catches it
    with pytest.raises(BinaryNotFound, match="no program '/nowhere/kindred' there"):
        Client.start(db=tmp_path / "k.sqlite", binary="/nowhere/kindred")
