"""No silent wrong answers on the command line: a mistyped kind or owner is answered with the names
that exist, a blank query is a usage error, and findings read as a ranking (the bundled journal)."""

import pytest

from conftest import run_cli
from journal import OWNER

KINDS = "its kinds are dream (203 records), note (133 records)"


@pytest.mark.parametrize("kind", ["dreams", "Dream"])
@pytest.mark.parametrize("command", [["search", "train"], ["patterns", "findings"], ["patterns", "themes"]])
def test_an_unknown_kind_lists_the_kinds_there_are(journal_db, command, kind):
    """`--kind dreams` said "nothing matched" (search) or "Not enough history yet" (findings)."""
    p = run_cli(*command, "--db", journal_db, "--owner", OWNER, "--kind", kind)
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    assert f"--kind: owner '{OWNER}' has no records of kind '{kind}'; {KINDS}" in p.stderr
    assert p.stdout == ""


def test_one_unknown_kind_among_known_ones_is_named(journal_db):
    p = run_cli("patterns", "findings", "--db", journal_db, "--owner", OWNER, "--kind", "dream", "--kind", "notes")
    assert p.returncode == 2 and "of kind 'notes';" in p.stderr and "'dream'" not in p.stderr, p.stderr
    assert run_cli("patterns", "findings", "--db", journal_db, "--owner", OWNER, "--kind", "dream", "--kind", "note").returncode == 0


@pytest.mark.parametrize("command", [["search", "train"], ["patterns", "findings"], ["patterns", "themes"], ["patterns", "show", "1"],
                                     ["records", "get", "j-0001"], ["patterns", "correct", "undo", "1"],
                                     ["patterns", "label", "1", "trains"], ["patterns", "map"], ["patterns", "timeline"],
                                     ["status"]])
def test_an_owner_without_records_lists_the_owners_there_are(journal_db, command):
    """A wrong owner in findings said "0 findings over 0 eligible records. Not enough history yet"."""
    p = run_cli(*command, "--db", journal_db, "--owner", "Demo")
    assert p.returncode == 4, (p.returncode, p.stdout, p.stderr)
    assert f"owner 'Demo' has no records in {journal_db} (owners there: demo (336 records))" in p.stderr
    assert "Not enough history" not in p.stdout


@pytest.mark.parametrize("query", [[""], ["   "], ["", "\t"]])
def test_a_blank_query_is_a_usage_error(journal_db, query):
    """A blank query gave "2 results", the top one an empty record at score 1.0, exit 0."""
    p = run_cli("search", "--db", journal_db, "--owner", OWNER, *query)
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    assert "QUERY is empty" in p.stderr and p.stdout == ""


def test_findings_are_ranked_with_the_group_id_as_an_id(journal_db):
    """Findings were numbered by group id (#1, #10, #2, …), and said "in this period" with no period."""
    import json
    import re

    p = run_cli("patterns", "findings", "--db", journal_db, "--owner", OWNER, "--limit", "6")
    assert p.returncode == 0, p.stderr
    heads = [line for line in p.stdout.splitlines() if re.match(r"^\d+\. ", line)]
    assert [int(h.split(".")[0]) for h in heads] == [1, 2, 3, 4, 5, 6]
    ranked = json.loads(run_cli("patterns", "findings", "--db", journal_db, "--owner", OWNER, "--json").stdout)["findings"][:6]
    for head, f in zip(heads, ranked):
        assert f"[group {f['groupId']}, {f['kind']}/{f['category']}]" in head, (head, f)
    assert "in this period" not in p.stdout
    assert "eligible records" in p.stdout
    period = run_cli("patterns", "findings", "--db", journal_db, "--owner", OWNER, "--limit", "1", "--from", "2025-06-01")
    assert period.returncode == 0 and "eligible records in this period" in period.stdout


def test_themes_say_when_they_are_off_and_how_to_turn_them_on(journal_db):
    p = run_cli("patterns", "themes", "--db", journal_db, "--owner", OWNER)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("0 themes over 336 eligible records")
    assert "Themes are off (patterns.themes is false)" in p.stdout
    assert "--set patterns.themes=true" in p.stdout and "KINDRED_PATTERNS_THEMES=true" in p.stdout
    on = run_cli("patterns", "themes", "--db", journal_db, "--owner", OWNER, "--set", "patterns.themes=true")
    assert on.returncode == 0 and "Themes are off" not in on.stdout
