"""Pattern groups a person can trust, on both bundled journals (default configuration, no judge,
one refresh after loading, through the real binary): each group claims one specific recurring
situation, so co-membership must mostly be right. Scored against each journal's key by
journal_score.py, as ../shared/tools/journal_precision.py and the benches score it: pair precision
and recall over the entries of exactly one situation, look-alike distractors grouped with what they
resemble, and member precision (every pair of members of one group). The floors are the figures the
shipped configuration reaches (bench/grouping/README.md, "Precision"), so a change that costs
precision fails here."""

import collections
import json

import pytest

from conftest import REPO, Server, run_cli
from journal_score import score
from test_judge import answered_until

# (dataset, precision floor, recall floor, most distractors grouped with their look-alike, member precision floor)
JOURNALS = [
    ("journal", 0.85, 0.40, 0.30, 0.74),   # calibrated on this one
    ("journal2", 0.65, 0.20, 0.25, 0.60),  # held out
]


def groups_of(spawn_server, records):
    s = spawn_server()
    s.initialize()
    s.result("records/upsert", {"owner": "me", "waitForIndex": True, "records": records}, timeout=600)
    s.result("patterns/refresh", {"owner": "me"}, timeout=600)
    f = s.result("patterns/findings", {"owner": "me", "includeRelated": True, "limit": 1000, "evidenceLimit": 1000})
    assert s.shutdown_and_exit() == 0
    return [{e["recordId"] for e in g["evidence"]} for g in f["findings"]]


@pytest.mark.parametrize("name,precision,recall,leaks,members", JOURNALS)
def test_groups_of_a_bundled_journal_keep_their_precision(tmp_path, name, precision, recall, leaks, members):
    folder = REPO / "datasets" / name
    records = [json.loads(line) for line in (folder / "records.jsonl").read_text().splitlines() if line.strip()]
    key = json.loads((folder / "situations.json").read_text())
    groups = groups_of(lambda: Server(tmp_path / f"{name}.sqlite", tmp_path), records)
    m = score(groups, key)
    p, r, leaked, mp = m["pair_precision"], m["recall"], m["leaks"] / m["lookalikes_of"], m["member_precision"]
    assert p >= precision and r >= recall and leaked <= leaks and mp >= members, (
        f"{name}: pair precision {p:.3f} (floor {precision}), recall {r:.3f} (floor {recall}), "
        f"distractors grouped with their look-alike {leaked:.0%} (at most {leaks:.0%}), member precision {mp:.3f} (floor {members})")


def key_judge(key):
    """A perfect judge: yes when the occurrence's entry and the representative's entry share a situation of the key."""
    of = collections.defaultdict(set)
    for s in key["situations"]:
        for i in s["entries"]:
            of[i].add(s["id"])

    def answer(q):
        match = bool(of[q["occurrence"]["recordId"]] & of[q["group"]["representative"]["recordId"]])
        return {"match": match, "sharedElement": "the same situation" if match else "", "difference": "" if match else "another"}
    return answer


@pytest.mark.parametrize("name", ["journal", "journal2"])
def test_a_judge_answering_from_the_key_finds_whole_situations_with_few_questions(tmp_path, name):
    """Under a judge, similarity proposes each entry's nearest candidates and the judge decides:
    with a judge that is always right, groups are whole situations and nothing else, at most four
    questions per entry, and a refresh with every answer stored asks nothing and changes nothing."""
    folder = REPO / "datasets" / name
    records = [json.loads(line) for line in (folder / "records.jsonl").read_text().splitlines() if line.strip()]
    key = json.loads((folder / "situations.json").read_text())
    s = Server(tmp_path / f"{name}.sqlite", tmp_path, args=["--set", "patterns.judge=client"])
    s.result("initialize", {"capabilities": {"judge": True}})
    s.notify("initialized", {})
    s.result("records/upsert", {"owner": "me", "waitForIndex": True, "records": records}, timeout=600)
    r, questions = answered_until(s, s.request_async("patterns/refresh", {"owner": "me"}), key_judge(key))
    res = r["result"]
    assert res["judgeAsked"] == len(questions) and res["waitingForJudge"] == 0 and res["judgeWanted"] == 0
    assert len(questions) <= 4 * len(records), f"{len(questions)} questions for {len(records)} entries"
    f = s.result("patterns/findings", {"owner": "me", "includeRelated": True, "limit": 1000, "evidenceLimit": 1000})
    groups = [{e["recordId"] for e in g["evidence"]} for g in f["findings"]]
    m = score(groups, key)
    mp, recall = m["member_precision"], m["recall"]
    assert mp >= 0.95 and recall >= 0.85, f"{name}: member precision {mp:.3f}, pair recall {recall:.3f}"
    again, more = answered_until(s, s.request_async("patterns/refresh", {"owner": "me"}), key_judge(key))
    a = again["result"]
    assert more == [] and a["judgeAsked"] == 0 and a["groupsCreated"] == 0 and a["groupsChanged"] == 0
    assert s.shutdown_and_exit() == 0
    # A person reading a group sees which members the judge confirmed.
    shown = run_cli("patterns", "show", "--db", tmp_path / f"{name}.sqlite", "--owner", "me", str(f["findings"][0]["groupId"]))
    assert shown.returncode == 0 and "confirmed by the judge, similarity 0." in shown.stdout, shown.stdout
