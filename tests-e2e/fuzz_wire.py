"""A seeded, deterministic wire fuzzer for `kindred serve`, over the real binary and pipes.

For every method the server lists in `initialize` → `capabilities.methods`, it takes that method's
example params from docs/methods.md and docs/patterns.md, mutates them (wrong types, extra and
missing keys, huge numbers, NUL, deep nesting, long strings), or breaks the message itself (invalid
UTF-8, truncation, random bytes, bad LSP headers), and sends it. After every such message it sends a
known-good `records/get` and checks its answer. It asserts that the process never dies, that every
request with an id is answered exactly once, that each broken frame costs exactly one `id: null`
error, and that the known-good request always gets its correct answer.

Used by tests-e2e/test_fuzz.py (a few hundred messages) and bench/fuzz/run.sh (any count):
    python3 tests-e2e/fuzz_wire.py --count 100000 --framing both --seed 1
"""

import argparse
import collections
import json
import os
import pathlib
import queue
import random
import re
import subprocess
import sys
import tempfile
import threading
import time

REPO = pathlib.Path(__file__).resolve().parent.parent
BIN = os.environ.get("KINDRED_BIN", str(REPO / ".build" / "release" / "kindred"))
KNOWN_OWNER = "fuzz-known-owner"
KNOWN_ID = "known"
KNOWN_TEXT = "The known record: it must come back whole after every hostile message."
SKIP = {"shutdown"}  # sent once, at the end

LSP_BAD_HEADERS = [
    b"Content-Type: application/json\r\n\r\n",
    b"Content-Length: -5\r\n\r\n",
    b"Content-Length: twelve\r\n\r\n",
    b"Content-Length: 99999999999999999999999999\r\n\r\n",
    b"Content-Length: 10\r\nContent-Length: 12\r\n\r\n0123456789",
    b"Content-Length 10\r\n\r\n0123456789",
    b'{"jsonrpc":"2.0","id":"raw","method":"index/status"}\r\n',
    b"\x00\x01\x02\xff\xfe garbage \x7f\r\n",
    b"x" * 9000 + b"\r\n",
]
BAD_UTF8 = [b"\xff", b"\x80", b"\xc0\x80", b"\xe0\x80\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82", b"\xc3A"]
HUGE_NUMBERS = ["1e400", "-1e400", "12345678901234567890123", "-9223372036854775809", "9223372036854775808",
                "1e-400", "0.0000000000000000000000001", "-0", "1.0", "1E+3"]


# -- the params table, from the docs ------------------------------------------------------------

def _loads_doc_json(text, dim):
    text = re.sub(r"\[0\.01, …\]", json.dumps([0.01] * dim), text)
    text = text.replace("…", "")
    try:
        return json.loads(text)
    except ValueError:
        return None


def params_table(dim):
    """method → list of example params objects, from the method reference."""
    table = collections.defaultdict(list)
    blocks = re.findall(r"```json\n(.*?)```", (REPO / "docs" / "methods.md").read_text(), re.S)
    for b in blocks:
        v = _loads_doc_json(b, dim)
        if isinstance(v, dict) and isinstance(v.get("method"), str) and isinstance(v.get("params"), dict):
            table[v["method"]].append(v["params"])
    # docs/patterns.md gives params objects under a heading naming the method(s).
    text = (REPO / "docs" / "patterns.md").read_text()
    for section in re.split(r"\n(?=#+ )", text):
        heading = section.split("\n", 1)[0]
        names = re.findall(r"`([a-z]+/[A-Za-z]+)`", heading)
        if not names:
            continue
        candidates = re.findall(r"`(\{[^`]*\})`", section) + re.findall(r"```json\n(.*?)```", section, re.S)
        for c in candidates:
            v = _loads_doc_json(c, dim)
            if isinstance(v, dict):
                for n in names:
                    if not table[n]:
                        table[n].append(v)
                break
    return table


# -- mutation ----------------------------------------------------------------------------------

class Raw:
    """A JSON fragment written as is (numbers JSON allows but Python cannot hold exactly)."""
    counter = 0

    def __init__(self, text):
        Raw.counter += 1
        self.text = text
        self.token = f"__raw_{Raw.counter}__"


