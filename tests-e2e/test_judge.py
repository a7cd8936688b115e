"""The evidence judge (patterns.judge = client) over the real binary and real pipes: the server asks
the client `patterns/judge` during a refresh or rebuild, and no automatic membership is made
without a yes."""

import json
import time

import journal
from conftest import REPO, Server, near, run_cli, vec

SITUATIONS = json.loads((REPO / "datasets" / "journal" / "situations.json").read_text())
MISSED_TRAIN = set(next(s for s in SITUATIONS["situations"] if s["id"] == "missed-train")["entries"])
# The key's dream distractor for the missed train: a calm ride on a train, nothing missed. (The
# waking notes that resemble it, such as a calm wait at a station, never join a group of dreams.)
CALM_RIDE = next(d["entry"] for d in SITUATIONS["distractors"]
                 if d["resembles"] == "missed-train" and d["why"].startswith("a dream of riding a train"))
MOODS = {}
for line in journal.RECORDS.read_text().splitlines():
    r = json.loads(line)
    MOODS[r["id"]] = r.get("metadata", {}).get("mood")

OCCURRENCE_KEYS = {"id", "recordId", "category", "description", "excerpt"}
ITEM_KEYS = {"recordId", "description", "excerpt"}


def judge_server(spawn, db=None, timeout_ms=None, capability=True):
    args = ["--set", "patterns.judge=client"]
    if timeout_ms is not None:
        args += ["--set", f"patterns.judgeTimeoutMs={timeout_ms}"]
    s = spawn(args=args, db_path=db)
    caps = {"judge": True} if capability else {}
    r = s.result("initialize", {"processId": None, "clientInfo": {"name": "judge-e2e"}, "capabilities": caps})
    s.notify("initialized", {})
    assert r["capabilities"]["judge"] == "client"
    return s


def judged_call(s, method, params, answer, timeout=300):
    """Sends `method` and answers every `patterns/judge` request with `answer(params)` (None: no
    answer at all) until the response arrives. Returns (response, questions asked)."""
    return answered_until(s, s.request_async(method, params), answer, timeout)


def answered_until(s, rid, answer, timeout=300):
    """Answers every `patterns/judge` request with `answer(params)` until the response to `rid`."""
    questions = []
    deadline = time.monotonic() + timeout
    while True:
        m = s.next_message(timeout=max(1, deadline - time.monotonic()))
        if m.get("method") == "patterns/judge" and "id" in m:
            assert isinstance(m["id"], str)
            questions.append(m["params"])
            a = answer(m["params"])
            if a is not None:
                s.send({"jsonrpc": "2.0", "id": m["id"], "result": a})
            continue
        if "method" not in m and m.get("id") == rid:
            return m, questions
        if "method" in m and "id" not in m:
            s.notifications.append(m)
            continue
        s.pending.append(m)


def check_shape(q, owner):
    assert set(q) == {"owner", "occurrence", "group", "notes", "instruction"}
    assert q["owner"] == owner
    assert set(q["occurrence"]) == OCCURRENCE_KEYS
    g = q["group"]
    assert {"id", "category", "label", "representative", "examples"} <= set(g) <= {"id", "version", "category", "label",
                                                                                   "representative", "examples"}
    assert set(g["representative"]) == ITEM_KEYS
    assert all(set(e) == ITEM_KEYS for e in g["examples"])
    assert g["category"] == q["occurrence"]["category"]
    assert "broad mood" in q["instruction"] and "unnamed people" in q["instruction"]


def group_of(s, owner, record_id):
    """The active group (id, its records) that holds `record_id`, or None."""
    f = s.result("patterns/findings", {"owner": owner, "evidenceLimit": 1000, "limit": 1000})
    for g in f["findings"]:
        recs = {e["recordId"] for e in g["evidence"]}
        if record_id in recs:
            return g["groupId"], recs
    return None


def missed_train_group(s):
    f = s.result("patterns/findings", {"owner": journal.OWNER, "evidenceLimit": 1000, "limit": 1000})
    best = max(f["findings"], key=lambda g: len({e["recordId"] for e in g["evidence"]} & MISSED_TRAIN))
    return best["groupId"], {e["recordId"] for e in best["evidence"]}, f


