"""Every method's answers to hostile params, held to a golden file (tests-e2e/golden/param-errors.jsonl).

The wire fuzzer's params mutations (fuzz_wire.py: wrong types, extra and missing keys, huge numbers,
NUL, deep nesting, look-alike owners), seeded, plus every documented example unchanged, are sent one
at a time to a fresh `kindred serve`. Each answer's error code, message and data (or only that it was
a result) must equal the golden file's, line by line: a change to how params are read (for example,
decoding them into the protocol types) keeps every error code, message and field path byte for byte.
A deliberate change: run with KINDRED_UPDATE_GOLDEN=1 and review the diff."""

import hashlib
import json
import os
import pathlib
import random

from fuzz_wire import Fuzzer, dumps, mutate_params

GOLDEN = pathlib.Path(__file__).resolve().parent / "golden" / "param-errors.jsonl"
MUTATIONS = 1500
SEED = 45


def corpus(methods, table):
    """(method, params) in a fixed order: each method's documented examples, then seeded mutations."""
    rng = random.Random(SEED)
    out = [(m, p) for m in methods for p in table.get(m, [])]
    for _ in range(MUTATIONS):
        method = rng.choice(methods)
        params = rng.choice(table.get(method) or [{"owner": "fuzz"}])
        out.append((method, mutate_params(rng, params)))
    return out


def answer_of(m):
    if "error" in m:
        e = m["error"]
        return {"code": e["code"], "message": e["message"], **({"data": e["data"]} if "data" in e else {})}
    return "result"


def test_every_params_error_is_as_the_golden_file_says(tmp_path):
    f = Fuzzer("ndjson", seed=SEED, workdir=tmp_path)
    f.setup()
    lines = []
    try:
        for i, (method, params) in enumerate(corpus(sorted(f.methods), f.table)):
            body = dumps(params)
            f.peer.send(f.peer.frame(f.message(method, params, str(i + 1))))
            while True:
                m = f.peer.get(f.timeout)
                if "id" in m:
                    break  # skips progress and log notifications
            assert m["id"] == i + 1, m
            lines.append({"n": i + 1, "method": method, "params": hashlib.sha256(body).hexdigest()[:16], "answer": answer_of(m)})
    finally:
        f.peer.proc.kill()
    text = "".join(json.dumps(l, ensure_ascii=False, sort_keys=True) + "\n" for l in lines)
    if os.environ.get("KINDRED_UPDATE_GOLDEN"):
        GOLDEN.write_text(text, encoding="utf-8")
    golden = GOLDEN.read_text(encoding="utf-8").splitlines()
    assert len(golden) == len(lines), f"{len(lines)} answers, the golden file has {len(golden)}"
    changed = [(want, got) for want, got in zip(golden, text.splitlines()) if want != got]
    assert not changed, f"{len(changed)} answers changed; the first:\n  golden: {changed[0][0]}\n  now:    {changed[0][1]}"
    # The corpus exercises refusals, not only results: most answers are errors that name a field.
    errors = [l for l in lines if l["answer"] != "result"]
    assert len(errors) > len(lines) // 2 and any("params." in e["answer"]["message"] or "data" in e["answer"] for e in errors)