def dumps(obj):
    raws = []

    def walk(v):
        if isinstance(v, Raw):
            raws.append(v)
            return v.token
        if isinstance(v, dict):
            return {k: walk(x) for k, x in v.items()}
        if isinstance(v, list):
            return [walk(x) for x in v]
        return v

    text = json.dumps(walk(obj), separators=(",", ":"), ensure_ascii=False)
    for r in raws:
        text = text.replace(json.dumps(r.token), r.text)
    return text.encode("utf-8")


def random_value(rng, depth=0):
    kind = rng.randrange(10 if depth < 3 else 7)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice([0, -1, 1, 2**31, 2**63 - 1, -(2**63), 7])
    if kind == 3:
        return Raw(rng.choice(HUGE_NUMBERS))
    if kind == 4:
        return rng.choice(["", "x", "a\u0000b", "\u0000", "é東😀", "alice\u0000mallory", " ", "x" * rng.choice([10, 600, 20000])])
    if kind == 5:
        return rng.uniform(-1e6, 1e6)
    if kind == 6:
        return "\u202e" + "ｏｗｎｅｒ"
    if kind == 7:
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if kind == 8:
        return {rng.choice(["a", "owner", "id", "x\u0000", ""]): random_value(rng, depth + 1) for _ in range(rng.randrange(3))}
    return [[[]]]


def nested(depth):
    """`depth` nested arrays, as text (deeper than Python's own recursion allows)."""
    return Raw("[" * depth + "1" + "]" * depth)


def mutate_params(rng, params):
    """One structural mutation of a params object (still valid JSON and UTF-8)."""
    p = json.loads(json.dumps(params))
    keys = list(p.keys())
    op = rng.randrange(9)
    if op == 0 and keys:                       # wrong type for one key
        p[rng.choice(keys)] = random_value(rng)
    elif op == 1:                              # an extra key
        p[rng.choice(["filter", "kinds", "extra", "owner\u0000", "Owner", "__proto__", "workDoneToken"])] = random_value(rng)
    elif op == 2 and keys:                     # a missing key
        del p[rng.choice(keys)]
    elif op == 3 and keys:                     # a huge or odd number
        p[rng.choice(keys)] = Raw(rng.choice(HUGE_NUMBERS))
    elif op == 4 and keys:                     # NUL inside a string
        k = rng.choice(keys)
        p[k] = (p[k] if isinstance(p[k], str) else "v") + "\u0000tail"
    elif op == 5 and keys:                     # nesting the parser accepts
        p[rng.choice(keys)] = nested(rng.randrange(20, 400))
    elif op == 6 and keys:                     # mutate one level down
        k = rng.choice(keys)
        if isinstance(p[k], dict) and p[k]:
            p[k] = mutate_params(rng, p[k])
        elif isinstance(p[k], list) and p[k]:
            i = rng.randrange(len(p[k]))
            p[k][i] = mutate_params(rng, p[k][i]) if isinstance(p[k][i], dict) else random_value(rng)
        else:
            p[k] = random_value(rng)
    elif op == 7:                              # everything replaced
        p = {k: random_value(rng) for k in keys}
    else:                                      # the owner of another, look-alike owner
        p["owner"] = rng.choice(["alice\u0000", "ALICE", "alicе", KNOWN_OWNER + "\u0000x", KNOWN_OWNER.upper()])
    return p


# -- the server --------------------------------------------------------------------------------

