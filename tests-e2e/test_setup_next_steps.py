"""The end of scripts/setup.sh (scripts/next-steps.sh): where the demo database is, the owner, and
three commands that work exactly as printed; `kindred` linked into a folder on the PATH, or a line
saying how when there is none it may write to."""

import os
import re
import subprocess

import journal
from conftest import BIN, REPO

SCRIPT = REPO / "scripts" / "next-steps.sh"


def run_next_steps(db, env):
    p = subprocess.run(["bash", str(SCRIPT), BIN, str(db), "demo"], env=env, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return p.stdout


def tries(stdout):
    after = stdout.split("Try:\n", 1)[1]
    commands = [line[2:] for line in after.splitlines() if line.startswith("  ")]
    assert len(commands) == 3, stdout
    return commands


def run_printed(commands, env, cwd):
    for c in commands:
        p = subprocess.run(["bash", "-c", c], env=env, cwd=cwd, capture_output=True, text=True, timeout=120)
        assert p.returncode == 0 and p.stdout.strip(), (c, p.returncode, p.stderr)


def test_setup_links_kindred_and_prints_three_commands_that_work(journal_db, tmp_path):
    db = journal.copy(journal_db, tmp_path)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    env = {**os.environ, "KINDRED_LINK_DIR": str(bindir), "PATH": f"{bindir}:{os.environ['PATH']}"}
    out = run_next_steps(db, env)
    assert f"kindred: {bindir}/kindred (a link to {os.path.abspath(BIN)})" in out
    assert os.path.realpath(bindir / "kindred") == os.path.realpath(BIN)
    assert f"demo database: {db} (the bundled journal, datasets/journal), owner demo" in out
    commands = tries(out)
    assert all(c.startswith("kindred ") for c in commands), commands
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run_printed(commands, env, elsewhere)  # from any folder: the database path is absolute


def test_without_a_folder_on_the_path_it_says_how(journal_db, tmp_path):
    db = journal.copy(journal_db, tmp_path)
    env = {**{k: v for k, v in os.environ.items() if k != "KINDRED_LINK_DIR"}, "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    out = run_next_steps(db, env)
    assert re.search(r"not on the PATH; to run it by name: sudo ln -sf \S+ /usr/local/bin/kindred", out), out
    commands = tries(out)
    assert all(c.startswith(os.path.abspath(BIN) + " ") for c in commands), commands
    run_printed(commands, env, tmp_path)


def test_setup_ends_with_the_next_steps():
    setup = (REPO / "scripts" / "setup.sh").read_text(encoding="utf-8").strip().splitlines()
    assert setup[-1] == 'bash scripts/next-steps.sh "$bin" "$db" demo'
