"""Themes over the real binary: `patterns/themes`, theme fields of `patterns/group`, refresh counts,
theme corrections honoured by later refreshes, ids kept when records are added, strict params,
`kindred patterns themes`, and the Python client. The records carry client vectors made of three
broad topics with three specific situations each (a group each), so that the themes are known."""

import json
import random

import pytest

from conftest import INVALID_PARAMS, NOT_FOUND, REPO, run_cli

# Themes are off by default (`patterns.themes`); these tests switch them on.
THEMES_ON = ("--set", "patterns.themes=true")


@pytest.fixture
def server(spawn):
    """An initialized ndjson server on a fresh database, with themes on."""
    s = spawn(args=THEMES_ON)
    s.initialize()
    return s

DIM = 384


def unit(v):
    n = sum(x * x for x in v) ** 0.5
    return [x / n for x in v]


def gauss(seed, scale=1.0):
    r = random.Random(seed)
    return [r.gauss(0, scale) for _ in range(DIM)]


TOPICS = 3
SITUATIONS = 3


def situation_vector(topic, situation):
    t = gauss(1000 + topic)
    s = gauss(2000 + 10 * topic + situation, 0.9)
    return [a + b for a, b in zip(t, s)]


SYLLABLES = ["ka", "lo", "mi", "ru", "te", "vo", "zan", "pel", "dor", "gim", "sul", "fen", "bra", "qui", "nox", "hal"]


def word(n):
    """A made-up word (no stopword, no shared stem) for each n."""
    r = random.Random(n)
    return "".join(r.choice(SYLLABLES) for _ in range(3)) + "x"


def records(first, count, seed=0):
    """`count` records, cycling over every situation; each a noisy copy of its situation's vector and
    ten of its situation's twelve words (no word is shared between situations: groups, which ask a
    shared specific word of a weak match, keep the situations apart; themes gather a topic's)."""
    out = []
    for i in range(first, first + count):
        k = i % (TOPICS * SITUATIONS)
        topic, situation = divmod(k, SITUATIONS)
        base = situation_vector(topic, situation)
        noise = gauss(50_000 + i + seed, 0.25)
        vocabulary = [word(100 * k + j) for j in range(12)]
        words = random.Random(i).sample(vocabulary, 10)
        out.append({"id": f"r{i:03d}", "revision": 1, "date": f"2025-{1 + i % 12:02d}-{1 + i % 28:02d}",
                    "text": " ".join(words) + ".",
                    "vector": [round(x, 5) for x in unit([a + b for a, b in zip(base, noise)])]})
    return out


def topic_of(record_id):
    return (int(record_id[1:]) % (TOPICS * SITUATIONS)) // SITUATIONS


def load(server, count=108):
    server.result("records/upsert", {"owner": "me", "waitForIndex": True, "records": records(0, count)}, timeout=600)
    return server.result("patterns/refresh", {"owner": "me"}, timeout=600)


def theme_records(server, theme):
    ids = set()
    for g in theme["groups"]:
        group = server.result("patterns/group", {"owner": "me", "groupId": g})["group"]
        ids |= {m["recordId"] for m in group["members"]}
    return ids


