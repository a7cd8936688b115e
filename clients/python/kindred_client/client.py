"""A client that starts `kindred serve` and speaks JSON-RPC 2.0 to it over NDJSON (one message a line)."""

import itertools
import json
import os
import subprocess
import threading

from .errors import BinaryNotFound, RequestCancelled, ServerExited, from_response

CANCELLED = -32800


def _camel(name):
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


class Request:
    """A request in flight: wait for it with `result()`, or `cancel()` it."""

    def __init__(self, client, id, method):
        self._client, self.id, self.method = client, id, method
        self._done = threading.Event()
        self._response = None

    def _finish(self, response):
        self._response = response
        self._done.set()

    def done(self):
        return self._done.is_set()

    def cancel(self):
        """Sends `$/cancelRequest`; the request still ends, with `RequestCancelled` if it had not finished."""
        if not self._done.is_set():
            self._client.notify("$/cancelRequest", {"id": self.id})

    def result(self, timeout=None):
        """The result, or the server's error raised as its exception class (`InvalidParams`, `NotFound`, …)."""
        if not self._done.wait(timeout):
            raise TimeoutError(f"{self.method} (id {self.id}) not answered within {timeout} s")
        r = self._response
        if isinstance(r, Exception):
            raise r
        if "error" in r:
            raise from_response(r["error"], self.method)
        return r.get("result")


