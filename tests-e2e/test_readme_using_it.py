"""The README's "Using it" block, run exactly as printed after scripts/setup.sh: in the repository's
place, with `.kindred/demo.sqlite` holding the bundled journal for owner `demo` (as setup loads it)
and `kindred` on the PATH. Searching, editing, deleting, correcting, undoing and labelling all from
the command line, with no JSON-RPC written by hand."""

import os
import re
import shutil
import subprocess

from conftest import BIN, REPO

README = REPO / "README.md"


def using_it_block():
    text = README.read_text(encoding="utf-8")
    section = text.split("## Using it", 1)[1]
    return re.search(r"```bash\n(.*?)```", section, re.S).group(1).splitlines()


def test_the_block_covers_every_action_without_json_rpc():
    block = "\n".join(using_it_block())
    assert "jsonrpc" not in block
    for action in ["kindred ingest", "kindred records get", "kindred records delete", "kindred patterns correct dismiss",
                   "kindred patterns correct undo", "kindred patterns label", "kindred search", "kindred patterns show"]:
        assert action in block, action


def test_the_using_it_block_runs_as_printed(journal_db, tmp_path):
    (tmp_path / ".kindred").mkdir()
    shutil.copyfile(journal_db, tmp_path / ".kindred" / "demo.sqlite")
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "kindred").symlink_to(BIN)
    lines = using_it_block()
    script = ["set -e -o pipefail"]
    for n, line in enumerate(lines):
        script += [line, f"echo '__ran__ {n}' >&2"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("KINDRED_") or k == "KINDRED_MODEL_DIR"}
    env["PATH"] = f"{bindir}:{env['PATH']}"
    p = subprocess.run(["bash", "-c", "\n".join(script)], cwd=tmp_path, env=env, stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=600)
    ran = [int(m) for m in re.findall(r"^__ran__ (\d+)$", p.stderr, re.M)]
    failed = lines[len(ran)] if len(ran) < len(lines) else None
    assert p.returncode == 0 and ran == list(range(len(lines))), (failed, p.returncode, p.stderr[-3000:])

    out = p.stdout
    assert "results for \"the dream where I kept missing a train\"" in out
    assert "j-0002 (revision 1; kind dream; 2025-01-04; tags travel)" in out
    assert "ingested stdin: 1 created" in out and "ingested stdin: 0 created, 1 updated" in out
    assert "1 record deleted: n-1" in out
    assert re.search(r"^1\. .*\[group \d+, recurring/passage\]$", out, re.M)
    assert re.search(r"occurrence 294 \(automatic, similarity 0\.\d\d\) j-0294 ", out), "show lists the member the README dismisses"
    assert "correction 1: dismissed occurrence 294 (record j-0294) from group 1 (changed: group 1)" in out
    assert "correction 1 undone" in out
    assert re.search(r'^group 1 \(version \d+\) is now labelled "Missed trains"$', out, re.M)
    assert "Themes are off" in out
    for picture in ["map.svg", "timeline.svg"]:
        assert (tmp_path / picture).read_text(encoding="utf-8").startswith("<?xml")