def test_themes_gather_the_groups_of_a_topic(server):
    refreshed = load(server)
    assert refreshed["activeThemes"] >= 1 and refreshed["themesCreated"] >= 1
    again = server.result("patterns/refresh", {"owner": "me"})
    assert again["themesCreated"] == 0 and again["themesChanged"] == 0, "a second refresh changes no theme"
    out = server.result("patterns/themes", {"owner": "me"})
    assert out["total"] == len(out["themes"]) >= 1
    assert out["eligibleRecords"] == 108
    for t in out["themes"]:
        assert len(t["groups"]) >= 2
        assert 0 < len(t["label"]) <= 60
        assert t["eligible"] == 108 and t["summary"].startswith(f"{t['records']} of 108 eligible records")
        members = theme_records(server, t)
        assert len(members) == t["records"]
        # Each theme holds one topic's situations only.
        assert len({topic_of(r) for r in members}) == 1, t
        for g in t["groups"]:
            got = server.result("patterns/group", {"owner": "me", "groupId": g})["theme"]
            assert got["themeId"] == t["themeId"] and g in got["groups"]
    # Pages.
    first = server.result("patterns/themes", {"owner": "me", "limit": 1})
    assert len(first["themes"]) == 1
    if out["total"] > 1:
        second = server.result("patterns/themes", {"owner": "me", "limit": 1, "cursor": first["nextCursor"]})
        assert second["themes"][0]["themeId"] != first["themes"][0]["themeId"]
    # A period counts the records dated in it only.
    march = server.result("patterns/themes", {"owner": "me", "from": "2025-03-01", "to": "2025-03-31"})
    assert march["eligibleRecords"] < 108


def test_theme_ids_survive_ten_percent_more_records_and_corrections_hold(server):
    load(server)
    before = server.result("patterns/themes", {"owner": "me"})["themes"]
    assert before
    target = next(t for t in before if len(t["groups"]) >= 2)
    removed = target["groups"][-1]
    c = server.result("patterns/correct", {"owner": "me", "correction": {"kind": "themeRemove", "themeId": target["themeId"],
                                                                          "groupId": removed, "note": "not this one"}})
    assert target["themeId"] in c["affectedThemes"]
    listed = server.result("patterns/corrections", {"owner": "me"})["themeCorrections"]
    assert listed[0]["kind"] == "themeRemove" and listed[0]["groupId"] == removed
    server.result("records/upsert", {"owner": "me", "waitForIndex": True, "records": records(108, 11)}, timeout=600)
    server.result("patterns/refresh", {"owner": "me"}, timeout=600)
    after = {t["themeId"]: t for t in server.result("patterns/themes", {"owner": "me"})["themes"]}
    survivors = [t for t in before if t["themeId"] != target["themeId"] or len(t["groups"]) > 2]
    assert all(t["themeId"] in after for t in survivors), "every theme id survives 10 % more records"
    for t in after.values():
        if t["themeId"] == target["themeId"]:
            assert removed not in t["groups"], "a removed group never rejoins its theme"
    # Undo: the correction stops constraining.
    undone = server.result("patterns/undoCorrection", {"owner": "me", "correctionId": c["correctionId"]})
    assert undone["undone"] is True


def test_theme_params_are_strict(server):
    load(server, 36)
    e = server.error("patterns/themes", {"owner": "me", "colour": "red"})
    assert e["code"] == INVALID_PARAMS and e["data"]["field"] == "colour"
    e = server.error("patterns/themes", {"owner": "me", "limit": 0})
    assert e["code"] == INVALID_PARAMS and e["data"]["field"] == "limit"
    e = server.error("patterns/themes", {"owner": "me", "cursor": "nope"})
    assert e["data"]["field"] == "cursor"
    e = server.error("patterns/correct", {"owner": "me", "correction": {"kind": "themeDismiss", "themeId": 1, "groupId": 2}})
    assert e["code"] == INVALID_PARAMS and e["data"]["field"] == "correction.groupId"
    e = server.error("patterns/correct", {"owner": "me", "correction": {"kind": "themeDismiss", "themeId": 999}})
    assert e["code"] == NOT_FOUND and e["data"]["what"] == "theme"