class Peer:
    def __init__(self, framing, db, args=()):
        self.framing = framing
        self.proc = subprocess.Popen([BIN, "serve", "--db", str(db), "--framing", framing, *args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.q = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        out = self.proc.stdout
        try:
            while True:
                if self.framing == "ndjson":
                    line = out.readline()
                    if not line:
                        break
                    self.q.put(json.loads(line))
                    continue
                length = None
                while True:
                    h = out.readline()
                    if not h:
                        self.q.put(None)
                        return
                    if h in (b"\r\n", b"\n"):
                        break
                    name, _, value = h.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                self.q.put(json.loads(out.read(length)))
        except Exception as e:  # a frame the client could not read is a failure
            self.q.put(e)
        self.q.put(None)

    def frame(self, body):
        if self.framing == "ndjson":
            return body + b"\n"
        return b"Content-Length: %d\r\n\r\n" % len(body) + body

    def send(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def get(self, timeout):
        m = self.q.get(timeout=timeout)
        if m is None:
            raise AssertionError(f"the server closed its output (exit code {self.proc.poll()})")
        if isinstance(m, Exception):
            raise AssertionError(f"unreadable output: {m}")
        return m


class Fuzzer:
    def __init__(self, framing, seed, workdir, timeout=60):
        self.rng = random.Random(seed)
        self.framing = framing
        self.peer = Peer(framing, pathlib.Path(workdir) / f"fuzz-{framing}.sqlite", args=["--set", "embedder.provider=none"])
        self.timeout = timeout
        self.answers = collections.Counter()   # id key → answers seen
        self.expected_ids = set()
        self.counts = collections.Counter()    # sent, answered, codes
        self.seq = 0

    # Ids are unique per message, of several JSON types; the key keeps the type.
    def new_id(self):
        self.seq += 1
        kind = self.seq % 5
        if kind == 0:
            return f'"f-{self.seq}"', ("s", f"f-{self.seq}")
        if kind == 1:
            return str(self.seq), ("n", self.seq)
        if kind == 2:
            return f"{self.seq}.0", ("n", float(self.seq))
        if kind == 3:
            return f"{self.seq}00000000000000000000000", ("n", self.seq * 10**23)
        return f'"f-{self.seq}\\u0000é"', ("s", f"f-{self.seq}\u0000é")

    @staticmethod
    def key_of(m):
        i = m.get("id")
        if isinstance(i, str):
            return ("s", i)
        if isinstance(i, bool) or i is None:
            return None
        return ("n", i)

    def message(self, method, params, id_text):
        env = b'{"jsonrpc":"2.0",'
        if id_text is not None:
            env += b'"id":' + id_text.encode() + b","
        return env + b'"method":' + json.dumps(method).encode() + b',"params":' + dumps(params) + b"}"

    def collect(self, want_ids, nulls_expected):
        """Reads until every id in want_ids is answered; counts id-null errors on the way."""
        nulls = 0
        want = set(want_ids)
        good = None
        while want:
            m = self.peer.get(self.timeout)
            if isinstance(m, list):
                raise AssertionError(f"unexpected batch answer {m}")
            if "method" in m and "id" not in m:
                continue  # progress and log notifications
            if m.get("id") is None:
                nulls += 1
                self.count_answer(m)
                continue
            k = self.key_of(m)
            self.answers[k] += 1
            assert self.answers[k] == 1, f"{k} answered twice: {m}"
            assert k in self.expected_ids, f"answer to an id never sent: {m}"
            self.count_answer(m)
            if k == self.good_key:
                good = m
            want.discard(k)
        assert nulls == nulls_expected, f"{nulls} id-null errors, expected {nulls_expected}"
        return good

    def count_answer(self, m):
        self.counts["answered"] += 1
        self.counts["error " + str(m["error"]["code"]) if "error" in m else "result"] += 1

    def send_good(self):
        id_text, self.good_key = self.new_id()
        self.expected_ids.add(self.good_key)
        self.peer.send(self.peer.frame(self.message("records/get", {"owner": KNOWN_OWNER, "id": KNOWN_ID}, id_text)))
        self.counts["sent"] += 1
        return self.good_key

    def check_good(self, m):
        assert "result" in m, f"known-good request failed: {m}"
        assert m["result"]["record"]["text"] == KNOWN_TEXT and m["result"]["record"]["id"] == KNOWN_ID, m

    def setup(self):
        self.peer.send(self.peer.frame(b'{"jsonrpc":"2.0","id":"init","method":"initialize","params":{}}'))
        init = self.peer.get(self.timeout)
        assert init["id"] == "init" and "result" in init, init
        caps = init["result"]["capabilities"]
        self.methods = [m for m in caps["methods"] if m not in SKIP]
        self.table = params_table(caps["embedder"]["dimension"])
        upsert = {"owner": KNOWN_OWNER, "records": [{"id": KNOWN_ID, "revision": 1, "text": KNOWN_TEXT}]}
        self.peer.send(self.peer.frame(self.message("records/upsert", upsert, '"seed"')))
        r = self.peer.get(self.timeout)
        assert r.get("id") == "seed" and "result" in r, r
        self.counts["sent"] += 2
        self.counts["answered"] += 2

    def one_bad(self):
        """Sends one hostile message; returns (ids that must be answered, id-null errors expected)."""
        rng = self.rng
        method = rng.choice(self.methods)
        examples = self.table.get(method) or [{"owner": "fuzz"}]
        params = rng.choice(examples)
        kind = rng.randrange(100)
        self.counts["method " + method] += 1
        if kind < 50:                                  # structurally valid, bad params
            id_text, key = self.new_id()
            body = self.message(method, mutate_params(rng, params), id_text)
            self.expected_ids.add(key)
            self.peer.send(self.peer.frame(body))
            return [key], 0
        if kind < 55:                                  # a notification: never answered
            self.peer.send(self.peer.frame(self.message(method, mutate_params(rng, params), None)))
            return [], 0
        if kind < 62:                                  # valid as documented, odd id
            id_text, key = self.new_id()
            self.expected_ids.add(key)
            self.peer.send(self.peer.frame(self.message(method, params, id_text)))
            return [key], 0
        id_text, _ = self.new_id()
        body = self.message(method, params, id_text)
        if kind < 72:                                  # invalid UTF-8 inside a string
            bad = rng.choice(BAD_UTF8)
            cut = body.index(b'"method":"') + len(b'"method":"') + 1
            body = body[:cut] + bad + body[cut:]
        elif kind < 80:                                # truncated
            body = body[: rng.randrange(1, len(body) - 1)]
        elif kind < 86:                                # nesting past the parser's bound
            body = self.message(method, {"owner": nested(rng.choice([513, 600, 5000]))}, id_text)
        elif kind < 92:                                # random bytes
            body = b"@" + bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200))).replace(b"\n", b" ").replace(b"\r", b" ")
        else:                                          # framing: a bad LSP header, or a junk line
            if self.framing == "lsp":
                self.peer.send(rng.choice(LSP_BAD_HEADERS) + b"\r\n")
            else:
                self.peer.send(b"Content-Length: 12\r\n")
            return [], 1
        self.peer.send(self.peer.frame(body))
        return [], 1

    def run(self, count):
        self.setup()
        pairs = count // 2
        for _ in range(pairs):
            ids, nulls = self.one_bad()
            self.counts["sent"] += 1
            good = self.send_good()
            m = self.collect(ids + [good], nulls)
            self.check_good(m)
            assert self.peer.proc.poll() is None, "the server died"
        # Shutdown last: every id answered exactly once, then a clean exit.
        self.peer.send(self.peer.frame(b'{"jsonrpc":"2.0","id":"bye","method":"shutdown"}'))
        r = self.peer.get(self.timeout)
        assert r.get("id") == "bye" and r.get("result", 1) is None, r
        self.peer.send(self.peer.frame(b'{"jsonrpc":"2.0","method":"exit"}'))
        self.peer.proc.stdin.close()
        code = self.peer.proc.wait(timeout=self.timeout)
        self.counts["sent"] += 2
        self.counts["answered"] += 1
        assert code == 0, f"exit code {code}"
        missing = self.expected_ids - set(self.answers)
        assert not missing, f"{len(missing)} requests never answered, e.g. {sorted(missing)[:3]}"
        return self.counts


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=1000, help="messages per framing (half hostile, half known-good)")
    ap.add_argument("--framing", choices=["ndjson", "lsp", "both"], default="both")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="print the counts as JSON")
    a = ap.parse_args()
    total = collections.Counter()
    crashes = 0
    t = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        for framing in (["ndjson", "lsp"] if a.framing == "both" else [a.framing]):
            try:
                total.update(Fuzzer(framing, a.seed, tmp).run(a.count))
            except AssertionError as e:
                crashes += 1
                print(f"{framing}: FAILED: {e}", file=sys.stderr)
    total["crashes or failures"] = crashes
    total["seconds"] = round(time.monotonic() - t, 1)
    if a.json:
        print(json.dumps(dict(total), indent=1, sort_keys=True))
    else:
        for k in sorted(total):
            print(f"{k:32} {total[k]}")
    sys.exit(1 if crashes else 0)


if __name__ == "__main__":
    main()
