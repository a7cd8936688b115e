"""The evidence judge as an OpenAI-compatible chat completion (patterns.judge = openai) against a
real HTTP server on loopback (provider_stub.py): the question's wire format, retries, failures that
leave occurrences waiting, usage, and the key never in any output."""

import json
import os

import pytest

from conftest import Server, near, vec
from provider_stub import Provider

KEY = "judge-key-7f3a9c"


@pytest.fixture
def provider():
    p = Provider()
    yield p
    p.close()


@pytest.fixture
def judged(tmp_path, db, provider):
    servers = []

    def make(*sets, db_path=None):
        args = ["--set", "patterns.judge=openai", "--set", f"patterns.judgeUrl={provider.url}",
                "--set", "patterns.judgeModel=judge-1", "--set", "embedder.retryBaseMs=20", "--set", "embedder.maxRetries=2"]
        for s in sets:
            args += ["--set", s]
        s = Server(db_path or db, tmp_path, args=args, env={**os.environ, "KINDRED_PATTERNS_JUDGE_API_KEY": KEY})
        servers.append(s)
        s.initialize()
        return s

    yield make
    for s in servers:
        s.close()


def teachers(s):
    """Three close records; t3 the least close (so never the representative of their seed)."""
    base = vec(7)
    s.result("records/upsert", {"owner": "me", "records": [
        {"id": f"t{i}", "revision": 1, "text": f"the teacher in the corridor {i}", "vector": near(base, i, eps)}
        for i, eps in ((1, 0.01), (2, 0.01), (3, 0.05))]})


def refuse_t3(q):
    if q["occurrence"]["recordId"] == "t3":
        return {"match": False, "sharedElement": "", "difference": "another teacher"}
    return {"match": True, "sharedElement": "a teacher in a corridor", "difference": "", "label": "teacher in the corridor"}


def everything_said(s):
    return json.dumps(s.notifications + s.pending) + s.stderr()


def test_the_question_goes_as_a_chat_completion_with_retries_usage_and_no_key_in_output(judged, provider):
    provider.chat_answer = refuse_t3
    provider.script = [("429", 0)]
    s = judged()
    teachers(s)
    r = s.result("patterns/refresh", {"owner": "me"})
    assert r["judge"] == "openai" and r["groupsCreated"] == 1 and r["waitingForJudge"] == 0 and "judgeProblem" not in r
    chats = [x for x in provider.requests if x[0] == "/chat/completions"]
    assert len(chats) == r["judgeAsked"] + 1  # one 429, then every question answered
    path, headers, body = chats[-1]
    assert headers["authorization"] == f"Bearer {KEY}"
    assert body["model"] == "judge-1" and body["response_format"] == {"type": "json_object"} and body["temperature"] == 0
    system, user = body["messages"]
    assert system["role"] == "system" and "broad mood" in system["content"] and '"match": true or false' in system["content"]
    q = json.loads(user["content"])
    assert set(q) == {"owner", "occurrence", "group", "notes"} and q["owner"] == "me"
    # t3 was refused as a founding member: the group holds t1 and t2.
    f = s.result("patterns/findings", {"owner": "me"})
    assert [sorted(e["recordId"] for e in g["evidence"]) for g in f["findings"]] == [["t1", "t2"]]
    usage = {u["provider"]: u for u in r["usage"]}
    assert usage["openai-judge"]["calls"] == r["judgeAsked"] and usage["openai-judge"]["attempts"] == r["judgeAsked"] + 1
    daily = s.result("usage/daily", {"owner": "me"})
    assert any(d["provider"] == "openai-judge" and d["calls"] == r["judgeAsked"] for d in daily["days"])
    # The retry is visible; the key is nowhere.
    assert any("429" in json.dumps(n) for n in s.notifications)
    assert KEY not in everything_said(s)
    # A second refresh asks nothing.
    before = len(provider.requests)
    again = s.result("patterns/refresh", {"owner": "me"})
    assert again["judgeAsked"] == 0 and again["groupsChanged"] == 0 and len(provider.requests) == before


@pytest.mark.parametrize("failure,said", [
    (["500", "500", "500"], "HTTP 500"),
    (["malformed"], "not JSON"),
    ("content", "choices[0].message.content is not JSON"),
    ("field", "match: must be true or false"),
])
def test_failures_leave_occurrences_waiting_and_name_the_provider(failure, said, judged, provider):
    if failure == "content":
        provider.chat_answer = lambda q: "I think they match."
    elif failure == "field":
        provider.chat_answer = lambda q: {"match": "probably", "sharedElement": "x"}
    else:
        provider.chat_answer = refuse_t3
        provider.script = list(failure)
    s = judged()
    teachers(s)
    r = s.result("patterns/refresh", {"owner": "me"})
    assert r["groupsCreated"] == 0 and r["pending"] == 3 and r["waitingForJudge"] >= 1
    assert said in r["judgeProblem"]
    if failure not in ("content", "field"):
        assert "openai-judge" in r["judgeProblem"]
    assert KEY not in everything_said(s) and KEY not in json.dumps(r)
    # The provider recovers: the next refresh asks again and groups.
    provider.chat_answer = refuse_t3
    provider.script = []
    r = s.result("patterns/refresh", {"owner": "me"})
    assert r["groupsCreated"] == 1 and r["waitingForJudge"] == 0 and "judgeProblem" not in r


def test_a_daily_call_limit_stops_the_judge(judged, provider):
    provider.chat_answer = refuse_t3
    s = judged("usage.dailyCallLimit=1")
    teachers(s)
    r = s.result("patterns/refresh", {"owner": "me"})
    assert r["judgeAsked"] == 2 and "usage.dailyCallLimit" in r["judgeProblem"]
    assert len([x for x in provider.requests if x[0] == "/chat/completions"]) == 1
    # A seed needs a yes both ways: the limit kept the second question from the judge, so nothing
    # was founded and every occurrence waits for the next refresh.
    assert r["groupsCreated"] == 0 and r["pending"] == 3 and r["waitingForJudge"] == 3
