"""The openai judge (patterns.judge = openai) against a real OpenAI-compatible chat server: llama.cpp's
server from llama-cpp-python[server] with the Gemma 3 270M model (Q4_K_M GGUF, shipped in PyPI
packages), both in tests-e2e/.venv-llama (make-venv-llama.sh, which run.sh calls), on loopback.

This checks the wire, not the model: every question goes out as a chat completion asking for a JSON
object, every answer is either stored as a verdict (a later refresh does not ask it again) or named in
`judgeProblem` (a small model may well answer something that is not a valid answer), a too-short
`patterns.judgeTimeoutMs` is named and leaves the occurrences waiting, and while the judge is slow a
write and a search are answered. What the model decides is never asserted; bench/grouping/README.md
reports the quality it gives on the bundled journals.

A tap between Kindred and the server records each exchange as it passed (and can hold a request,
or replace an answer, to make the judge slow or wrong on cue)."""

import http.client
import http.server
import json
import pathlib
import socket
import subprocess
import threading
import time
import urllib.request

import pytest

from conftest import Server, near, vec

HERE = pathlib.Path(__file__).resolve().parent
VENV = HERE / ".venv-llama"
PYTHON = VENV / "bin" / "python"
MODEL = VENV / "models" / "gemma-3-270m-q4_k_m.gguf"
ALIAS = "gemma-3-270m"
# The longest a refresh of a few questions may take with the model on a busy machine.
REFRESH = 240

