"""Corrections a person makes stick, over the real binary: a dismissed entry is not handed to the
next-best group on weaker evidence, and an excluded entry joins no group until the exclusion is
undone — through every refresh and a rebuild."""

import math

from conftest import DIM, run_cli

A, B = [1.0] + [0.0] * (DIM - 1), [0.0, 1.0] + [0.0] * (DIM - 2)


def mix(a, b, wa, wb, jitter=0.0, axis=5):
    v = [wa * x + wb * y for x, y in zip(a, b)]
    v[axis] += jitter
    n = math.sqrt(sum(x * x for x in v))
    return [round(x / n, 6) for x in v]


def records():
    """Two tight situations, A and B, and x: close to A (0.88) and loosely like B (0.47)."""
    out = []
    for i in range(3):
        out.append({"id": f"a{i}", "revision": 1, "text": f"situation a {i}", "vector": mix(A, B, 1, 0, 0.05 * (i + 1), axis=5 + i)})
        out.append({"id": f"b{i}", "revision": 1, "text": f"situation b {i}", "vector": mix(B, A, 1, 0, 0.05 * (i + 1), axis=9 + i)})
    out.append({"id": "x", "revision": 1, "text": "like a, a little like b", "vector": mix(A, B, 0.88, 0.47)})
    return out


def group_holding(s, record):
    for f in s.result("patterns/findings", {"owner": "me", "includeRelated": True, "evidenceLimit": 100})["findings"]:
        if record in {e["recordId"] for e in f["evidence"]}:
            return f["groupId"]
    return None


def member(s, gid, record):
    g = s.result("patterns/group", {"owner": "me", "groupId": gid})["group"]
    return next(m["occurrenceId"] for m in g["members"] if m["recordId"] == record)


def test_a_dismissed_entry_is_not_handed_to_the_next_best_group(spawn):
    s = spawn()
    s.initialize()
    s.result("records/upsert", {"owner": "me", "records": records()})
    s.result("patterns/refresh", {"owner": "me"})
    ga, gb = group_holding(s, "a0"), group_holding(s, "b0")
    assert ga is not None and gb is not None and ga != gb and group_holding(s, "x") == ga
    s.result("patterns/correct", {"owner": "me", "correction": {"kind": "dismiss", "groupId": ga, "occurrenceId": member(s, ga, "x")}})
    for _ in range(2):
        s.result("patterns/refresh", {"owner": "me"})
        assert group_holding(s, "x") is None, "the dismissed entry joined the next-best group at 0.47"
    # With a lower margin (a setting), the same evidence would place it in B: the margin is what keeps it out.
    assert s.shutdown_and_exit() == 0
    loose = spawn(args=["--set", "patterns.dismissedMargin=0"], db_path=s.db)
    loose.initialize()
    loose.result("patterns/rebuild", {"owner": "me"})
    assert group_holding(loose, "x") == gb


def test_an_excluded_entry_joins_no_group_until_the_exclusion_is_undone(spawn):
    s = spawn()
    s.initialize()
    s.result("records/upsert", {"owner": "me", "records": records()})
    s.result("patterns/refresh", {"owner": "me"})
    ga = group_holding(s, "x")
    c = s.result("patterns/correct", {"owner": "me", "correction": {"kind": "exclude", "groupId": ga, "occurrenceId": member(s, ga, "x"),
                                                                     "note": "not a pattern"}})
    assert ga in c["affectedGroups"] and group_holding(s, "x") is None
    listed = s.result("patterns/corrections", {"owner": "me"})["corrections"]
    assert [(k["kind"], k["note"]) for k in listed] == [("exclude", "not a pattern")]
    s.result("patterns/refresh", {"owner": "me"})
    s.result("patterns/rebuild", {"owner": "me"})
    assert group_holding(s, "x") is None and group_holding(s, "a0") is not None
    s.result("patterns/undoCorrection", {"owner": "me", "correctionId": c["correctionId"]})
    s.result("patterns/refresh", {"owner": "me"})
    assert group_holding(s, "x") == group_holding(s, "a0")


def test_exclude_from_the_command_line(tmp_path):
    import json
    db = tmp_path / "j.sqlite"
    lines = tmp_path / "r.jsonl"
    lines.write_text("\n".join(json.dumps(r) for r in records()) + "\n")
    assert run_cli("ingest", "--db", db, "--owner", "me", lines).returncode == 0
    assert run_cli("patterns", "refresh", "--db", db, "--owner", "me").returncode == 0
    show = json.loads(run_cli("patterns", "findings", "--db", db, "--owner", "me", "--all", "--json").stdout)
    ga = next(f["groupId"] for f in show["findings"] if "x" in {e["recordId"] for e in f["evidence"]})
    g = json.loads(run_cli("patterns", "show", "--db", db, "--owner", "me", str(ga), "--json").stdout)["group"]
    x = next(m["occurrenceId"] for m in g["members"] if m["recordId"] == "x")
    r = run_cli("patterns", "correct", "exclude", str(ga), str(x), "--db", db, "--owner", "me", "--note", "not a pattern")
    assert r.returncode == 0, r.stderr
    assert "excluded occurrence" in r.stdout and "(record x) from every group" in r.stdout
    shown = run_cli("patterns", "show", "--db", db, "--owner", "me", str(ga))
    assert "excluded occurrence" in shown.stdout and "not a pattern" in shown.stdout, shown.stdout
    assert run_cli("patterns", "refresh", "--db", db, "--owner", "me").returncode == 0
    after = json.loads(run_cli("patterns", "findings", "--db", db, "--owner", "me", "--all", "--json").stdout)
    assert not any("x" in {e["recordId"] for e in f["evidence"]} for f in after["findings"])
