"""Reads the JSON examples of docs/*.md and replays them against the real server.

A file is read top to bottom as one session on a fresh database, the way a reader follows it. A
fenced block holding requests (messages with `method`) is sent; the next fenced block holding
responses (messages with `id` and no `method`, and `$/progress` notifications) is what the server
must answer. The answer must have the documented shape and values:

- objects have exactly the documented keys; `…` in an object stands for more keys;
- arrays have the documented elements; a `…` element stands for more of them (`[…]`: any array);
- values match exactly, except numbers with a fraction (scores, similarities: any number) and the
  keys named by `<!-- example-varies: key key -->` (the JSON type must still match), and strings
  holding `…`, which stands for any text;
- an error answers the documented `code`.

Every `json` block is run: a request, the response after it, or marked skipped with a reason.

Directives, as HTML comments on their own line before a block:

- `<!-- example-varies: durationMs createdAt -->` — before the first `##` heading, for the whole file;
  before a response block, for that block;
- `<!-- example: fresh [ARGS…] -->` — run the next request block (and its response) alone on a new
  server started with `kindred serve --db NEW ARGS…`;
- `<!-- example: same -->` — run the next request block on the server of the previous `fresh` one;
- `<!-- example: skip REASON -->` — the next block is not run (wire-level illustrations).

`python3 docs_examples.py capture docs/methods.md` prints each request and the server's answer, to
refresh an example after a deliberate change.
"""

import json
import re
import sys

ELLIPSIS = "…"
FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
DIRECTIVE = re.compile(r"^\s*<!--\s*(example(?:-varies)?):\s*(.*?)\s*-->\s*$")
VECTOR_DIM = 384


class Block:
    def __init__(self, path, line, lang, text, directives):
        self.path, self.line, self.lang, self.text = path, line, lang, text
        self.directives = directives  # [(name, argument)]
        self.messages = None  # parsed JSON values, or None when the block is not JSON

    def where(self):
        return f"{self.path}:{self.line}"

    def directive(self, name):
        return [arg for n, arg in self.directives if n == name]


class Doc:
    def __init__(self, path, blocks, varies):
        self.path, self.blocks, self.varies = path, blocks, varies


def read_doc(path):
    """The fenced blocks of a markdown file, with their directives and the file's varying keys."""
    lines = open(path, encoding="utf-8").read().split("\n")
    blocks, pending, varies = [], [], set()
    seen_heading = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("## "):
            seen_heading = True
        if line.startswith("#"):
            pending = []
        d = DIRECTIVE.match(line)
        if d:
            if d.group(1) == "example-varies" and not seen_heading:
                varies.update(d.group(2).split())
            else:
                pending.append((d.group(1), d.group(2)))
            i += 1
            continue
        f = FENCE.match(line)
        if f:
            start, lang, body = i + 1, f.group(2), []
            i += 1
            while i < len(lines) and not FENCE.match(lines[i]):
                body.append(lines[i])
                i += 1
            block = Block(path, start, lang, "\n".join(body), pending)
            pending = []
            if lang in ("json", ""):
                block.messages = parse_values(block.text)
                if lang == "json" and block.messages is None:
                    raise AssertionError(f"{block.where()}: a json block that is not JSON")
            blocks.append(block)
        i += 1
    return Doc(path, blocks, varies)


def expand_ellipses(text):
    """JSON text with `…` outside strings made parseable: `"…"` in arrays, `"…":"…"` in objects."""
    out, stack, in_str, esc = [], [], False, False
    for ch in text:
        if in_str:
            out.append(ch)
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
            continue
        if ch == '"':
            in_str = True
        elif ch in "[{":
            stack.append(ch)
        elif ch in "]}":
            if stack:
                stack.pop()
        elif ch == ELLIPSIS:
            out.append('"…":"…"' if stack and stack[-1] == "{" else '"…"')
            continue
        out.append(ch)
    return "".join(out)


def parse_values(text):
    """Every JSON value of `text`, in order (one or many, on one line or several), or None."""
    text = expand_ellipses(text)
    decoder, values, pos = json.JSONDecoder(), [], 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos == len(text):
            return values or None
        try:
            value, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError:
            return None
        values.append(value)


