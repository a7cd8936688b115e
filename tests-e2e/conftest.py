"""Shared helpers for the end-to-end suite: spawn the real `kindred` binary and talk to it over pipes.

The binary is taken from $KINDRED_BIN, or <repo>/.build/release/kindred when that is unset.
Every test gets its own temporary directory and SQLite file (pytest's `tmp_path`).
"""

import json
import os
import pathlib
import queue
import random
import subprocess
import threading
import time

import pytest

REPO = pathlib.Path(__file__).resolve().parent.parent
BIN = os.environ.get("KINDRED_BIN", str(REPO / ".build" / "release" / "kindred"))
DIM = 384
TIMEOUT = float(os.environ.get("KINDRED_E2E_TIMEOUT", "30"))


def _int8_by_default():
    """`embedder.precision` auto is int8 where the CPU has AVX-512 VNNI (with F and BW, as the kernels ask)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            flags = next(line for line in f if line.startswith("flags")).split()
    except (OSError, StopIteration):
        return False
    return {"avx512f", "avx512bw", "avx512_vnni"} <= set(flags)


# The local model's index version for a new database under the default settings.
LOCAL_VERSION = "all-MiniLM-L6-v2@384" + (";precision=int8" if _int8_by_default() else "")

# JSON-RPC codes (docs/methods.md).
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
NOT_INITIALIZED = -32002
REQUEST_CANCELLED = -32800
NOT_FOUND = -32001
LIMIT_EXCEEDED = -32040

_EOF = object()


def vec(seed, dim=DIM):
    """A deterministic vector of `dim` finite floats in [-1, 1]."""
    r = random.Random(seed)
    return [round(r.uniform(-1.0, 1.0), 5) for _ in range(dim)]


def near(v, seed, eps=0.01):
    """`v` nudged by a little deterministic noise: still closest to `v`."""
    r = random.Random(seed)
    return [round(x + r.uniform(-eps, eps), 5) for x in v]


def same_id(a, b):
    """JSON-RPC ids match only with the same JSON type: "1" is not 1, and 1 is not true."""
    return type(a) is type(b) and a == b


def encode(obj_or_text, framing, content_type=None):
    body = obj_or_text if isinstance(obj_or_text, (bytes, bytearray)) else (
        obj_or_text if isinstance(obj_or_text, str) else json.dumps(obj_or_text, separators=(",", ":"))
    )
    if isinstance(body, str):
        body = body.encode("utf-8")
    if framing == "ndjson":
        return bytes(body) + b"\n"
    headers = f"Content-Length: {len(body)}\r\n"
    if content_type:
        headers += f"Content-Type: {content_type}\r\n"
    return headers.encode("ascii") + b"\r\n" + bytes(body)


class Server:
    """One `kindred serve` process over pipes.

    `framing` is how this client frames what it sends and how it expects the answers to be framed
    (the server answers in the framing it detected or was told to use).
    """

    def __init__(self, db, tmp, framing="ndjson", args=(), env=None):
        self.db = pathlib.Path(db)
        self.framing = framing
        self.stderr_path = pathlib.Path(tmp) / f"stderr-{int(time.time() * 1e6)}.log"
        self._stderr = open(self.stderr_path, "wb")
        self.proc = subprocess.Popen(
            [BIN, "serve", "--db", str(self.db), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=env,
        )
        self.messages = queue.Queue()
        self.raw_frames = []  # (headers or None, body bytes) as read, for framing checks
        self.pending = []  # messages read while waiting for something else
        self.notifications = []
        self._next_id = 1
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()

    # -- reading ---------------------------------------------------------------------------

    def _read_loop(self):
        out = self.proc.stdout
        try:
            if self.framing == "ndjson":
                for line in out:
                    if not line.strip():
                        continue
                    self.raw_frames.append((None, line))
                    self.messages.put(json.loads(line))
            else:
                while True:
                    headers = []
                    while True:
                        line = out.readline()
                        if not line:
                            return
                        if line in (b"\r\n", b"\n"):
                            break
                        headers.append(line)
                    length = None
                    for h in headers:
                        name, _, value = h.decode("ascii").partition(":")
                        if name.strip().lower() == "content-length":
                            length = int(value.strip())
                    assert length is not None, f"no Content-Length in {headers!r}"
                    body = out.read(length)
                    self.raw_frames.append((headers, body))
                    self.messages.put(json.loads(body))
        except Exception as e:  # surfaced to the waiting test
            self.messages.put(e)
        finally:
            self.messages.put(_EOF)

    def next_message(self, timeout=TIMEOUT):
        """The next message in arrival order (responses and notifications alike)."""
        if self.pending:
            return self.pending.pop(0)
        try:
            m = self.messages.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no message within {timeout}s; stderr:\n{self.stderr()}") from None
        if m is _EOF:
            self.messages.put(_EOF)
            raise EOFError(f"server closed stdout; stderr:\n{self.stderr()}")
        if isinstance(m, Exception):
            raise m
        return m

    def wait_for(self, predicate, timeout=TIMEOUT):
        """The first message satisfying `predicate`; others are kept for later reads."""
        deadline = time.monotonic() + timeout
        skipped = []
        try:
            for i, m in enumerate(self.pending):
                if predicate(m):
                    del self.pending[i]
                    return m
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no matching message within {timeout}s; stderr:\n{self.stderr()}")
                try:
                    m = self.messages.get(timeout=left)
                except queue.Empty:
                    continue
                if m is _EOF:
                    self.messages.put(_EOF)
                    raise EOFError(f"server closed stdout; stderr:\n{self.stderr()}")
                if isinstance(m, Exception):
                    raise m
                if isinstance(m, dict) and "method" in m and "id" not in m:
                    self.notifications.append(m)
                if predicate(m):
                    return m
                skipped.append(m)
        finally:
            self.pending.extend(skipped)

    def response(self, id, timeout=TIMEOUT):
        return self.wait_for(lambda m: isinstance(m, dict) and "method" not in m and "id" in m and same_id(m["id"], id), timeout)

    # -- writing ---------------------------------------------------------------------------

    def send_raw(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, obj, content_type=None):
        self.send_raw(encode(obj, self.framing, content_type))

    def new_id(self):
        i = self._next_id
        self._next_id += 1
        return i

    def request_async(self, method, params=None, id=None):
        if id is None:
            id = self.new_id()
        msg = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return id

    def call(self, method, params=None, id=None, timeout=TIMEOUT):
        """Sends a request and returns the whole response object."""
        return self.response(self.request_async(method, params, id), timeout)

    def result(self, method, params=None, timeout=TIMEOUT):
        """Sends a request and returns its result, failing on an error response."""
        r = self.call(method, params, timeout=timeout)
        assert "error" not in r, f"{method} failed: {r['error']}"
        return r["result"]

    def error(self, method, params=None, timeout=TIMEOUT):
        """Sends a request that must fail and returns the error object."""
        r = self.call(method, params, timeout=timeout)
        assert "error" in r, f"{method} should have failed, got {r}"
        assert "result" not in r
        return r["error"]

    def notify(self, method, params=None):
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)

    def initialize(self):
        r = self.result("initialize", {"processId": os.getpid(), "clientInfo": {"name": "kindred-e2e"}, "capabilities": {}})
        self.notify("initialized", {})
        return r

    # -- ending ----------------------------------------------------------------------------

    def shutdown_and_exit(self, timeout=TIMEOUT):
        assert self.result("shutdown") is None
        self.notify("exit")
        self.proc.stdin.close()
        return self.proc.wait(timeout=timeout)

    def close(self, timeout=TIMEOUT):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
            except (BrokenPipeError, OSError):
                pass
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._stderr.close()
        return self.proc.returncode

    def stderr(self):
        try:
            return self.stderr_path.read_text(errors="replace")[-4000:]
        except OSError:
            return ""


@pytest.fixture(scope="session")
def journal_db(tmp_path_factory):
    """The bundled journal, ingested with the model and refreshed once per session (read-only: copy it to write)."""
    import journal

    return journal.build(tmp_path_factory.mktemp("journal"))


@pytest.fixture
def db(tmp_path):
    return tmp_path / "kindred.sqlite"


@pytest.fixture
def spawn(tmp_path, db):
    """spawn(framing="ndjson", args=(), db=None) → a started Server; all are stopped after the test."""
    servers = []

    def make(framing="ndjson", args=(), db_path=None):
        s = Server(db_path or db, tmp_path, framing=framing, args=args)
        servers.append(s)
        return s

    yield make
    for s in servers:
        if s.proc.poll() is None:
            s.proc.kill()
            s.proc.wait()
        s._stderr.close()


@pytest.fixture
def server(spawn):
    """An initialized ndjson server on a fresh database."""
    s = spawn()
    s.initialize()
    return s


def record(id, revision=1, text=None, vector_seed=None, **extra):
    r = {"id": id, "revision": revision, "text": text if text is not None else f"record {id}"}
    if vector_seed is not None:
        r["vector"] = vec(vector_seed)
    r.update(extra)
    return r


def run_cli(*args, timeout=TIMEOUT, **kw):
    return subprocess.run([BIN, *map(str, args)], capture_output=True, text=True, timeout=timeout, **kw)


def pytest_sessionstart(session):
    if not os.path.isfile(BIN) or not os.access(BIN, os.X_OK):
        raise pytest.UsageError(
            f"kindred binary not found at {BIN}: build it with `swift build -c release` or set KINDRED_BIN"
        )