def key_answer(q):
    """Yes when the occurrence's entry and the representative's entry share a situation of the key."""
    a, b = q["occurrence"]["recordId"], q["group"]["representative"]["recordId"]
    match = any(a in s["entries"] and b in s["entries"] for s in SITUATIONS["situations"])
    return {"match": match, "sharedElement": "the same situation" if match else "", "difference": "" if match else "another situation"}


def test_a_judge_keeps_the_calm_train_ride_out_of_the_missed_trains_and_a_second_refresh_asks_nothing(
        spawn, tmp_path, journal_db):
    assert MOODS[CALM_RIDE] == "calm"
    db = journal.copy(journal_db, tmp_path)
    # Without a judge, similarity alone puts the calm train ride with the missed trains.
    plain = Server(db, tmp_path)
    plain.initialize()
    _, records, _ = missed_train_group(plain)
    assert CALM_RIDE in records and len(records & MISSED_TRAIN) >= 6
    plain.shutdown_and_exit()
    plain.close()

    s = judge_server(spawn, db=db)
    r, questions = judged_call(s, "patterns/rebuild", {"owner": journal.OWNER}, key_answer)
    assert "error" not in r, r
    res = r["result"]
    assert questions and res["judge"] == "client"
    assert res["judgeAsked"] == len(questions) and res["waitingForJudge"] == 0 and "judgeProblem" not in res
    for q in questions:
        check_shape(q, journal.OWNER)
    about_calm = [q for q in questions if CALM_RIDE in (q["occurrence"]["recordId"], q["group"]["representative"]["recordId"])]
    assert about_calm, "the judge was never asked about the calm train ride"

    gid, records, findings = missed_train_group(s)
    # The judge asked about the nearest candidates, so the missed trains are one whole group, without the calm ride.
    assert len(records & MISSED_TRAIN) >= len(MISSED_TRAIN) - 1 and CALM_RIDE not in records
    # Every member of every group got a yes: each grouped record was asked about or asked against.
    asked = {q["occurrence"]["recordId"] for q in questions} | {q["group"]["representative"]["recordId"] for q in questions}
    for g in findings["findings"]:
        assert {e["recordId"] for e in g["evidence"]} <= asked

    # A second refresh over the same state asks nothing and changes nothing.
    again, questions2 = judged_call(s, "patterns/refresh", {"owner": journal.OWNER}, key_answer)
    assert questions2 == []
    a = again["result"]
    assert a["judgeAsked"] == 0 and a["groupsCreated"] == 0 and a["groupsChanged"] == 0 and a["waitingForJudge"] == 0
    assert missed_train_group(s)[1] == records


def small_journal(s, owner="me"):
    base = vec(7)
    records = [{"id": f"t{i}", "revision": 1, "text": f"the teacher in the corridor {i}", "vector": near(base, i)} for i in range(1, 4)]
    s.result("records/upsert", {"owner": owner, "records": records})
    return base


def yes(q):
    return {"match": True, "sharedElement": "a teacher in a corridor", "difference": "none", "label": "teacher in the corridor"}


