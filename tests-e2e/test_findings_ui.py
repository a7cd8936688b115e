"""What a screen shows: findings scoped by kind and paged, the refresh summary, `kindred status`,
progress bars that count right, and a record's passages."""

import json
import os

from conftest import INVALID_PARAMS, LIMIT_EXCEEDED, run_cli

TEACHER = [
    ("d1", "dream", "2024-04-03", "My strict teacher said I was late again."),
    ("d2", "dream", "2024-04-20", "The strict teacher stood at the door tapping her watch."),
    ("d3", "dream", "2024-05-11", "Late for the exam; the strict teacher wrote my name on the board."),
    ("d4", "dream", "2024-06-02", "A strict teacher scolded the class for being late."),
    ("n1", "note", "2024-06-03", "Parents' evening: the strict teacher was fair after all."),
    ("n2", "note", "2024-06-04", "Met the strict teacher at the bakery."),
]
TRAIN = [
    ("t1", "dream", "2024-03-01", "I kept missing the train at the station."),
    ("t2", "dream", "2024-03-09", "The train left without me while I ran on the platform."),
    ("t3", "dream", "2024-03-20", "Missed my train again and watched it go."),
]


def load(server, owner="me"):
    records = [{"id": i, "revision": 1, "kind": k, "date": d, "text": t} for i, k, d, t in TEACHER + TRAIN]
    assert server.result("records/upsert", {"owner": owner, "records": records, "waitForIndex": True})["indexed"] is True
    for i, _, _, t in TEACHER:
        server.result("occurrences/put", {"owner": owner, "recordId": i, "revision": 1, "occurrences": [
            {"category": "person", "description": "strict teacher", "excerpt": "strict teacher" if "strict teacher" in t else "teacher"}]})
    for i, _, _, t in TRAIN:
        server.result("occurrences/put", {"owner": owner, "recordId": i, "revision": 1, "occurrences": [
            {"category": "action", "description": "missing a train", "excerpt": "train"}]})
    return server.result("patterns/refresh", {"owner": owner})


def test_refresh_counts_add_up_and_say_what_they_count(server):
    r = load(server)
    assert r["occurrences"] == len(TEACHER) + len(TRAIN)
    assert r["occurrences"] == r["occurrencesInGroups"] + r["pending"]
    # Everything placed in this first refresh went into groups it created.
    assert r["placed"] == r["seeded"] == r["occurrencesInGroups"]
    # The teacher of the dreams and the teacher of the notes are two groups: records of two kinds
    # never share a group the engine makes.
    assert r["groupsCreated"] == r["activeGroups"] == 3
    assert r["recordsGrouped"] == len(TEACHER) + len(TRAIN)
    again = server.result("patterns/refresh", {"owner": "me"})
    assert (again["groupsCreated"], again["groupsChanged"], again["placed"], again["seeded"]) == (0, 0, 0, 0)
    assert again["recordsGrouped"] == r["recordsGrouped"] and again["occurrences"] == r["occurrences"]
    # A new record that joins an existing group: placed, not seeded; the distinct records grow by one.
    server.result("records/upsert", {"owner": "me", "waitForIndex": True, "records": [
        {"id": "t4", "revision": 1, "kind": "dream", "date": "2024-03-30", "text": "The train pulled out and I was still on the platform."}]})
    server.result("occurrences/put", {"owner": "me", "recordId": "t4", "revision": 1, "occurrences": [
        {"category": "action", "description": "missing a train", "excerpt": "train"}]})
    third = server.result("patterns/refresh", {"owner": "me"})
    assert (third["placed"], third["seeded"], third["groupsCreated"], third["groupsChanged"]) == (1, 0, 0, 1)
    assert third["recordsGrouped"] == r["recordsGrouped"] + 1 and third["occurrences"] == third["occurrencesInGroups"] + third["pending"]
    # Deleting a grouped record: counted again from the state (its groups changed outside a refresh).
    server.result("records/delete", {"owner": "me", "ids": ["d1"]})
    fourth = server.result("patterns/refresh", {"owner": "me"})
    assert fourth["recordsGrouped"] == r["recordsGrouped"] and fourth["occurrences"] == r["occurrences"]


def test_findings_by_kind_paged_with_evidence_limits(server):
    load(server)
    everything = server.result("patterns/findings", {"owner": "me"})
    assert everything["eligibleRecords"] == 9 and everything["total"] == 3 and "nextCursor" not in everything
    teacher = everything["findings"][0]
    assert teacher["records"] == 4 and teacher["moreEvidence"] == 0 and len(teacher["evidence"]) == 4
    assert [e["recordId"] for e in everything["findings"][2]["evidence"]] == ["n1", "n2"]

    dreams = server.result("patterns/findings", {"owner": "me", "kinds": ["dream"], "limit": 1, "evidenceLimit": 2})
    # The denominator counts dreams only, and so does each finding.
    assert dreams["eligibleRecords"] == 7 and dreams["total"] == 2
    [first] = dreams["findings"]
    assert first["records"] == 4 and first["eligible"] == 7
    assert first["summary"] == "4 of 7 eligible dream records in this period"
    assert [e["recordId"] for e in first["evidence"]] == ["d1", "d2"] and first["moreEvidence"] == 2
    nxt = server.result("patterns/findings", {"owner": "me", "kinds": ["dream"], "limit": 1, "cursor": dreams["nextCursor"]})
    assert "nextCursor" not in nxt
    assert [f["groupId"] for f in nxt["findings"]] != [first["groupId"]] and nxt["findings"][0]["records"] == 3
    notes = server.result("patterns/findings", {"owner": "me", "kinds": ["note"]})
    # Two notes: the teacher group is a related example among notes, the train group has none.
    assert notes["eligibleRecords"] == 2 and [(f["kind"], f["records"]) for f in notes["findings"]] == [("related", 2)]
    assert server.result("patterns/findings", {"owner": "me", "kinds": ["voice"]})["eligibleRecords"] == 0

    for params, field, code in [({"kinds": []}, "kinds", INVALID_PARAMS), ({"kinds": "dream"}, "kinds", INVALID_PARAMS),
                                ({"limit": 0}, "limit", INVALID_PARAMS), ({"evidenceLimit": 1.5}, "evidenceLimit", INVALID_PARAMS),
                                ({"limit": 5000}, "limit", LIMIT_EXCEEDED), ({"cursor": "f-1"}, "cursor", INVALID_PARAMS),
                                ({"cursor": 3}, "cursor", INVALID_PARAMS), ({"kind": ["dream"]}, "kind", INVALID_PARAMS)]:
        e = server.error("patterns/findings", {"owner": "me", **params})
        assert (e["code"], e["data"]["field"]) == (code, field), (params, e)


