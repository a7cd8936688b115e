"""`$/cancelRequest` overtakes queued work: the cancelled request is still answered, with -32800."""

import functools
import json

import pytest

from conftest import REQUEST_CANCELLED, vec

N = 10_000


@functools.lru_cache(maxsize=4)
def bulk_records(n):
    return json.dumps([{"id": f"bulk{i}", "revision": 1, "text": f"bulk record {i}", "vector": vec(i)} for i in range(n)],
                      separators=(",", ":"))


def big_upsert(owner, n=N, id=1):
    """A records/upsert of n records with vectors, as JSON text (built once per size)."""
    return ('{"jsonrpc":"2.0","id":%s,"method":"records/upsert","params":{"owner":%s,"records":%s}}'
            % (json.dumps(id), json.dumps(owner), bulk_records(n)))


@pytest.mark.parametrize("escaped", [False, True], ids=["plain", "escaped-slash"])
def test_cancel_search_queued_behind_large_write(server, escaped):
    server.send(big_upsert("o"))
    server.send({"jsonrpc": "2.0", "id": 99, "method": "search/query", "params": {"owner": "o", "vector": vec(5)}})
    if escaped:
        server.send_raw(b'{"jsonrpc":"2.0","method":"$\\/cancelRequest","params":{"id":99}}\n')
    else:
        server.notify("$/cancelRequest", {"id": 99})

    cancelled = server.response(99, timeout=120)
    assert "result" not in cancelled, f"search 99 ran although it was cancelled while queued: {cancelled}"
    assert cancelled["error"]["code"] == REQUEST_CANCELLED

    done = server.response(1, timeout=120)
    assert "error" not in done, done
    statuses = [r["status"] for r in done["result"]["results"]]
    assert len(statuses) == N and set(statuses) == {"created"}
    # The write really happened, and the server serves on.
    assert server.result("index/status", {"owner": "o"})["records"] == N
    res = server.result("search/query", {"owner": "o", "vector": vec(1234), "limit": 1})
    assert [r["id"] for r in res["results"]] == ["bulk1234"]


def test_cancel_matches_id_with_its_type(server):
    """Cancelling "99" cancels the request with the string id, not the one with the number 99."""
    server.send(big_upsert("o", n=6000))
    server.send({"jsonrpc": "2.0", "id": 99, "method": "search/query", "params": {"owner": "o", "vector": vec(5), "limit": 1}})
    server.send({"jsonrpc": "2.0", "id": "99", "method": "search/query", "params": {"owner": "o", "vector": vec(6), "limit": 1}})
    server.notify("$/cancelRequest", {"id": "99"})
    s = server.response("99", timeout=120)
    assert s["error"]["code"] == REQUEST_CANCELLED, s
    n = server.response(99, timeout=120)
    assert n["result"]["results"][0]["id"] == "bulk5", n
    assert "result" in server.response(1, timeout=120)


def test_cancel_of_unknown_or_finished_request_is_harmless(server):
    r = server.call("index/status", {})
    assert "result" in r
    server.notify("$/cancelRequest", {"id": r["id"]})
    server.notify("$/cancelRequest", {"id": "never-sent"})
    server.notify("$/cancelRequest", {})
    server.notify("$/cancelRequest")
    r2 = server.call("index/status", {})
    assert "result" in r2 and r2["id"] == r["id"] + 1


def test_cancel_in_a_batch(server):
    """A batch holding a write, a read queued behind it, and the cancel notification for that read."""
    up = big_upsert("o", n=6000, id="w")
    batch = [up,
             {"jsonrpc": "2.0", "id": "r", "method": "search/query", "params": {"owner": "o", "vector": vec(5)}},
             {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": "r"}}]
    server.send_raw(("[" + batch[0] + "," + ",".join(json.dumps(x) for x in batch[1:]) + "]\n").encode())
    m = server.next_message(timeout=120)
    assert isinstance(m, list) and [x["id"] for x in m] == ["w", "r"]
    assert "result" in m[0]
    assert m[1]["error"]["code"] == REQUEST_CANCELLED


def test_cancelled_refresh_stops_promptly_and_saves_nothing(server, db):
    """A refresh over 6000 records (passage occurrences for each, then the engine) is cancelled while it
    runs: it is answered -32800 well before a whole refresh would end, and writes nothing."""
    import sqlite3
    import time

    n = 6000
    server.send(big_upsert("o", n=n, id="up"))
    assert "result" in server.response("up", timeout=120)

    def occurrences():
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            return con.execute("SELECT count(*) FROM occurrences").fetchone()[0]
        finally:
            con.close()

    server.send({"jsonrpc": "2.0", "id": "rf", "method": "patterns/refresh", "params": {"owner": "o"}})
    time.sleep(0.3)
    cancelled_at = time.monotonic()
    server.notify("$/cancelRequest", {"id": "rf"})
    r = server.response("rf", timeout=120)
    latency = time.monotonic() - cancelled_at
    assert r.get("error", {}).get("code") == REQUEST_CANCELLED, r
    assert occurrences() == 0
    assert server.result("index/status", {"owner": "o"})["records"] == n

    started = time.monotonic()
    server.send({"jsonrpc": "2.0", "id": "rf2", "method": "patterns/refresh", "params": {"owner": "o"}})
    full = server.response("rf2", timeout=300)
    whole = time.monotonic() - started
    assert full["result"]["passageOccurrences"] == n, full
    assert occurrences() == n
    print(f"cancelled refresh answered {latency:.3f} s after the cancel; a whole refresh took {whole:.3f} s")
    assert latency < whole / 2, (latency, whole)