def test_cli_and_python_client_show_themes(tmp_path):
    db = tmp_path / "themes.sqlite"
    src = tmp_path / "records.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in records(0, 108)))
    r = run_cli("ingest", "--db", db, "--owner", "me", src, timeout=600)
    assert r.returncode == 0, r.stderr
    r = run_cli("patterns", "refresh", "--db", db, "--owner", "me", *THEMES_ON, timeout=600)
    assert r.returncode == 0, r.stderr
    r = run_cli("patterns", "themes", "--db", db, "--owner", "me")
    assert r.returncode == 0, r.stderr
    assert "theme" in r.stdout and "eligible records" in r.stdout and "groups: group " in r.stdout
    # Made by a refresh with themes on, asked without: the themes are listed, and said to be off now.
    assert "Themes are off (patterns.themes is false): these were made by a refresh with them on" in r.stdout
    r = run_cli("patterns", "themes", "--db", db, "--owner", "me", "--json")
    themes = json.loads(r.stdout)["themes"]
    assert themes
    r = run_cli("patterns", "themes", "--db", db, "--owner", "me", "--limit", "0")
    assert r.returncode == 2 and "--limit" in r.stderr
    import sys
    sys.path.insert(0, str(REPO / "clients" / "python"))
    from kindred_client import Client
    from conftest import BIN
    with Client.start(db=str(db), binary=BIN) as k:
        out = k.patterns_themes(owner="me", limit=5)
        assert [t["themeId"] for t in out["themes"]] == [t["themeId"] for t in themes][:5]


def test_themes_are_off_by_default(spawn):
    s = spawn()
    s.initialize()
    r = load(s)
    assert r["activeGroups"] > 1 and (r["themesCreated"], r["activeThemes"]) == (0, 0)
    assert s.result("patterns/themes", {"owner": "me"})["total"] == 0
    s.shutdown_and_exit()
    s.close()
    # The same database with themes switched on: the next refresh makes them.
    on = spawn(args=THEMES_ON)
    on.initialize()
    r = on.result("patterns/refresh", {"owner": "me"}, timeout=600)
    assert r["themesCreated"] > 0 and r["activeThemes"] == on.result("patterns/themes", {"owner": "me"})["total"] > 0


def test_an_assistant_corrects_a_theme_through_the_mcp_correct_tool(tmp_path):
    """The `correct` tool of `kindred mcp` takes the theme kinds: a theme read with the `themes` tool,
    one of its groups removed, and the next refresh (through `refresh_patterns`) keeps it out."""
    import os

    import anyio
    from mcp import Client, StdioServerParameters

    from conftest import BIN

    db = tmp_path / "themes.sqlite"
    src = tmp_path / "records.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in records(0, 108)))
    assert run_cli("ingest", "--db", db, "--owner", "me", src, timeout=600).returncode == 0
    env = {k: os.environ[k] for k in ("KINDRED_MODEL_DIR", "OPENBLAS_CORETYPE", "XDG_DATA_HOME") if k in os.environ}
    params = StdioServerParameters(command=BIN, args=["mcp", "--db", str(db), "--owner", "me", *THEMES_ON], env=env)

    async def session():
        async with Client(params, mode="auto") as client:
            async def call(tool, arguments):
                result = await client.call_tool(tool, arguments)
                assert not result.is_error, result.content
                return result.structured_content

            await call("refresh_patterns", {})
            themes = (await call("themes", {}))["themes"]
            target = next(t for t in themes if len(t["groups"]) >= 3)
            removed = target["groups"][-1]
            c = await call("correct", {"kind": "themeRemove", "themeId": target["themeId"], "groupId": removed,
                                       "note": "not the same thing"})
            assert target["themeId"] in c["affectedThemes"] and c["affectedGroups"] == []
            await call("refresh_patterns", {})
            after = {t["themeId"]: t for t in (await call("themes", {}))["themes"]}
            assert removed not in after[target["themeId"]]["groups"]
            assert set(after[target["themeId"]]["groups"]) == set(target["groups"][:-1])
            # A field of another kind is refused, naming it, and the server keeps serving.
            bad = await client.call_tool("correct", {"kind": "themeDismiss", "themeId": target["themeId"], "groupId": removed})
            assert bad.is_error and "`groupId`" in bad.content[0].text
            gone = await call("correct", {"kind": "themeDismiss", "themeId": target["themeId"]})
            assert gone["affectedThemes"] == [target["themeId"]]

    anyio.run(session)