def test_notes_written_with_a_dismissal_reach_later_judge_requests(spawn):
    s = judge_server(spawn)
    base = small_journal(s)
    r, questions = judged_call(s, "patterns/refresh", {"owner": "me"}, yes)
    assert r["result"]["groupsCreated"] == 1 and all(q["notes"] == [] for q in questions)
    # The first two were asked about each other (a seed: no group yet), the third against the group they made.
    assert [q["group"]["id"] for q in questions[:2]] == [None, None]
    assert {q["occurrence"]["recordId"] for q in questions[:2]} == {q["group"]["representative"]["recordId"] for q in questions[:2]}
    gid, recs = group_of(s, "me", "t1")
    assert recs == {"t1", "t2", "t3"}
    group = s.result("patterns/group", {"owner": "me", "groupId": gid})["group"]
    # The judge's suggested label became the group's label at its version.
    assert group["label"] == "teacher in the corridor"
    t3 = next(m["occurrenceId"] for m in group["members"] if m["recordId"] == "t3")
    c = s.result("patterns/correct", {"owner": "me", "correction": {
        "kind": "dismiss", "groupId": gid, "occurrenceId": t3, "note": "two different teachers: unnamed, not one person"}})
    # The label goes with the member that left.
    assert s.result("patterns/group", {"owner": "me", "groupId": gid})["group"]["label"] is None

    s.result("records/upsert", {"owner": "me", "records": [
        {"id": "t4", "revision": 1, "text": "a teacher again", "vector": near(base, 4)}]})
    r, questions = judged_call(s, "patterns/refresh", {"owner": "me"}, yes)
    about_t4 = [q for q in questions if q["occurrence"]["recordId"] == "t4" and q["group"]["id"] == gid]
    assert about_t4, questions
    notes = about_t4[0]["notes"]
    assert notes == [{"correctionId": c["correctionId"], "kind": "dismiss", "note": "two different teachers: unnamed, not one person",
                      "records": ["t1", "t2"]}]
    # Each question shows a member of the group as it was as the representative.
    assert about_t4[0]["group"]["representative"]["recordId"] in {"t1", "t2"}
    # The dismissed record is never asked about the group it was dismissed from.
    assert not any(q["occurrence"]["recordId"] == "t3" and q["group"]["id"] == gid for q in questions)


def test_a_no_keeps_the_pair_apart_until_a_side_changes(spawn):
    s = judge_server(spawn)
    small_journal(s)
    r, questions = judged_call(s, "patterns/refresh", {"owner": "me"}, lambda q: {"match": False, "sharedElement": "", "difference": "no"})
    res = r["result"]
    assert questions and res["groupsCreated"] == 0 and res["waitingForJudge"] == 0 and res["pending"] == 3
    r, again = judged_call(s, "patterns/refresh", {"owner": "me"}, yes)
    assert again == [] and r["result"]["groupsCreated"] == 0 and r["result"]["judgeAsked"] == 0
    # A new revision of a record is a new side: it is asked about again.
    s.result("records/upsert", {"owner": "me", "records": [
        {"id": "t2", "revision": 2, "text": "the teacher in the corridor, again", "vector": near(vec(7), 22)}]})
    r, third = judged_call(s, "patterns/refresh", {"owner": "me"}, yes)
    assert third and any(q["occurrence"]["recordId"] == "t2" or q["group"]["representative"]["recordId"] == "t2" for q in third)
    assert r["result"]["groupsCreated"] == 1


def test_a_client_that_does_not_answer_leaves_occurrences_pending_and_the_server_keeps_serving(spawn):
    s = judge_server(spawn, timeout_ms=5000)
    small_journal(s)
    rid = s.request_async("patterns/refresh", {"owner": "me"})
    ask = s.wait_for(lambda m: m.get("method") == "patterns/judge" and "id" in m)
    # While the server waits for the judge, other requests are answered.
    status = s.result("index/status", {"owner": "me"}, timeout=10)
    found = s.result("search/query", {"owner": "me", "text": "teacher", "mode": "keyword"}, timeout=10)
    assert status["records"] == 3 and len(found["results"]) == 3
    assert not any(m.get("id") == rid for m in s.pending), "the refresh was answered before the others"
    r = s.response(rid, timeout=30)
    res = r["result"]
    assert res["groupsCreated"] == 0 and res["pending"] == 3 and res["waitingForJudge"] >= 1
    assert "no answer within 5000 ms" in res["judgeProblem"] and "patterns.judgeTimeoutMs" in res["judgeProblem"]
    # The server told the client it no longer waits for that answer.
    cancel = s.wait_for(lambda m: m.get("method") == "$/cancelRequest", timeout=5)
    assert cancel["params"]["id"] == ask["id"]
    # An answer arriving late is dropped, and the next refresh asks again and groups.
    s.send({"jsonrpc": "2.0", "id": ask["id"], "result": yes(ask["params"])})
    r, questions = judged_call(s, "patterns/refresh", {"owner": "me"}, yes)
    assert questions and r["result"]["groupsCreated"] == 1 and r["result"]["waitingForJudge"] == 0