YES = json.dumps({"match": True, "sharedElement": "a train that left without me", "difference": "", "label": "missed train"})
# Short entries: a model that echoes its question (as Gemma 3 270M does) answers sooner.
TEXTS = {
    "d1": "I missed the train and watched it leave.",
    "d2": "The train left without me.",
    "d3": "A calm train ride by the sea.",
}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def llama(tmp_path_factory):
    """The chat server's base URL (…/v1); stopped after the module."""
    made = subprocess.run(["bash", str(HERE / "make-venv-llama.sh")], capture_output=True, text=True, timeout=2700)
    assert made.returncode == 0, made.stderr[-4000:]
    port = free_port()
    log_path = tmp_path_factory.mktemp("llama") / "server.log"
    log = open(log_path, "wb")
    proc = subprocess.Popen([str(PYTHON), "-m", "llama_cpp.server", "--model", str(MODEL), "--model_alias", ALIAS,
                             "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048"],
                            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            assert proc.poll() is None, f"the chat server exited with {proc.returncode}:\n{log_path.read_text(errors='replace')[-4000:]}"
            try:
                with urllib.request.urlopen(url + "/models", timeout=5) as r:
                    models = json.load(r)
                break
            except OSError:
                assert time.monotonic() < deadline, f"the chat server was not ready within 120 s:\n{log_path.read_text(errors='replace')[-4000:]}"
                time.sleep(0.5)
        assert [m["id"] for m in models["data"]] == [ALIAS]
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


class Exchange:
    def __init__(self, request):
        self.request = request  # the body Kindred sent, parsed
        self.status = None  # the chat server's status, None while it has not answered
        self.response = None  # its body, parsed (as passed on to Kindred)


class Tap:
    """A loopback HTTP server that passes each request on to the chat server and records the exchange.
    `hold`: an Event a request waits for before it is passed on. `answers`: by the index of the
    exchange, the message content the tap answers itself, without asking the chat server."""

    def __init__(self, upstream):
        self.upstream = upstream
        self.exchanges = []
        self.passed = []  # every exchange, taken or not
        self.lock = threading.Lock()
        self.arrived = threading.Event()
        self.hold = None
        self.answers = {}
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                ex = Exchange(json.loads(raw))
                with outer.lock:
                    index = len(outer.exchanges)
                    outer.exchanges.append(ex)
                    outer.passed.append(ex)
                outer.arrived.set()
                if outer.hold is not None:
                    outer.hold.wait(timeout=120)
                if index in outer.answers:
                    status, parsed = 200, {"object": "chat.completion", "model": ALIAS, "choices": [
                        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": outer.answers[index]}}]}
                    body = json.dumps(parsed).encode()
                else:
                    host, _, port = outer.upstream.removeprefix("http://").partition("/")[0].partition(":")
                    conn = http.client.HTTPConnection(host, int(port), timeout=300)
                    try:
                        conn.request("POST", "/v1" + self.path.removeprefix("/v1"), body=raw, headers={"Content-Type": "application/json"})
                        answer = conn.getresponse()
                        status, body = answer.status, answer.read()
                    finally:
                        conn.close()
                    parsed = json.loads(body)
                ex.response, ex.status = parsed, status
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:
                    pass  # Kindred gave up waiting

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def take(self):
        """The exchanges so far, and a fresh list for the next."""
        with self.lock:
            out, self.exchanges = self.exchanges, []
        self.arrived.clear()
        return out

    def settle(self, timeout=REFRESH):
        """Waits until the chat server has answered every request passed on (so it is idle)."""
        deadline = time.monotonic() + timeout
        while any(ex.status is None for ex in list(self.passed)):
            assert time.monotonic() < deadline, "the chat server did not answer a request in time"
            time.sleep(0.2)

    def close(self):
        if self.hold is not None:
            self.hold.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def tap(llama):
    t = Tap(llama)
    yield t
    t.settle()
    t.close()


@pytest.fixture
def judged(tmp_path, db):
    servers = []

    def make(url, *sets):
        # No retries: one exchange per question, so the tap's exchanges are the questions asked. The
        # model may take well over the default 30 s for one answer on a busy machine.
        args = ["--set", "patterns.judge=openai", "--set", f"patterns.judgeUrl={url}", "--set", f"patterns.judgeModel={ALIAS}",
                "--set", "embedder.maxRetries=0", "--set", f"patterns.judgeTimeoutMs={REFRESH * 1000 // 2}"]
        for s in sets:
            args += ["--set", s]
        s = Server(db, tmp_path, args=args)
        servers.append(s)
        s.initialize()
        return s

    yield make
    for s in servers:
        s.close()


def small_journal(s):
    """Three close entries about trains; d3 (a calm ride, nothing missed) the least close."""
    base = vec(7)
    s.result("records/upsert", {"owner": "me", "records": [
        {"id": rid, "revision": 1, "text": text, "vector": near(base, i, 0.05 if rid == "d3" else 0.01)}
        for i, (rid, text) in enumerate(TEXTS.items(), 1)]})


def refresh(s, **kw):
    return s.result("patterns/refresh", {"owner": "me"}, timeout=REFRESH, **kw)


def question_of(ex):
    """(occurrence, representative) of the question an exchange carried."""
    q = json.loads(ex.request["messages"][1]["content"])
    rep = q["group"]["representative"]
    return q["occurrence"]["id"], rep["recordId"], rep["excerpt"]


def problem_with(ex):
    """Why Kindred cannot use the chat server's answer (the wording Kindred names it with), or None
    for a valid answer: the message content must be a JSON object {match, sharedElement, difference,
    label} (docs/patterns.md)."""
    if ex.status != 200:
        return f"HTTP {ex.status}"
    content = ex.response["choices"][0]["message"]["content"]
    try:
        a = json.loads(content)
    except ValueError:
        return "choices[0].message.content is not JSON"
    if not isinstance(a, dict):
        return "choices[0].message.content is not a JSON object"
    for key in sorted(a):
        if key not in ("match", "sharedElement", "difference", "label"):
            return f"{key}: unknown field"
    if not isinstance(a.get("match"), bool):
        return "match: must be true or false"
    for key, most in (("sharedElement", 2000), ("difference", 2000), ("label", 200)):
        v = a.get(key)
        if v is None:
            continue
        if not isinstance(v, str):
            return f"{key}: must be a string"
        if len(v.encode()) > most:
            return f"{key}: at most {most} bytes"
    if a["match"] and not (a.get("sharedElement") or "").strip():
        return "sharedElement: a match must name the specific shared element"
    return None


def check_request(ex):
    """The question as a chat completion: the model, a JSON object asked for, temperature 0, the
    instruction and answer format as the system message, the question as JSON in the user message."""
    body = ex.request
    assert body["model"] == ALIAS and body["response_format"] == {"type": "json_object"} and body["temperature"] == 0
    system, user = body["messages"]
    assert system["role"] == "system" and "broad mood" in system["content"] and '"match": true or false' in system["content"]
    assert user["role"] == "user"
    q = json.loads(user["content"])
    assert set(q) == {"owner", "occurrence", "group", "notes"} and q["owner"] == "me"
    assert q["occurrence"]["recordId"] in TEXTS and q["occurrence"]["excerpt"] in TEXTS.values()


def check_outcome(r, exchanges):
    """Each answer of a refresh is either valid (and stored) or the refresh's last one, named in judgeProblem."""
    assert r["judge"] == "openai" and r["judgeAsked"] == len(exchanges) > 0
    for ex in exchanges:
        check_request(ex)
        # The chat server answered every question with a completion.
        assert ex.status == 200 and ex.response["choices"][0]["message"]["role"] == "assistant"
    problems = [problem_with(ex) for ex in exchanges]
    bad = [i for i, p in enumerate(problems) if p]
    if not bad:
        assert "judgeProblem" not in r, r["judgeProblem"]
    else:
        # After the first answer Kindred cannot use, the refresh asks nothing more and says why.
        assert bad == [len(exchanges) - 1], problems
        assert problems[-1] in r["judgeProblem"] and r["waitingForJudge"] >= 1
        if problems[-1].startswith("choices"):
            assert "openai-judge" in r["judgeProblem"]
    return {question_of(ex) for ex, p in zip(exchanges, problems) if p is None}


def test_every_answer_of_the_model_is_stored_or_named(tap, judged):
    s = judged(tap.url)
    small_journal(s)
    r = refresh(s)
    stored = check_outcome(r, tap.take())
    # A question answered validly is never asked again: its verdict is stored.
    again = refresh(s)
    exchanges = tap.take()
    assert not stored & {question_of(ex) for ex in exchanges}
    if "judgeProblem" not in r:
        assert again["judgeAsked"] == 0 and exchanges == [] and again["groupsChanged"] == 0 and again["groupsCreated"] == 0
    else:
        # The question the model answered badly waits and is asked again.
        assert again["judgeAsked"] >= 1
        check_outcome(again, exchanges)
    assert s.result("index/status", {"owner": "me"})["records"] == 3


def test_an_answer_spoiled_after_a_stored_verdict_is_named_and_the_verdict_kept(tap, judged):
    """The tap answers the first question itself with a yes (whatever the model says) and turns the
    model's second answer into prose: the yes is stored, the prose named, and the next refresh asks
    the second question again but never the first."""
    tap.answers = {0: YES, 1: "I think they match."}
    s = judged(tap.url)
    small_journal(s)
    r = refresh(s)
    exchanges = tap.take()
    assert len(exchanges) == 2 and r["judgeAsked"] == 2, "the refresh stopped before its second question"
    assert "openai-judge" in r["judgeProblem"] and "choices[0].message.content is not JSON" in r["judgeProblem"]
    assert r["waitingForJudge"] >= 1
    tap.answers = {}
    again = refresh(s)
    asked = tap.take()
    assert question_of(exchanges[1]) == question_of(asked[0])
    assert question_of(exchanges[0]) not in {question_of(ex) for ex in asked}
    check_outcome(again, asked)


def test_a_too_short_timeout_is_named_and_the_occurrences_wait(tap, judged):
    s = judged(tap.url, "patterns.judgeTimeoutMs=50")
    small_journal(s)
    r = refresh(s)
    assert r["judgeAsked"] == 1 and "openai-judge" in r["judgeProblem"] and "no answer within" in r["judgeProblem"]
    assert r["groupsCreated"] == 0 and r["pending"] == 3 and r["waitingForJudge"] >= 1
    assert s.result("patterns/findings", {"owner": "me"})["findings"] == []
    timed_out = question_of(tap.take()[0])
    s.close()
    # With time to answer, the next refresh asks the same question first (the tap answers yes to
    # all, while the chat server still works on the abandoned one) and groups.
    tap.answers = dict.fromkeys(range(10), YES)
    s = judged(tap.url)
    r = refresh(s)
    exchanges = tap.take()
    assert question_of(exchanges[0]) == timed_out
    assert "judgeProblem" not in r and r["groupsCreated"] == 1 and r["waitingForJudge"] == 0


def test_a_slow_judge_holds_up_no_write_or_search(tap, judged):
    tap.hold = threading.Event()
    s = judged(tap.url)
    small_journal(s)
    rid = s.request_async("patterns/refresh", {"owner": "me"})
    assert tap.arrived.wait(timeout=30), "the refresh asked the judge nothing"
    t = time.monotonic()
    other = s.result("records/upsert", {"owner": "me", "records": [
        {"id": "lunch", "revision": 1, "text": "an unrelated note about lunch", "vector": vec(99)}]}, timeout=10)
    assert other["results"][0]["status"] == "created"
    found = s.result("search/query", {"owner": "me", "text": "train", "mode": "keyword"}, timeout=10)
    assert {x["id"] for x in found["results"]} == set(TEXTS)
    assert time.monotonic() - t < 10
    assert not any(m.get("id") == rid for m in s.pending), "the refresh was answered before the judge"
    tap.hold.set()
    r = s.response(rid, timeout=REFRESH)["result"]
    check_outcome(r, tap.take())
    assert s.result("index/status", {"owner": "me"})["records"] == 4
