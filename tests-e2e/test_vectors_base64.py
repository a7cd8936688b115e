"""Client vectors as base64 of little-endian float32 over the real binary: the same stored vector and
search results as the JSON array, refusal naming the field for every kind of bad string, nothing
written, and the Python client's helper."""

import base64
import math
import struct

import pytest

from conftest import BIN, DIM, INVALID_PARAMS, record, vec


def b64(values):
    return base64.b64encode(struct.pack("<%df" % len(values), *values)).decode("ascii")


def ids_and_scores(result):
    return [(r["id"], r["score"]) for r in result["results"]]


def test_base64_and_array_store_the_same_vector(server):
    recs = []
    for i in range(12):
        r = record(f"a{i}", vector_seed=i)
        if i % 2:
            r["vector"] = b64(r["vector"])
        recs.append(r)
    assert {r["status"] for r in server.result("records/upsert", {"owner": "o", "records": recs})["results"]} == {"created"}
    for i in range(12):
        got = server.result("records/get", {"owner": "o", "id": f"a{i}"})
        assert got["vector"] == "client" and got["indexed"], got
    # Each record is found first by its own vector, in either form, with the same scores both ways.
    for i in range(12):
        by_array = server.result("search/query", {"owner": "o", "vector": vec(i), "mode": "semantic", "limit": 3})
        by_b64 = server.result("search/query", {"owner": "o", "vector": b64(vec(i)), "mode": "semantic", "limit": 3})
        assert by_array["results"][0]["id"] == f"a{i}"
        assert ids_and_scores(by_array) == ids_and_scores(by_b64)
        assert abs(by_array["results"][0]["score"] - 1.0) < 1e-5


NAN = float("nan")


@pytest.mark.parametrize("text,reason", [
    (b64(vec(1)[:DIM - 1]), "must have 384 dimensions, got 383"),
    (b64(vec(1) + [0.5]), "must have 384 dimensions, got 385"),
    (base64.b64encode(b"\x00" * (DIM * 4 - 2)).decode(), "not a whole number of float32 values"),
    (b64(vec(1))[:-8] + "!!" + b64(vec(1))[-6:], "is not base64"),
    (b64(vec(1)).replace("A", "-", 1) if "A" in b64(vec(1)) else "-" + b64(vec(1))[1:], "is not base64"),
    (b64(vec(1)) + "A", "no base64 string is that long"),
    (b64(vec(1)[:7] + [NAN] + vec(1)[8:]), "value 7 (bytes 28–31) is NaN"),
    (b64([math.inf] + vec(1)[1:]), "value 0 (bytes 0–3) is infinite"),
    (b64([0.0] * DIM), "must not be all zeros"),
])
def test_bad_base64_names_the_field_and_writes_nothing(server, text, reason):
    recs = [record("good", vector_seed=1), record("ok2", vector_seed=2), record("ok3", vector_seed=3), dict(record("bad"), vector=text)]
    e = server.error("records/upsert", {"owner": "o", "records": recs})
    assert e["code"] == INVALID_PARAMS
    assert e["data"]["field"] == "records[3].vector", e
    assert reason in e["data"]["reason"], e
    assert "records[3].vector" in e["message"] and "nothing was written" in e["message"]
    assert server.result("index/status", {"owner": "o"})["records"] == 0
    # The server keeps serving, and the same records without the bad one are written.
    assert len(server.result("records/upsert", {"owner": "o", "records": recs[:3]})["results"]) == 3


def test_python_client_helper_round_trips(tmp_path):
    # tests-e2e/run.sh installs clients/python into the venv.
    from kindred_client import Client, InvalidParams, vector_base64, vector_from_base64
    v = vec(5)
    assert vector_from_base64(vector_base64(v)) == [struct.unpack("<f", struct.pack("<f", x))[0] for x in v]
    import array
    assert vector_base64(array.array("f", v)) == vector_base64(v) == b64(v)
    with Client.start(db=str(tmp_path / "c.sqlite"), binary=BIN) as k:
        k.records_upsert(owner="me", records=[{"id": "x", "revision": 1, "text": "t", "vector": vector_base64(v)}])
        assert k.search_query(owner="me", vector=vector_base64(v), mode="semantic")["results"][0]["id"] == "x"
        with pytest.raises(InvalidParams) as e:
            k.records_upsert(owner="me", records=[{"id": "y", "revision": 1, "text": "t", "vector": vector_base64(v[:10])}])
        assert e.value.field == "records[0].vector"
