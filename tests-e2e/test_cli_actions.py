"""Every action a person takes, from the command line alone: read and delete records, dismiss, pin,
split, merge and undo with a note, label a group; `patterns show` says how each member got there.
On a private copy of the bundled journal."""

import json
import re

import pytest

import journal
from conftest import run_cli
from journal import OWNER


@pytest.fixture
def db(journal_db, tmp_path):
    return journal.copy(journal_db, tmp_path)


def cli(db, *args, code=0):
    p = run_cli(*args, "--db", db, "--owner", OWNER, timeout=120)
    assert p.returncode == code, (args, p.returncode, p.stdout, p.stderr)
    return p


def group(db, gid):
    return json.loads(cli(db, "patterns", "show", gid, "--json").stdout)


def members(db, gid):
    return {m["occurrenceId"]: m for m in group(db, gid)["group"]["members"]}


def biggest(db):
    findings = json.loads(cli(db, "patterns", "findings", "--json").stdout)["findings"]
    return findings[0]["groupId"]


def test_show_says_how_each_member_got_there_in_words(db):
    gid = biggest(db)
    shown = cli(db, "patterns", "show", gid).stdout
    assert "[automatic" not in shown
    words = {"combined": "came with a group combined into this one", "pinned": "pinned by a correction",
             "moved": "moved here by a correction"}
    for m in members(db, gid).values():
        how = f"{m['source']}, similarity {m['score'] / 10000:.2f}" if "score" in m else words[m["source"]]
        how = how.replace("judged,", "confirmed by the judge,")
        assert f"occurrence {m['occurrenceId']} ({how}) {m['recordId']} " in shown, shown


def test_dismiss_with_a_note_then_undo(db):
    gid = biggest(db)
    occ, m = sorted(members(db, gid).items())[-1]
    p = cli(db, "patterns", "correct", "dismiss", gid, occ, "--note", "not this one")
    first = p.stdout.splitlines()[0]
    cid = int(re.match(r"correction (\d+): ", first).group(1))
    assert first == f"correction {cid}: dismissed occurrence {occ} (record {m['recordId']}) from group {gid} (changed: group {gid})"
    assert f"kindred patterns correct undo {cid}" in p.stdout
    assert occ not in members(db, gid)
    shown = cli(db, "patterns", "show", gid).stdout
    assert f"correction {cid}: dismissed occurrence {occ} (record {m['recordId']}) from group {gid} — note: \"not this one\"" in shown
    cli(db, "patterns", "refresh")
    assert occ not in members(db, gid), "every later refresh keeps the dismissal"

    p = cli(db, "patterns", "correct", "undo", cid)
    assert p.stdout.startswith(f"correction {cid} undone")
    assert f"correction {cid}: dismissed occurrence {occ} (record {m['recordId']}) from group {gid} (undone) — note:" in cli(db, "patterns", "show", gid).stdout
    again = cli(db, "patterns", "correct", "undo", cid + 100, code=4)
    assert f"correction not found: {cid + 100}" in again.stderr


def test_split_merge_and_pin(db):
    gid = biggest(db)
    occs = sorted(members(db, gid))
    out = json.loads(cli(db, "patterns", "correct", "split", gid, occs[0], occs[1], "--json", "--note", "another situation").stdout)
    new = [g for g in out["affectedGroups"] if g != gid]
    assert len(new) == 1 and sorted(members(db, new[0])) == occs[:2]
    assert {m["source"] for m in members(db, new[0]).values()} == {"moved"}
    assert "(moved here by a correction)" in cli(db, "patterns", "show", new[0]).stdout
    # Putting back together what the split keeps apart is refused, and says why.
    refused = cli(db, "patterns", "correct", "merge", gid, new[0], code=1)
    assert "constraint conflict" in refused.stderr and "kept apart" in refused.stderr

    record = members(db, gid)[occs[2]]["recordId"]
    p = cli(db, "patterns", "correct", "pin", gid, occs[2])
    assert re.match(rf"correction \d+: pinned occurrence {occs[2]} \(record {record}\) in group {gid} ", p.stdout)
    split_line = [line for line in cli(db, "patterns", "show", gid).stdout.splitlines() if "split group" in line]
    moved = sorted(members(db, new[0])[o]["recordId"] for o in occs[:2])
    assert split_line == [f"  correction {out['correctionId']}: split group {gid}: moved out occurrence {occs[0]}, occurrence {occs[1]} "
                          f"(records {', '.join(moved)}) — note: \"another situation\""], split_line
    assert members(db, gid)[occs[2]]["source"] == "pinned"
    assert f"occurrence {occs[2]} (pinned by a correction)" in cli(db, "patterns", "show", gid).stdout


