"""`kindred mcp` driven by the real `mcp` 2.3.0 client over stdio, in the handshake era (initialize,
protocol 2025-11-25), in the stateless 2026-07-28 revision (server/discover, the envelope in every
request's `_meta`) and in the SDK's `auto` mode (which probes server/discover first)."""

import json
import os

import anyio
import pytest
from mcp import Client, MCPError, StdioServerParameters

import journal
from conftest import BIN, run_cli
from journal import OWNER

TOOLS = {"search", "get_record", "similar", "findings", "group", "themes", "refresh_patterns", "correct", "index_status"}
MODES = [("legacy", "2025-11-25"), ("2026-07-28", "2026-07-28"), ("auto", "2026-07-28")]


def params(db, owner=OWNER):
    env = {k: os.environ[k] for k in ("KINDRED_MODEL_DIR", "OPENBLAS_CORETYPE", "XDG_DATA_HOME") if k in os.environ}
    return StdioServerParameters(command=BIN, args=["mcp", "--db", str(db), "--owner", owner], env=env)


def run(coro):
    return anyio.run(coro)


def structured(result):
    assert not result.is_error, result.content
    assert result.structured_content is not None
    # The text block holds the same object, for clients that read only content.
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


@pytest.mark.parametrize("mode,version", MODES)
def test_every_tool_answers_with_structured_content(journal_db, tmp_path, mode, version):
    db = journal.copy(journal_db, tmp_path)

    async def session():
        async with Client(params(db), mode=mode) as client:
            assert client.protocol_version == version
            listed = await client.list_tools()
            assert {t.name for t in listed.tools} == TOOLS
            for t in listed.tools:
                assert t.input_schema["type"] == "object" and t.output_schema["type"] == "object"
                assert "owner" not in t.input_schema.get("properties", {})
                assert len(t.description) > 80
            # call_tool checks each structured result against the tool's outputSchema.
            hits = structured(await client.call_tool("search", {"text": "the dream where I kept missing a train", "limit": 5}))
            assert hits["mode"] == "hybrid" and len(hits["results"]) == 5
            first = hits["results"][0]["id"]
            record = structured(await client.call_tool("get_record", {"id": first}))
            assert record["record"]["id"] == first and record["record"]["text"]
            like = structured(await client.call_tool("similar", {"id": first, "limit": 3}))
            assert len(like["results"]) == 3 and first not in {r["id"] for r in like["results"]}
            findings = structured(await client.call_tool("findings", {"from": "2025-01-01", "includeRelated": False}))
            top = findings["findings"][0]
            assert top["kind"] == "recurring" and top["summary"] == f"{top['records']} of {findings['eligibleRecords']} eligible records in this period"
            group = structured(await client.call_tool("group", {"groupId": top["groupId"]}))
            member = group["group"]["members"][0]
            pinned = structured(await client.call_tool("correct", {"kind": "pin", "groupId": top["groupId"],
                                                                     "occurrenceId": member["occurrenceId"], "note": "yes, this one"}))
            assert top["groupId"] in pinned["affectedGroups"]
            structured(await client.call_tool("refresh_patterns", {}))
            again = structured(await client.call_tool("refresh_patterns", {}))
            assert again["groupsCreated"] == 0 and again["groupsChanged"] == 0
            themes = structured(await client.call_tool("themes", {"limit": 2}))
            assert len(themes["themes"]) == min(2, themes["total"]) and themes["eligibleRecords"] > 0
            status = structured(await client.call_tool("index_status"))
            assert status["records"] == 336 and status["pendingEmbeddings"] == 0

    run(session)


@pytest.mark.parametrize("mode,version", MODES)
def test_bad_arguments_are_tool_errors_and_the_server_keeps_serving(journal_db, mode, version):
    async def session():
        async with Client(params(journal_db), mode=mode) as client:
            bad = await client.call_tool("search", {"text": "train", "mode": "fuzzy"})
            assert bad.is_error and bad.structured_content is None
            assert bad.content[0].text.startswith("Invalid argument `mode`: must be")
            bad = await client.call_tool("search", {"text": "train", "filters": {"kind": ["dream"]}})
            assert bad.is_error and "`filters.kind`" in bad.content[0].text
            bad = await client.call_tool("findings", {"owner": "someone-else"})
            assert bad.is_error and "`owner`" in bad.content[0].text
            bad = await client.call_tool("correct", {"kind": "dismiss", "groupId": 1, "moveOut": [3]})
            assert bad.is_error and "`moveOut`" in bad.content[0].text
            missing = await client.call_tool("get_record", {"id": "no-such-record"})
            assert missing.is_error and "not found" in missing.content[0].text
            with pytest.raises(MCPError) as unknown:
                await client.call_tool("delete_everything", {})
            assert unknown.value.code == -32602
            status = structured(await client.call_tool("index_status"))
            assert status["records"] == 336

    run(session)


def test_each_server_serves_only_its_own_owner(journal_db, tmp_path):
    async def session():
        async with Client(params(journal_db, owner="someone-else"), mode="auto") as client:
            hits = structured(await client.call_tool("search", {"text": "missing a train"}))
            assert hits["results"] == []
            assert structured(await client.call_tool("index_status"))["records"] == 0

    run(session)
    r = run_cli("mcp", "--db", journal_db)
    assert r.returncode == 2 and "--owner is required" in r.stderr