def test_a_slow_judge_stalls_no_write_and_a_record_edited_meanwhile_is_asked_again(spawn):
    """The judge is asked outside the writer: while a question is out, writes are answered at once.
    A record edited while its question was out is not grouped on the old answer: it waits, and the
    next refresh asks about its new revision."""
    s = judge_server(spawn, timeout_ms=60000)
    small_journal(s)
    rid = s.request_async("patterns/refresh", {"owner": "me"})
    ask = s.wait_for(lambda m: m.get("method") == "patterns/judge" and "id" in m)
    other = s.result("records/upsert", {"owner": "me", "records": [
        {"id": "lunch", "revision": 1, "text": "an unrelated note about lunch", "vector": vec(99)}]}, timeout=10)
    assert other["results"][0]["status"] == "created"
    edited = s.result("records/upsert", {"owner": "me", "records": [
        {"id": "t2", "revision": 2, "text": "the teacher in the corridor, later", "vector": near(vec(7), 22)}]}, timeout=10)
    assert edited["results"][0]["status"] == "updated"
    assert s.result("records/get", {"owner": "me", "id": "t2"})["record"]["revision"] == 2
    assert not any(m.get("id") == rid for m in s.pending), "the refresh was answered before the judge"
    s.send({"jsonrpc": "2.0", "id": ask["id"], "result": yes(ask["params"])})
    r, _ = answered_until(s, rid, yes)
    res = r["result"]
    assert "judgeProblem" not in res and res["waitingForJudge"] >= 1, res.get("judgeProblem")
    assert group_of(s, "me", "t2") is None
    r, questions = judged_call(s, "patterns/refresh", {"owner": "me"}, yes)
    about_t2 = [q for q in questions if "t2" in (q["occurrence"]["recordId"], q["group"]["representative"]["recordId"])]
    assert about_t2 and r["result"]["waitingForJudge"] == 0
    assert group_of(s, "me", "t2")[1] == {"t1", "t2", "t3"}


def test_bad_judge_answers_are_named_and_leave_occurrences_waiting(spawn):
    s = judge_server(spawn)
    small_journal(s)
    for bad, field in [({"match": "yes"}, "match: must be true or false, got string"),
                       ({"match": True, "sharedElement": "x", "confidence": 0.9}, "confidence: unknown field"),
                       ({"match": True, "difference": "none"}, "sharedElement: a match must name the specific shared element"),
                       ([True], "must be an object, got array")]:
        r, questions = judged_call(s, "patterns/refresh", {"owner": "me"}, lambda q, bad=bad: bad)
        res = r["result"]
        assert len(questions) == 1, "after a bad answer the refresh asks nothing more"
        assert field in res["judgeProblem"] and res["groupsCreated"] == 0 and res["waitingForJudge"] >= 1
    # An error response is a failure too, named with its code.
    rid = s.request_async("patterns/refresh", {"owner": "me"})
    ask = s.wait_for(lambda m: m.get("method") == "patterns/judge" and "id" in m)
    s.send({"jsonrpc": "2.0", "id": ask["id"], "error": {"code": -32000, "message": "model overloaded"}})
    res = s.response(rid)["result"]
    assert "error -32000: model overloaded" in res["judgeProblem"] and res["groupsCreated"] == 0


def test_a_client_without_the_judge_capability_makes_no_membership(spawn):
    s = judge_server(spawn, capability=False)
    small_journal(s)
    r = s.result("patterns/refresh", {"owner": "me"})
    assert r["groupsCreated"] == 0 and r["pending"] == 3 and r["waitingForJudge"] == 3 and r["judgeAsked"] == 0
    assert "capabilities.judge" in r["judgeProblem"]


def test_an_unknown_judge_is_refused_naming_the_key(tmp_path):
    for command in (["serve"], ["patterns", "refresh"]):
        r = run_cli(*command, "--db", tmp_path / "k.sqlite", "--set", "patterns.judge=maybe", input="")
        assert r.returncode == 2
        assert "patterns.judge: expected off, client or openai, got 'maybe'" in r.stderr
