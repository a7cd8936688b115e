"""Runs in the mcp 1.x virtualenv (tests-e2e/.venv-mcp1, made by make-venv-mcp1.sh): drives `kindred mcp`
with the 1.x `ClientSession` over stdio and prints what it saw as one JSON object.

    python mcp1_client.py KINDRED_BIN DB OWNER
"""

import json
import os
import sys

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import McpError


async def main(binary, db, owner):
    env = {k: os.environ[k] for k in ("KINDRED_MODEL_DIR", "OPENBLAS_CORETYPE", "XDG_DATA_HOME", "HOME", "PATH") if k in os.environ}
    server = StdioServerParameters(command=binary, args=["mcp", "--db", db, "--owner", owner], env=env)
    out = {}
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            out["protocolVersion"] = init.protocolVersion
            out["serverName"] = init.serverInfo.name
            tools = await session.list_tools()
            out["tools"] = sorted(t.name for t in tools.tools)
            out["outputSchemas"] = all(t.outputSchema and t.outputSchema["type"] == "object" for t in tools.tools)
            calls = {}
            # ClientSession.call_tool validates structuredContent against each tool's outputSchema.
            hits = await session.call_tool("search", {"text": "the dream where I kept missing a train", "limit": 3})
            calls["search"] = hits.structuredContent
            first = hits.structuredContent["results"][0]["id"]
            calls["get_record"] = (await session.call_tool("get_record", {"id": first})).structuredContent
            calls["similar"] = (await session.call_tool("similar", {"id": first, "limit": 2})).structuredContent
            findings = (await session.call_tool("findings", {"includeRelated": False})).structuredContent
            calls["findings"] = findings
            gid = findings["findings"][0]["groupId"]
            group = (await session.call_tool("group", {"groupId": gid})).structuredContent
            calls["group"] = group
            occ = group["group"]["members"][-1]["occurrenceId"]
            calls["correct"] = (await session.call_tool("correct", {"kind": "pin", "groupId": gid, "occurrenceId": occ})).structuredContent
            calls["refresh_patterns"] = (await session.call_tool("refresh_patterns", {})).structuredContent
            calls["index_status"] = (await session.call_tool("index_status", {})).structuredContent
            out["calls"] = calls
            bad = await session.call_tool("similar", {"id": first, "limit": 0})
            out["badArgument"] = {"isError": bad.isError, "text": bad.content[0].text}
            try:
                await session.call_tool("no_such_tool", {})
                out["unknownTool"] = None
            except McpError as e:
                out["unknownTool"] = e.error.code
            out["afterErrors"] = (await session.call_tool("index_status", {})).structuredContent["records"]
    print(json.dumps(out))


if __name__ == "__main__":
    anyio.run(main, *sys.argv[1:4])