def flatten(messages):
    for m in messages:
        yield from (m if isinstance(m, list) else [m])


def is_request_block(block):
    return block.messages is not None and any(isinstance(m, dict) and "method" in m and m.get("method") != "$/progress"
                                              and m.get("method") != "window/logMessage" for m in flatten(block.messages))


def is_response_block(block):
    return block.messages is not None and not is_request_block(block) and any(
        isinstance(m, dict) and ("result" in m or "error" in m or m.get("method") == "$/progress") for m in flatten(block.messages))


def example_vector(request_text_vector):
    """The vector sent for a documented `[0.01, …]`: a fixed unit-length direction."""
    return [0.01 * ((k % 7) + 1) for k in range(VECTOR_DIM)]


def fill_vectors(value):
    """A request as sent: an elided number array (`[0.01, …]`) becomes a full vector."""
    if isinstance(value, dict):
        return {k: fill_vectors(v) for k, v in value.items()}
    if isinstance(value, list):
        if value and value[-1] == ELLIPSIS and all(isinstance(x, (int, float)) for x in value[:-1]) and len(value) > 1:
            return example_vector(value)
        return [fill_vectors(v) for v in value]
    return value


# -- comparison ---------------------------------------------------------------------------------

def kind_of(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def same_type(doc, actual):
    a, b = kind_of(doc), kind_of(actual)
    return a == b or (a == "number" and b == "integer")


def text_matches(doc, actual):
    parts = doc.split(ELLIPSIS)
    if not actual.startswith(parts[0]) or not actual.endswith(parts[-1]):
        return False
    pos = len(parts[0])
    for p in parts[1:-1]:
        found = actual.find(p, pos)
        if found < 0:
            return False
        pos = found + len(p)
    return pos <= len(actual) - len(parts[-1])


def compare(doc, actual, path, varies, problems, loose=False):
    """Appends to `problems` every way `actual` differs from the documented `doc`."""
    if doc == ELLIPSIS:
        return
    if not same_type(doc, actual):
        problems.append(f"{path}: documented {kind_of(doc)} {json.dumps(doc)[:60]}, got {kind_of(actual)} {json.dumps(actual)[:60]}")
        return
    if isinstance(doc, dict):
        listed = [k for k in doc if k != ELLIPSIS]
        missing = [k for k in listed if k not in actual]
        extra = [k for k in actual if k not in doc] if ELLIPSIS not in doc else []
        if missing:
            problems.append(f"{path}: documented keys missing from the answer: {missing}")
        if extra:
            problems.append(f"{path}: keys the documentation does not show: {extra}")
        for k in listed:
            if k in actual:
                compare(doc[k], actual[k], f"{path}.{k}", varies, problems, loose or k in varies)
    elif isinstance(doc, list):
        if ELLIPSIS in doc:
            head = doc[:doc.index(ELLIPSIS)]
            if len(actual) < len(head):
                problems.append(f"{path}: documented at least {len(head)} elements, got {len(actual)}")
            for i, d in enumerate(head[:len(actual)]):
                compare(d, actual[i], f"{path}[{i}]", varies, problems, loose)
        elif len(doc) != len(actual):
            problems.append(f"{path}: documented {len(doc)} elements, got {len(actual)}: {json.dumps(actual)[:200]}")
        else:
            for i, (d, a) in enumerate(zip(doc, actual)):
                compare(d, a, f"{path}[{i}]", varies, problems, loose)
    elif loose or isinstance(doc, float):
        return
    elif isinstance(doc, str) and ELLIPSIS in doc:
        if not text_matches(doc, actual):
            problems.append(f"{path}: documented {json.dumps(doc)}, got {json.dumps(actual)}")
    elif doc != actual:
        problems.append(f"{path}: documented {json.dumps(doc)}, got {json.dumps(actual)}")


# -- replay -------------------------------------------------------------------------------------

def steps(doc):
    """(request block, response block or None, fresh-server args or None) in file order; every
    response block must follow a request block or be skipped."""
    out, blocks, i = [], doc.blocks, 0
    while i < len(blocks):
        b = blocks[i]
        if b.directive("example") and b.directive("example")[0].startswith("skip"):
            i += 1
            continue
        if is_request_block(b):
            nxt = blocks[i + 1] if i + 1 < len(blocks) else None
            fresh = next((a for a in b.directive("example") if a.startswith("fresh") or a == "same"), None)
            args = None if fresh is None else "same" if fresh == "same" else fresh.split()[1:]
            if nxt is not None and is_response_block(nxt) and not (nxt.directive("example") and nxt.directive("example")[0].startswith("skip")):
                out.append((b, nxt, args))
                i += 2
            else:
                out.append((b, None, args))
                i += 1
            continue
        if is_response_block(b):
            raise AssertionError(f"{b.where()}: a response example with no request before it (add the request, or mark it `<!-- example: skip reason -->`)")
        if b.lang == "json":
            raise AssertionError(f"{b.where()}: a JSON example the test cannot run: write it as a JSON-RPC request (and the response "
                                 "after it), or mark it `<!-- example: skip reason -->`")
        i += 1
    return out


def run_step(server, request_block, response_block, varies, problems):
    """Sends the request block and compares the answers with the response block."""
    sent_ids, tokens = [], {}
    for m in request_block.messages:
        m = fill_vectors(m)
        server.send(m)
        for r in (m if isinstance(m, list) else [m]):
            if isinstance(r, dict) and "id" in r and "method" in r:
                sent_ids.append(r["id"])
                token = (r.get("params") or {}).get("workDoneToken") if isinstance(r.get("params"), dict) else None
                if token is not None:
                    tokens[r["id"]] = token
    if response_block is None:
        for id in sent_ids:
            server.response(id)
        return []
    block_varies = varies | set(" ".join(response_block.directive("example-varies")).split())
    answers = []
    for expected in response_block.messages:
        where = response_block.where()
        if isinstance(expected, list):
            ids = [e.get("id") for e in expected if isinstance(e, dict)]
            got = server.wait_for(lambda m: isinstance(m, list))
            answers.append(got)
            compare(expected, got, where, block_varies, problems)
            continue
        if expected.get("method") == "$/progress":
            p = expected["params"]
            got = server.wait_for(lambda m: isinstance(m, dict) and m.get("method") == "$/progress"
                                  and m["params"].get("token") == p["token"] and m["params"]["value"].get("kind") == p["value"]["kind"])
            answers.append(got)
            compare(expected, got, f"{where} ($/progress {p['value']['kind']})", block_varies, problems)
            continue
        got = server.response(expected["id"])
        answers.append(got)
        compare(expected, got, f"{where} (id {expected['id']})", block_varies, problems)
    return answers


def replay(doc, start_server, capture=False):
    """Replays `doc`; returns the problems found. `start_server(args)` gives an initialized server."""
    problems, main, side = [], None, None
    for req, resp, fresh in steps(doc):
        if fresh != "same" and side is not None:
            side.close()
            side = None
        if fresh == "same":
            assert side is not None, f"{req.where()}: `example: same` with no `example: fresh` step before it"
            server = side
        elif fresh is not None:
            side = server = start_server(fresh, initialize=not any(isinstance(m, dict) and m.get("method") == "initialize" for m in req.messages))
        else:
            if main is None:
                main = start_server([], initialize=True)
            server = main
        before = len(problems)
        answers = run_step(server, req, resp, doc.varies, problems)
        if capture:
            print(f"--- {req.where()}")
            for a in answers:
                print(json.dumps(a, ensure_ascii=False, separators=(",", ":")))
            for p in problems[before:]:
                print("  !", p)
    for s in (side, main):
        if s is not None:
            s.close()
    return problems


if __name__ == "__main__":
    import pathlib
    import tempfile

    sys.path.insert(0, str(pathlib.Path(__file__).parent))
    from conftest import Server

    assert sys.argv[1] == "capture"
    with tempfile.TemporaryDirectory() as tmp:
        n = [0]

        def start(args, initialize=True):
            n[0] += 1
            s = Server(pathlib.Path(tmp) / f"db{n[0]}.sqlite", tmp, args=args)
            if initialize:
                s.initialize()
            return s

        for path in sys.argv[2:]:
            found = replay(read_doc(path), start, capture=True)
            print(f"{path}: {len(found)} problems")
