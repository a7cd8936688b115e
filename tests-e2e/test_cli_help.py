"""Every command's `--help` against its golden file (tests-e2e/golden/help/), so a change to what a
person reads is a change to a reviewed file. KINDRED_UPDATE_GOLDEN=1 rewrites the files."""

import os
import pathlib

import pytest

from conftest import run_cli

GOLDEN = pathlib.Path(__file__).resolve().parent / "golden" / "help"
COMMANDS = [[], ["serve"], ["mcp"], ["lsp"], ["ingest"], ["records"], ["search"], ["status"], ["patterns"], ["patterns", "correct"],
            ["patterns", "label"], ["tombstones"], ["embed"], ["node"], ["cluster"]]


def name(command):
    return "-".join(["kindred", *command]) + ".txt"


@pytest.mark.parametrize("command", COMMANDS, ids=name)
def test_help_matches_its_golden_file(command):
    p = run_cli(*command, "--help")
    assert p.returncode == 0 and p.stderr == "", p.stderr
    path = GOLDEN / name(command)
    if os.environ.get("KINDRED_UPDATE_GOLDEN") == "1":
        path.write_text(p.stdout, encoding="utf-8")
    assert path.exists(), f"no golden file {path.name}: run with KINDRED_UPDATE_GOLDEN=1 and review it"
    assert p.stdout == path.read_text(encoding="utf-8")
    # `kindred help COMMAND` is the same page.
    if len(command) == 1:
        assert run_cli("help", command[0]).stdout == p.stdout


def test_every_command_of_the_usage_has_a_golden_file():
    usage = run_cli("--help").stdout
    listed = [line.split()[0] for line in usage.split("COMMANDS:")[1].splitlines() if line.startswith("  ") and line.split()]
    assert set(listed) - {"help"} == {c[0] for c in COMMANDS if len(c) == 1}


@pytest.mark.parametrize("command", [c for c in COMMANDS if c], ids=name)
def test_help_states_the_exit_codes_of_the_readme(command):
    text = (GOLDEN / name(command)).read_text(encoding="utf-8")
    if command[0] in ("records", "patterns", "search", "ingest", "status", "tombstones"):
        assert "Exit" in text and "2 usage" in text, command
