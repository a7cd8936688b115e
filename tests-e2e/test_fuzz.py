"""The wire fuzzer (fuzz_wire.py), bounded for the suite: a few hundred seeded hostile messages per
framing, each followed by a known-good request. bench/fuzz/run.sh runs the same fuzzer for longer."""

import pytest

from fuzz_wire import Fuzzer, params_table

COUNT = 600  # messages per framing: half hostile, half known-good


@pytest.mark.parametrize("framing", ["ndjson", "lsp"])
def test_fuzz_every_method_over_both_framings(tmp_path, framing):
    f = Fuzzer(framing, seed=15, workdir=tmp_path)
    counts = f.run(COUNT)
    # Every method the server lists (but shutdown, sent last) got hostile messages.
    assert f.methods and all(counts["method " + m] > 0 for m in f.methods), counts
    assert counts["sent"] == COUNT + 4 and counts["result"] >= COUNT // 2
    assert counts["error -32700"] > 0 and counts["error -32602"] > 0


def test_docs_give_example_params_for_every_method(tmp_path):
    f = Fuzzer("ndjson", seed=0, workdir=tmp_path)
    f.setup()
    table = params_table(384)
    lacking = [m for m in f.methods if m not in table]
    f.peer.proc.kill()
    assert not lacking, f"docs/methods.md or docs/patterns.md has no example params for {lacking}"
