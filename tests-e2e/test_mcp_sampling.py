"""`kindred mcp` asks the assistant's own model to judge pattern memberships through MCP sampling
(`sampling/createMessage`), driven by the real `mcp` 2.3.0 client with a sampling callback, in the
handshake era. The "model" here answers from the bundled journal's key (a perfect judge), so the
groups the refresh makes can be checked; a second client's model answers prose without JSON."""

import collections
import json
import os

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

import journal
from conftest import BIN, run_cli
from journal import OWNER

SITUATIONS = json.loads((journal.RECORDS.parent / "situations.json").read_text())
OF = collections.defaultdict(set)
for s in SITUATIONS["situations"]:
    for e in s["entries"]:
        OF[e].add(s["id"])


@pytest.fixture(scope="module")
def ingested(tmp_path_factory):
    """The bundled journal ingested, never refreshed: every occurrence is new to the judge."""
    db = tmp_path_factory.mktemp("sampling") / "journal.sqlite"
    r = run_cli("ingest", "--db", db, "--owner", OWNER, journal.RECORDS, timeout=600)
    assert r.returncode == 0, r.stderr
    return db


def params(db, *extra):
    env = {k: os.environ[k] for k in ("KINDRED_MODEL_DIR", "OPENBLAS_CORETYPE", "XDG_DATA_HOME") if k in os.environ}
    return StdioServerParameters(command=BIN, args=["mcp", "--db", str(db), "--owner", OWNER, "--set", "patterns.judge=client", *extra],
                                 env=env)


def text_of(p):
    content = p.messages[0].content
    return content.text if hasattr(content, "text") else content[0].text


def test_the_assistants_model_judges_memberships_through_sampling(ingested, tmp_path):
    db = journal.copy(ingested, tmp_path)
    asked = []

    async def model(context, p: types.CreateMessageRequestParams):
        question = json.loads(text_of(p))
        asked.append((p, question))
        a, b = question["occurrence"]["recordId"], question["group"]["representative"]["recordId"]
        match = bool(OF[a] & OF[b])
        answer = {"match": match, "sharedElement": "the same situation" if match else "", "difference": "" if match else "another one",
                  "label": "a recurring situation" if match else None}
        # A model that wraps its JSON in a fenced block, as chat models often do.
        return types.CreateMessageResult(role="assistant", model="key-model",
                                         content=types.TextContent(type="text", text="```json\n" + json.dumps(answer) + "\n```"))

    async def session():
        async with Client(params(db), mode="legacy", sampling_callback=model) as client:
            r = await client.call_tool("refresh_patterns", {})
            assert not r.is_error, r.content
            first = r.structured_content
            again = (await client.call_tool("refresh_patterns", {})).structured_content
            findings = (await client.call_tool("findings", {"includeRelated": True, "limit": 100, "evidenceLimit": 100})).structured_content
            return first, again, findings

    first, again, findings = anyio.run(session)
    assert asked, "the model was never asked"
    p, q = asked[0]
    # The instruction and the answer format travel as the system prompt; the question as JSON.
    assert "specific shared element" in p.system_prompt and '"match"' in p.system_prompt and "instruction" not in q
    assert set(q) == {"owner", "occurrence", "group", "notes"} and q["owner"] == OWNER
    assert first["judge"] == "client" and first["judgeAsked"] == len(asked) and "judgeProblem" not in first
    assert first["waitingForJudge"] == 0
    # Every group the model confirmed is one situation of the key.
    groups = [{e["recordId"] for e in f["evidence"]} for f in findings["findings"]]
    assert groups and all(set.intersection(*(OF[i] for i in g)) for g in groups)
    # Every answer stored: the next refresh asks nothing and changes nothing.
    assert again["judgeAsked"] == 0 and again["groupsCreated"] == 0 and again["groupsChanged"] == 0


def test_a_model_that_answers_prose_is_named_and_its_occurrences_wait(ingested, tmp_path):
    db = journal.copy(ingested, tmp_path)

    async def chatty(context, p):
        return types.CreateMessageResult(role="assistant", model="chatty",
                                         content=types.TextContent(type="text", text="They seem quite similar to me."))

    async def session():
        async with Client(params(db), mode="legacy", sampling_callback=chatty) as client:
            r = await client.call_tool("refresh_patterns", {})
            status = await client.call_tool("index_status")
            return r.structured_content, status.structured_content

    result, status = anyio.run(session)
    assert result["judgeAsked"] == 1 and result["waitingForJudge"] >= 1
    assert "holds no JSON object: They seem quite similar to me." in result["judgeProblem"]
    assert status["records"] == 336


def test_a_client_without_sampling_makes_no_membership_and_says_why(ingested, tmp_path):
    db = journal.copy(ingested, tmp_path)

    async def session():
        async with Client(params(db), mode="legacy") as client:
            return (await client.call_tool("refresh_patterns", {})).structured_content

    result = anyio.run(session)
    assert result["judgeAsked"] == 0 and "capabilities.judge" in result["judgeProblem"]