def test_cli_findings_are_short_by_default_and_status_is_for_people(server, db):
    load(server)
    server.close()
    p = run_cli("patterns", "findings", "--db", db, "--owner", "me", "--kind", "dream", "--limit", "1")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == "2 findings over 7 eligible records, the first 1 shown"
    assert "  4 of 7 eligible dream records" in lines and "in this period" not in p.stdout  # no period was asked
    assert lines[2].startswith("1. ") and "[group " in lines[2]
    assert sum(1 for line in lines if line.startswith("  - ")) == 3  # three evidence lines by default
    assert "  … and 1 more record (--evidence N or --all)" in lines
    assert lines[-1] == "… and 1 more finding (--limit N or --all)"
    full = run_cli("patterns", "findings", "--db", db, "--owner", "me", "--all")
    assert sum(1 for line in full.stdout.splitlines() if line.startswith("  - ")) == 9
    as_json = json.loads(run_cli("patterns", "findings", "--db", db, "--owner", "me", "--json").stdout)
    assert as_json["total"] == 3 and len(as_json["findings"][0]["evidence"]) == 4
    bad = run_cli("patterns", "findings", "--db", db, "--owner", "me", "--limit", "0")
    assert bad.returncode == 2 and "--limit: must be at least 1" in bad.stderr

    refresh = run_cli("patterns", "refresh", "--db", db, "--owner", "me")
    assert refresh.returncode == 0
    assert refresh.stdout.splitlines()[0].startswith("9 records grouped into 3 pattern groups (this refresh: 0 created, 0 changed")
    assert "9 occurrences: 9 in groups, 0 pending" in refresh.stdout
    assert "placed by this refresh: 0 occurrences that were in no group, 0 of them in groups it created" in refresh.stdout

    status = run_cli("status", "--db", db, "--owner", "me")
    assert status.returncode == 0
    assert status.stdout.splitlines()[0] == "owner me: 9 records, 9 searchable"
    assert "9 of 9 searchable records indexed, 0 waiting for the embedder; model all-MiniLM-L6-v2 (384-d)" in status.stdout
    assert "patterns: 3 active groups of 3, 9 occurrences" in status.stdout
    assert json.loads(run_cli("status", "--db", db, "--owner", "me", "--json").stdout)["records"] == 9


def test_ingest_bar_counts_the_lines_of_the_file(tmp_path):
    f = tmp_path / "six.jsonl"
    f.write_text("".join(json.dumps({"id": f"r{i}", "revision": 1, "text": f"line {i}"}) + "\n" for i in range(6)))
    p = run_cli("ingest", "--db", tmp_path / "x.sqlite", "--owner", "me", "--set", "embedder.provider=none", f,
                env={**os.environ, "KINDRED_PROGRESS": "1"})
    assert p.returncode == 0, p.stderr
    # (Text mode reads each "\r" redraw as a line of its own.)
    counts = [part.rsplit(" ", 1)[-1] for part in p.stderr.splitlines() if part.startswith("ingest [")]
    assert counts and counts[-1].strip() == "6/6" and all(c.strip().endswith("/6") for c in counts)


def test_records_get_lists_passages_with_offsets_and_vectors(spawn, db):
    s = spawn(args=["--set", "passages.maxChars=60"])
    s.initialize()
    text = "I walked to the old harbour at dawn. The fishing boats were already out."
    s.result("records/upsert", {"owner": "me", "waitForIndex": True, "records": [
        {"id": "long", "revision": 1, "text": text}, {"id": "short", "revision": 1, "text": "One small line."}]})
    plain = s.result("records/get", {"owner": "me", "id": "long"})
    assert plain["passages"] == 2 and "passageList" not in plain
    got = s.result("records/get", {"owner": "me", "id": "long", "passages": True})
    parts = got["passageList"]
    assert [p["index"] for p in parts] == [0, 1]
    assert all(text[p["start"]:p["end"]] == p["text"] for p in parts)  # ASCII: scalar offsets are str offsets
    assert [p["vector"] for p in parts] == [False, False]
    [one] = s.result("records/get", {"owner": "me", "id": "short", "passages": True})["passageList"]
    assert one == {"index": 0, "start": 0, "end": 15, "text": "One small line.", "vector": True}
    # A refresh makes the long record's passages pattern occurrences, with their own vectors.
    s.result("patterns/refresh", {"owner": "me"})
    assert [p["vector"] for p in s.result("records/get", {"owner": "me", "id": "long", "passages": True})["passageList"]] == [True, True]
    e = s.error("records/get", {"owner": "me", "id": "long", "passages": "yes"})
    assert (e["code"], e["data"]["field"]) == (INVALID_PARAMS, "passages")
