"""A real third-party JSON-RPC client (python-lsp-jsonrpc) drives the server end to end.

python-lsp-jsonrpc frames with LSP headers including `Content-Type: application/vscode-jsonrpc;
charset=utf8`, uses UUID strings as ids, and (through ujson) escapes slashes in method names
(`"records\\/upsert"`): all of which the server must take in its stride.
"""

import concurrent.futures
import subprocess
import threading
import time

import pytest
from pylsp_jsonrpc.endpoint import Endpoint
from pylsp_jsonrpc.exceptions import JsonRpcException
from pylsp_jsonrpc.streams import JsonRpcStreamReader, JsonRpcStreamWriter

from conftest import BIN, DIM, INVALID_PARAMS, METHOD_NOT_FOUND, NOT_FOUND, TIMEOUT, near, vec


class Recorder(dict):
    """Dispatcher for server → client notifications: records every one."""

    def __init__(self):
        super().__init__()
        self.seen = []

    def __getitem__(self, method):
        return lambda params: self.seen.append((method, params))


class PylspClient:
    def __init__(self, db, tmp_path):
        self.stderr = open(tmp_path / "pylsp-stderr.log", "wb")
        self.proc = subprocess.Popen([BIN, "serve", "--db", str(db)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.stderr)
        self.dispatcher = Recorder()
        self.writer = JsonRpcStreamWriter(self.proc.stdin)
        self.reader = JsonRpcStreamReader(self.proc.stdout)
        self.endpoint = Endpoint(self.dispatcher, self.writer.write)
        self.stray = []  # error responses with id null: the server could not read a message
        handle = self.endpoint._handle_response

        def handle_response(msg_id, result=None, error=None):
            if msg_id is None:
                self.stray.append(error)
                return None
            future = self.endpoint._server_request_futures.get(msg_id)
            if future is not None and future.cancelled():  # the library cannot take an answer to a cancelled future
                self.endpoint._server_request_futures.pop(msg_id, None)
                return None
            return handle(msg_id, result, error)

        self.endpoint._handle_response = handle_response
        self.thread = threading.Thread(target=self.reader.listen, args=(self.endpoint.consume,), daemon=True)
        self.thread.start()

    def request(self, method, params=None, timeout=TIMEOUT):
        future = self.endpoint.request(method, params)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert not self.stray, f"the server could not read {method}: {self.stray}"
            try:
                return future.result(timeout=0.05)
            except concurrent.futures.TimeoutError:
                continue
        raise AssertionError(f"no answer to {method} within {timeout}s")

    def request_error(self, method, params=None, timeout=TIMEOUT):
        with pytest.raises(JsonRpcException) as exc:
            self.request(method, params, timeout)
        return exc.value

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.endpoint.shutdown()
        self.stderr.close()


@pytest.fixture
def client(db, tmp_path):
    c = PylspClient(db, tmp_path)
    yield c
    c.stop()


def test_full_session_through_python_lsp_jsonrpc(client):
    init = client.request("initialize", {"processId": None, "clientInfo": {"name": "pylsp-jsonrpc"}, "capabilities": {}})
    assert init["serverInfo"]["name"] == "kindred"
    assert isinstance(init["serverInfo"]["version"], str) and init["serverInfo"]["version"]
    caps = init["capabilities"]
    for m in ["records/upsert", "records/delete", "records/get", "records/setPermissions",
              "search/query", "search/similar", "index/status"]:
        assert m in caps["methods"], m
    assert caps["embedder"]["dimension"] == DIM
    client.endpoint.notify("initialized", {})

    owner = "alice"
    recs = [{"id": f"r{i}", "revision": 1, "text": f"note number {i}", "vector": vec(i)} for i in range(8)]
    res = client.request("records/upsert", {"owner": owner, "records": recs})
    assert [(r["id"], r["revision"], r["status"]) for r in res["results"]] == [(f"r{i}", 1, "created") for i in range(8)]

    res = client.request("records/upsert", {"owner": owner, "records": [
        {"id": "r0", "revision": 2, "text": "note number 0, edited", "vector": vec(100)},  # newer → updated
        {"id": "r1", "revision": 1, "text": "note number 1", "vector": vec(1)},           # same → unchanged
        {"id": "r2", "revision": 1, "text": "a different text", "vector": vec(2)},        # same revision, new text → conflict
        {"id": "r9", "revision": 1, "text": "brand new", "vector": vec(9)},               # → created
    ]})
    assert [(r["id"], r["status"]) for r in res["results"]] == [
        ("r0", "updated"), ("r1", "unchanged"), ("r2", "conflict"), ("r9", "created")]
    assert res["results"][0]["revision"] == 2

    res = client.request("records/upsert", {"owner": owner, "records": [
        {"id": "r0", "revision": 1, "text": "an old copy", "vector": vec(0)}]})  # older → stale
    assert res["results"] == [{"id": "r0", "revision": 2, "status": "stale"}]
    got = client.request("records/get", {"owner": owner, "id": "r0"})
    assert got["record"]["revision"] == 2 and got["record"]["text"] == "note number 0, edited"
    got = client.request("records/get", {"owner": owner, "id": "r2"})
    assert got["record"]["text"] == "note number 2", "a conflict must not overwrite the stored text"

    # The nearest vector comes first; r0's old vector was replaced by vec(100).
    for target in [3, 5, 9, 100]:
        res = client.request("search/query", {"owner": owner, "vector": near(vec(target), seed=target), "limit": 3})
        expected = "r0" if target == 100 else f"r{target}"
        assert res["results"][0]["id"] == expected, res
        assert len(res["results"]) == 3
        scores = [r["score"] for r in res["results"]]
        assert scores == sorted(scores, reverse=True)
    res = client.request("search/query", {"owner": owner, "vector": vec(0), "limit": 10})
    assert "r0" not in [r["id"] for r in res["results"][:1]]

    # Errors come back as JSON-RPC errors the client understands.
    e = client.request_error("records/get", {"owner": owner, "id": "nope"})
    assert e.code == NOT_FOUND
    e = client.request_error("no/such/method", {})
    assert e.code == METHOD_NOT_FOUND
    e = client.request_error("search/query", {"owner": owner, "vector": [0.5] * (DIM - 1)})
    assert e.code == INVALID_PARAMS and e.data["field"] == "vector"

    assert client.request("shutdown") is None
    client.endpoint.notify("exit")
    assert client.proc.wait(timeout=TIMEOUT) == 0
    assert not any(m == "window/logMessage" and p.get("type") == 1 for m, p in client.dispatcher.seen)


def test_exit_without_shutdown_exits_1(client):
    client.request("initialize", {"capabilities": {}})
    client.endpoint.notify("exit")
    assert client.proc.wait(timeout=TIMEOUT) == 1


def test_client_side_cancel_sends_escaped_cancel_request(client):
    """Future.cancel() in python-lsp-jsonrpc sends `$\\/cancelRequest` (escaped slash, UUID id);
    the server must still answer the cancelled request, with -32800."""
    client.request("initialize", {"capabilities": {}})
    owner = "o"
    seen = {}
    original = client.endpoint._handle_response

    def spy(msg_id, result=None, error=None):
        seen[msg_id] = (result, error)
        return original(msg_id, result, error)

    client.endpoint._handle_response = spy
    big = [{"id": f"b{i}", "revision": 1, "text": f"bulk {i}", "vector": vec(i)} for i in range(6000)]
    upsert = client.endpoint.request("records/upsert", {"owner": owner, "records": big})
    search = client.endpoint.request("search/query", {"owner": owner, "vector": vec(1)})
    search_id = next(k for k, f in client.endpoint._server_request_futures.items() if f is search)
    assert search.cancel()
    assert upsert.result(timeout=TIMEOUT)["results"][0]["status"] == "created"
    t0 = time.monotonic()
    while search_id not in seen and time.monotonic() - t0 < TIMEOUT:
        time.sleep(0.05)
    assert search_id in seen, "the cancelled request must still be answered"
    result, error = seen[search_id]
    assert error is not None and error["code"] == -32800, seen[search_id]
