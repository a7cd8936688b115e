"""`embedder.precision` is auto by default: int8 on a CPU with AVX-512 VNNI, float32 elsewhere. A
database written while float32 was the default (fixtures/float32-store.sqlite, written by
scripts/make-precision-fixture.py) keeps its index version and vectors when today's binary opens it
with the default settings: nothing is re-embedded and search answers exactly as it did then
(fixtures/float32-store.json). `index/rebuild` with the precision set moves it over."""

import json
import shutil

from conftest import REPO, Server

FIXTURES = REPO / "tests-e2e" / "fixtures"
RECORDS = 24
INT8 = "all-MiniLM-L6-v2@384;precision=int8"


def fixture(tmp_path):
    db = tmp_path / "float32-store.sqlite"
    shutil.copyfile(FIXTURES / "float32-store.sqlite", db)
    return db, json.loads((FIXTURES / "float32-store.json").read_text(encoding="utf-8"))


def hits(s, key):
    mode, text = key.split(": ", 1)
    r = s.result("search/query", {"owner": "me", "text": text, "mode": mode, "limit": 5})
    return [{"id": h["id"], "score": h["score"], "highlight": h.get("highlight")} for h in r["results"]]


def test_a_float32_database_answers_as_before_with_the_default(tmp_path):
    db, expected = fixture(tmp_path)
    for start in range(2):  # the second start reads the index from the codes file the first one saved
        s = Server(db, tmp_path)
        s.initialize()
        st = s.result("index/status", {"owner": "me"})
        assert st["indexVersion"] == expected["indexVersion"] == "all-MiniLM-L6-v2@384", st
        assert st["embedder"]["precision"] == "float32", st["embedder"]
        assert st["embedder"]["precisionReason"] in ("default: the database's vectors were made in float32",
                                                     "default: the CPU lacks AVX-512 VNNI"), st["embedder"]
        assert st["pendingEmbeddings"] == 0 and st["vectors"] == RECORDS and st["indexed"] == RECORDS, st
        for key, answer in expected["answers"].items():
            assert hits(s, key) == answer, key
        assert s.result("index/status", {"owner": "me"})["vectorsByVersion"] == expected["vectorsByVersion"]
        assert s.shutdown_and_exit() == 0


def test_index_rebuild_with_the_precision_set_moves_a_database_to_int8(tmp_path):
    db, expected = fixture(tmp_path)
    s = Server(db, tmp_path, args=["--set", "embedder.precision=int8"])
    s.initialize()
    st = s.result("index/status", {"owner": "me"})
    assert st["indexVersion"] == INT8 and st["embedder"]["precisionReason"] == "set in configuration", st
    rid = s.request_async("index/rebuild", {"workDoneToken": "rb"})
    done = s.response(rid, timeout=120)
    assert "error" not in done, done
    assert done["result"]["reembedded"] == RECORDS and done["result"]["indexVersion"] == INT8, done
    kinds = [n["params"]["value"]["kind"] for n in s.notifications if n["method"] == "$/progress" and n["params"]["token"] == "rb"]
    assert kinds[0] == "begin" and kinds[-1] == "end" and "report" in kinds, kinds
    assert s.shutdown_and_exit() == 0

    # Opened with the default afterwards, it stays int8 on any CPU.
    s = Server(db, tmp_path)
    s.initialize()
    st = s.result("index/status", {"owner": "me"})
    assert st["indexVersion"] == INT8 and st["embedder"]["precision"] == "int8", st
    assert st["embedder"]["precisionReason"] in ("default: the CPU has AVX-512 VNNI", "default: the database's vectors were made in int8")
    assert st["vectorsByVersion"] == [{"indexVersion": INT8, "source": "model", "vectors": RECORDS}], st
    assert st["pendingEmbeddings"] == 0 and st["indexed"] == RECORDS
    top = hits(s, next(iter(expected["answers"])))
    assert top[0]["id"] == expected["answers"][next(iter(expected["answers"]))][0]["id"]
    assert s.shutdown_and_exit() == 0