def test_correction_usage_errors(db):
    for args, words in [(["dismiss", "1"], "dismiss expects GROUP_ID OCCURRENCE_ID"), (["split", "1"], "split expects GROUP_ID"),
                        (["merge", "1", "x"], "'x' is not an id"), (["undo", "1", "--note", "n"], "--note is not taken by undo"),
                        (["frobnicate", "1"], "unknown correction kind 'frobnicate'"), ([], "expected a kind"),
                        (["exclude", "1"], "exclude expects GROUP_ID OCCURRENCE_ID")]:
        p = cli(db, "patterns", "correct", *args, code=2)
        assert words in p.stderr, (args, p.stderr)
    p = cli(db, "patterns", "correct", "dismiss", 999, 1, code=4)
    assert "group not found: 999" in p.stderr
    long_note = cli(db, "patterns", "correct", "dismiss", biggest(db), 1, "--note", "x" * 1001, code=2)
    assert "--note" in long_note.stderr


def test_label_and_clear(db):
    gid = biggest(db)
    p = cli(db, "patterns", "label", gid, "Missed", "trains", "--description", "every train that left without me")
    version = group(db, gid)["group"]["version"]
    assert p.stdout.strip() == f"group {gid} (version {version}) is now labelled \"Missed trains\""
    assert group(db, gid)["group"]["label"] == "Missed trains"
    assert f"1. Missed trains" in cli(db, "patterns", "findings", "--limit", "1").stdout
    out = json.loads(cli(db, "patterns", "label", gid, "--clear", "--json").stdout)
    assert out == {"ok": True, "groupId": gid, "version": version, "label": None}
    assert group(db, gid)["group"]["label"] is None
    assert "LABEL is required" in cli(db, "patterns", "label", gid, code=2).stderr
    assert "group not found: 999" in cli(db, "patterns", "label", 999, "x", code=4).stderr


def test_records_get_and_delete(db):
    p = cli(db, "records", "get", "j-0002")
    lines = p.stdout.splitlines()
    assert lines[0] == "j-0002 (revision 1; kind dream; 2025-01-04; tags travel)"
    assert lines[1] == "search: allowed, indexed; patterns: allowed"
    assert lines[-1].startswith("Dreamt I was at a station I didn't recognise")
    as_json = json.loads(cli(db, "records", "get", "j-0002", "--json", "--passages").stdout)
    assert as_json["record"]["id"] == "j-0002" and len(as_json["passageList"]) == as_json["passages"]

    p = cli(db, "records", "delete", "j-0002", "j-0003")
    assert p.stdout.strip() == "2 records deleted: j-0002, j-0003"
    gone = cli(db, "records", "get", "j-0002", code=4)
    assert "record not found: j-0002 (deleted at revision 1)" in gone.stderr
    p = cli(db, "records", "delete", "j-0004", "nope", code=4)
    assert p.stdout.strip() == "1 record deleted: j-0004" and "has no record 'nope'" in p.stderr
    hits = json.loads(cli(db, "search", "--mode", "keyword", "--json", "lighthouse", "--limit", "50").stdout)["results"]
    assert "j-0004" not in [h["id"] for h in hits]
    assert "get expects one ID" in cli(db, "records", "get", code=2).stderr