class Client:
    """One `kindred serve` child process.

    >>> with Client.start(db="journal.sqlite") as k:
    ...     k.records_upsert(owner="me", records=[{"id": "d1", "revision": 1, "text": "I missed the train."}], wait_for_index=True)
    ...     k.search_query(owner="me", text="missing a train")["results"][0]["id"]
    'd1'

    Every RPC method is a method here (`records/upsert` → `records_upsert`); keyword arguments are the
    method's params in snake case (`wait_for_index` → `waitForIndex`). `on_progress=callable` asks for
    `$/progress` and calls it with each `value` (`{"kind": "begin"|"report"|"end", ...}`). Errors come
    back as exceptions, one class per error code (`kindred_client.errors`).

    `judge=callable` lends the application's own model to the evidence judge (a server started with
    `patterns.judge=client`): the client declares `capabilities.judge` and answers each
    `patterns/judge` request with `judge(params)`, a dict `{"match", "sharedElement", "difference",
    "label"}` (docs/patterns.md), on a thread of its own; an exception becomes an error response.
    """

    def __init__(self, process, on_log=None, judge=None):
        self._proc = process
        self._write_lock = threading.Lock()
        self._lock = threading.Lock()
        self._pending = {}
        self._progress = {}
        self._ids = itertools.count(1)
        self._tokens = itertools.count(1)
        self._closed = False
        self.on_log = on_log
        self.judge = judge
        self.server_info = None
        self.capabilities = None
        self._reader = threading.Thread(target=self._read, name="kindred-client-reader", daemon=True)
        self._reader.start()

    @classmethod
    def start(cls, db, binary=None, args=(), env=None, on_log=None, stderr=None, initialize=True, client_name="kindred-python",
              judge=None):
        """Starts `kindred serve --db DB --framing ndjson ARGS…` and sends `initialize` / `initialized`.

        `binary` defaults to $KINDRED_BIN, else `kindred` on the PATH. The server's stderr (its own
        diagnostics) goes to `stderr` (a file object; inherited when None).
        """
        binary = binary or os.environ.get("KINDRED_BIN") or "kindred"
        try:
            proc = subprocess.Popen([binary, "serve", "--db", str(db), "--framing", "ndjson", *map(str, args)],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, env=env)
        except FileNotFoundError:
            raise BinaryNotFound(binary) from None
        client = cls(proc, on_log=on_log, judge=judge)
        if initialize:
            try:
                client.initialize(client_name=client_name)
            except BaseException:
                client.kill()
                raise
        return client

    # -- lifecycle ---------------------------------------------------------------------------

    def initialize(self, client_name="kindred-python"):
        capabilities = {"judge": True} if self.judge is not None else {}
        r = self.call("initialize", {"processId": os.getpid(), "clientInfo": {"name": client_name}, "capabilities": capabilities})
        self.server_info, self.capabilities = r.get("serverInfo"), r.get("capabilities")
        self.notify("initialized", {})
        return r

    def close(self, timeout=30):
        """`shutdown` (finishes accepted work), `exit`, then waits for the process; returns its exit code."""
        if self._closed:
            return self._proc.poll()
        self._closed = True
        try:
            if self._proc.poll() is None:
                self.call("shutdown", timeout=timeout)
                self.notify("exit")
        except (ServerExited, OSError, TimeoutError):
            pass
        try:
            self._proc.stdin.close()
        except OSError:
            pass
        try:
            return self._proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            return self._proc.wait()

    def kill(self):
        """Ends the process at once (pending requests raise `ServerExited`)."""
        self._closed = True
        self._proc.kill()
        self._proc.wait()

    @property
    def pid(self):
        return self._proc.pid

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- sending -----------------------------------------------------------------------------

    def _send(self, message):
        line = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
        with self._write_lock:
            try:
                self._proc.stdin.write(line)
                self._proc.stdin.flush()
            except (BrokenPipeError, ValueError, OSError) as e:
                raise ServerExited(f"kindred serve is not running (exit code {self._proc.poll()})") from e

    def notify(self, method, params=None):
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self._send(message)

    def request(self, method, params=None, on_progress=None):
        """Sends a request and returns it in flight (`Request.result()`, `Request.cancel()`)."""
        params = dict(params or {})
        id = next(self._ids)
        req = Request(self, id, method)
        with self._lock:
            if self._proc.poll() is not None and not self._reader.is_alive():
                raise ServerExited(f"kindred serve has exited (code {self._proc.poll()})")
            self._pending[id] = req
            if on_progress is not None:
                token = params.setdefault("workDoneToken", f"py-{next(self._tokens)}")
                self._progress[token] = on_progress
        message = {"jsonrpc": "2.0", "id": id, "method": method, "params": params}
        try:
            self._send(message)
        except ServerExited:
            with self._lock:
                self._pending.pop(id, None)
            raise
        return req

    def call(self, method, params=None, on_progress=None, timeout=None):
        """Sends a request and waits for its result."""
        req = self.request(method, params, on_progress)
        try:
            return req.result(timeout)
        finally:
            token = (params or {}).get("workDoneToken") if params else None
            if on_progress is not None:
                with self._lock:
                    for t, cb in list(self._progress.items()):
                        if cb is on_progress and (token is None or t == token):
                            del self._progress[t]

    # -- reading -----------------------------------------------------------------------------

    def _read(self):
        try:
            for line in self._proc.stdout:
                if not line.strip():
                    continue
                message = json.loads(line)
                for m in message if isinstance(message, list) else [message]:
                    self._dispatch(m)
        except Exception as e:  # a broken stream ends every waiting request
            self._fail_all(ServerExited(f"reading from kindred serve failed: {e}"))
            return
        self._fail_all(ServerExited(f"kindred serve closed its output (exit code {self._proc.poll()})"))

    def _dispatch(self, m):
        if "method" in m:
            if "id" in m:  # a request from the server
                if m["method"] == "patterns/judge" and self.judge is not None:
                    threading.Thread(target=self._answer_judge, args=(m,), name="kindred-client-judge", daemon=True).start()
                else:
                    self._send({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32601, "message": f"method not found: {m['method']}"}})
                return
            params = m.get("params") or {}
            if m["method"] == "$/progress":
                with self._lock:
                    cb = self._progress.get(params.get("token"))
                if cb is not None:
                    cb(params.get("value") or {})
            elif m["method"] == "window/logMessage" and self.on_log is not None:
                self.on_log(params.get("type"), params.get("message"))
            return
        with self._lock:
            req = self._pending.pop(m.get("id"), None) if isinstance(m.get("id"), int) else None
        if req is not None:
            req._finish(m)

    def _answer_judge(self, m):
        try:
            answer = {"jsonrpc": "2.0", "id": m["id"], "result": self.judge(m.get("params") or {})}
        except Exception as e:  # the server leaves the occurrence waiting and says why
            answer = {"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32603, "message": f"{type(e).__name__}: {e}"}}
        try:
            self._send(answer)
        except ServerExited:
            pass

    def _fail_all(self, error):
        with self._lock:
            pending, self._pending = self._pending, {}
        for req in pending.values():
            req._finish(error)


# One method per RPC method: Python name → method. Tests hold it to the methods the server answers
# (its routes, Sources/Service/Wire/Routes.swift): every method, each name the method's in snake case.
METHODS = {
    "records_upsert": "records/upsert",
    "records_delete": "records/delete",
    "records_get": "records/get",
    "records_set_permissions": "records/setPermissions",
    "records_purge_tombstones": "records/purgeTombstones",
    "search_query": "search/query",
    "search_similar": "search/similar",
    "index_status": "index/status",
    "index_rebuild": "index/rebuild",
    "occurrences_put": "occurrences/put",
    "patterns_refresh": "patterns/refresh",
    "patterns_rebuild": "patterns/rebuild",
    "patterns_findings": "patterns/findings",
    "patterns_group": "patterns/group",
    "patterns_themes": "patterns/themes",
    "patterns_correct": "patterns/correct",
    "patterns_corrections": "patterns/corrections",
    "patterns_undo_correction": "patterns/undoCorrection",
    "patterns_set_label": "patterns/setLabel",
    "patterns_map": "patterns/map",
    "patterns_timeline": "patterns/timeline",
    "usage_daily": "usage/daily",
}


def _method(name, rpc):
    def call(self, on_progress=None, timeout=None, **params):
        return self.call(rpc, {_camel(k): v for k, v in params.items()}, on_progress=on_progress, timeout=timeout)

    call.__name__ = name
    call.__doc__ = f"`{rpc}`: keyword arguments are its params in snake case (docs/methods.md, docs/patterns.md)."
    return call


for _name, _rpc in METHODS.items():
    setattr(Client, _name, _method(_name, _rpc))
