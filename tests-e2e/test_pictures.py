"""The pattern map and the findings timeline of the bundled journal, drawn by `kindred patterns map|timeline`
and `patterns/map|timeline` over the wire, rendered to PNG by a real SVG renderer (rsvg-convert)."""

import json
import shutil
import subprocess
import xml.etree.ElementTree as ET

import png
from conftest import run_cli
from journal import OWNER

SVG = "{http://www.w3.org/2000/svg}"
RSVG = shutil.which("rsvg-convert")


def render(svg_path, tmp_path, width=800):
    """The picture as PNG rows, `width` px wide, by rsvg-convert (Debian's librsvg2-bin)."""
    assert RSVG, "rsvg-convert is missing: run scripts/install-deps.sh (it installs librsvg2-bin)"
    out = tmp_path / (svg_path.stem + ".png")
    subprocess.run([RSVG, "--width", str(width), "--format", "png", "--output", str(out), str(svg_path)],
                   check=True, timeout=60)
    return png.read(out.read_bytes())


def ink(rows):
    """Share of pixels that are not (near) white."""
    dark = sum(1 for row in rows for (r, g, b, a) in row if a > 0 and min(r, g, b) < 200)
    return dark / (len(rows) * len(rows[0]))


def texts(root):
    return ["".join(t.itertext()) for t in root.iter(SVG + "text")]


def assert_plain(svg_text):
    """No scripts, links, external fonts or images: nothing a viewer would fetch or run."""
    root = ET.fromstring(svg_text)
    for el in root.iter():
        assert el.tag.split("}")[-1] not in ("script", "foreignObject", "image", "a", "style", "use"), el.tag
        for name, value in el.attrib.items():
            assert "href" not in name and not name.startswith("on"), name
            assert "url(" not in value and "javascript:" not in value, value
    return root


def test_pattern_map_of_the_journal(journal_db, tmp_path):
    out = tmp_path / "map.svg"
    r = run_cli("patterns", "map", "--db", journal_db, "--owner", OWNER, "--out", out, "--json", timeout=120)
    assert r.returncode == 0, r.stderr
    result = json.loads(r.stdout)
    svg = out.read_text(encoding="utf-8")
    assert svg == result["svg"]
    root = assert_plain(svg)
    groups = result["groups"]
    assert len(groups) >= 10
    # Every group is one circle with hover text, and its label is drawn exactly once.
    assert len([c for c in root.iter(SVG + "circle") if c.find(SVG + "title") is not None]) >= len(groups)
    drawn = texts(root)
    for g in groups:
        same = sum(1 for x in groups if x["label"] == g["label"])
        beside = drawn.count(g["label"])
        keyed = sum(1 for t in drawn if t.endswith(". " + g["label"]) and t.split(".")[0].isdigit())
        assert beside + keyed == same, (g, beside, keyed)
    assert sum(g["labelBeside"] for g in groups) >= len(groups) * 0.7
    assert set(root.attrib["viewBox"].split()[2:3]) == {"800"}
    width, height, rows = render(out, tmp_path)
    assert width == 800 and height > 400
    assert 0.03 < ink(rows) < 0.6
    # The same state draws the same bytes.
    again = run_cli("patterns", "map", "--db", journal_db, "--owner", OWNER, timeout=120)
    assert again.returncode == 0 and again.stdout == svg


def test_timeline_of_the_journal_with_a_comparison(journal_db, tmp_path):
    out = tmp_path / "timeline.svg"
    r = run_cli("patterns", "timeline", "--db", journal_db, "--owner", OWNER, "--out", out, "--json",
                "--from", "2025-09-01", "--to", "2026-02-28", "--compare-from", "2025-01-01", "--compare-to", "2025-08-31",
                timeout=120)
    assert r.returncode == 0, r.stderr
    result = json.loads(r.stdout)
    root = assert_plain(out.read_text(encoding="utf-8"))
    drawn = texts(root)
    assert 1 <= len(result["findings"]) <= 6
    for f in result["findings"]:
        assert f"{f['records']} of {f['eligible']} eligible records" in drawn
        assert f["records"] == sum(b["records"] for b in f["bins"])
        c = f["comparison"]
        assert any(t.startswith(f"recent: {c['current']['records']} of {c['current']['eligible']} (") for t in drawn)
        assert any(t.startswith(f"earlier: {c['previous']['records']} of {c['previous']['eligible']} (") for t in drawn)
    titles = ["".join(t.itertext()) for t in root.iter(SVG + "title")]
    first = result["findings"][0]
    for b in first["bins"]:
        assert any(t.startswith(f"{b['start']}: {b['records']} of {b['eligible']} eligible") for t in titles)
    width, height, rows = render(out, tmp_path)
    assert width == 800 and 0.02 < ink(rows) < 0.6


def test_dismissed_and_excluded_records_are_never_drawn(journal_db, tmp_path, spawn):
    import journal

    db = journal.copy(journal_db, tmp_path)
    s = spawn(db_path=db)
    s.initialize()
    before = s.result("patterns/timeline", {"owner": OWNER, "limit": 1})["findings"][0]
    group = s.result("patterns/group", {"owner": OWNER, "groupId": before["groupId"]})["group"]
    members = sorted(group["members"], key=lambda m: (m["date"] or "", m["recordId"]))
    dismissed, excluded = members[0], members[1]
    s.result("patterns/correct", {"owner": OWNER, "correction": {"kind": "dismiss", "groupId": before["groupId"],
                                                                "occurrenceId": dismissed["occurrenceId"], "note": "not this"}})
    s.result("records/setPermissions", {"owner": OWNER, "id": excluded["recordId"], "permissions": {"patterns": False}})
    s.result("patterns/refresh", {"owner": OWNER})
    after = s.result("patterns/timeline", {"owner": OWNER, "limit": 24})
    same = [f for f in after["findings"] if f["groupId"] == before["groupId"]]
    assert same, "the group is still a recurring finding"
    # Both left the group (a refresh may place another record in it meanwhile): the count drawn is
    # that of the group's records now.
    now = s.result("patterns/group", {"owner": OWNER, "groupId": before["groupId"]})["group"]
    records_now = {m["recordId"] for m in now["members"]}
    assert dismissed["recordId"] not in records_now and excluded["recordId"] not in records_now
    assert same[0]["records"] == len(records_now)
    assert same[0]["records"] == sum(b["records"] for b in same[0]["bins"])
    finding = next(f for f in s.result("patterns/findings", {"owner": OWNER})["findings"] if f["groupId"] == before["groupId"])
    shown = {e["recordId"] for e in finding["evidence"]}
    assert dismissed["recordId"] not in shown and excluded["recordId"] not in shown
    assert finding["records"] == same[0]["records"]
    # The excluded record leaves every denominator too.
    assert after["eligibleRecords"] == s.result("patterns/findings", {"owner": OWNER})["eligibleRecords"]
    assert sum(b["eligible"] for b in same[0]["bins"]) == after["eligibleRecords"]


def test_hostile_record_text_is_escaped(spawn, tmp_path):
    s = spawn()
    s.initialize()
    hostile = "<script>alert('x')</script> & the lost keys"
    texts_ = [f"Morning {i}: {hostile} again, under the sofa this time." for i in range(4)]
    records = [{"id": f"h-{i}", "revision": 1, "text": t, "date": f"2025-0{i + 1}-10"} for i, t in enumerate(texts_)]
    s.result("records/upsert", {"owner": "eve", "records": records, "waitForIndex": True}, timeout=120)
    for r in records:
        s.result("occurrences/put", {"owner": "eve", "recordId": r["id"], "revision": 1,
                                     "occurrences": [{"category": "object", "description": hostile, "excerpt": hostile}]})
    s.result("patterns/refresh", {"owner": "eve"}, timeout=120)
    # Generated labels keep words only; a label the client wrote is drawn as written.
    finding = s.result("patterns/findings", {"owner": "eve"})["findings"][0]
    s.result("patterns/setLabel", {"owner": "eve", "groupId": finding["groupId"], "version": finding["version"], "label": hostile})
    for method in ("patterns/map", "patterns/timeline"):
        result = s.result(method, {"owner": "eve"})
        svg = result["svg"]
        assert "<script" not in svg and "&lt;script&gt;" in svg and "&amp; the lost keys" in svg
        root = assert_plain(svg)
        assert any("<script>" in t for t in texts(root) + ["".join(t.itertext()) for t in root.iter(SVG + "title")])
        path = tmp_path / (method.replace("/", "-") + ".svg")
        path.write_text(svg, encoding="utf-8")
        width, _, rows = render(path, tmp_path)
        assert width == 800 and ink(rows) > 0.005


def test_picture_params_are_strict(server):
    e = server.error("patterns/map", {"owner": "x", "limit": 3})
    assert e["code"] == -32602 and e["data"]["field"] == "limit"
    e = server.error("patterns/timeline", {"owner": "x", "limit": 25})
    assert e["code"] == -32602 and e["data"]["field"] == "limit"
    e = server.error("patterns/timeline", {"owner": "x", "from": "2025-02-01", "to": "2025-01-01"})
    assert e["data"]["field"] == "to"
    empty = server.result("patterns/map", {"owner": "nobody"})
    assert empty["groups"] == [] and "<svg" in empty["svg"]


def test_picture_commands_refuse_bad_options_in_plain_words(journal_db, tmp_path):
    r = run_cli("patterns", "timeline", "--db", journal_db, "--owner", OWNER, "--limit", "99")
    assert r.returncode == 2 and "--limit: must be between 1 and 24" in r.stderr
    r = run_cli("patterns", "map", "--db", journal_db, "--owner", OWNER, "--compare-from", "2025-01-01")
    assert r.returncode == 2 and "--compare-from is an option of timeline" in r.stderr
    r = run_cli("patterns", "map", "--db", tmp_path / "missing.sqlite", "--owner", OWNER)
    assert r.returncode == 1 and "no database" in r.stderr and not (tmp_path / "missing.sqlite").exists()
    r = run_cli("patterns", "map", "--db", journal_db, "--owner", OWNER, "--out", tmp_path / "no-such-dir" / "map.svg")
    assert r.returncode == 1 and "cannot write" in r.stderr


def test_the_journal_map_is_coloured_by_kind_with_a_legend(journal_db, tmp_path):
    """Without an extractor every group is `passage`: the map was one blue. Now: one colour per kind
    (the engine never puts a dream and a note in one group), a legend of the kinds, and the axes in words."""
    out = tmp_path / "map.svg"
    r = run_cli("patterns", "map", "--db", journal_db, "--owner", OWNER, "--out", out, "--json", timeout=120)
    assert r.returncode == 0, r.stderr
    result = json.loads(r.stdout)
    kinds = {g["kind"] for g in result["groups"]}
    assert kinds == {"dream", "note"} and {g["category"] for g in result["groups"]} == {"passage"}
    root = assert_plain(out.read_text(encoding="utf-8"))
    drawn = texts(root)
    counts = {k: sum(1 for g in result["groups"] if g["kind"] == k) for k in kinds}
    assert f"dream ({counts['dream']})" in drawn and f"note ({counts['note']})" in drawn
    assert "Colour: kind of entry" in drawn
    assert "Closer circles are more alike. Circle area: distinct records." in drawn
    assert not any("spread of their centroids" in t for t in drawn)
    # Rendered: both colours are on the page (Okabe–Ito blue and orange at 55 % over the plot's grey).
    _, _, rows = render(out, tmp_path)

    def near(pixel, rgb, tol=14):
        return all(abs(a - b) <= tol for a, b in zip(pixel[:3], rgb))

    blue = sum(1 for row in rows for p in row if near(p, (112, 175, 210)))
    orange = sum(1 for row in rows for p in row if near(p, (239, 200, 112)))
    assert blue > 2000 and orange > 1000, (blue, orange)


def test_the_timeline_names_every_third_month(journal_db, tmp_path):
    out = tmp_path / "timeline.svg"
    r = run_cli("patterns", "timeline", "--db", journal_db, "--owner", OWNER, "--out", out, "--limit", "1",
                "--from", "2025-01-01", "--to", "2026-02-28", timeout=120)
    assert r.returncode == 0, r.stderr
    drawn = texts(assert_plain(out.read_text(encoding="utf-8")))
    months = [t for t in drawn if len(t) == 7 and t[4] == "-" and t[:4].isdigit()]
    assert months == ["2025-01", "2025-04", "2025-07", "2025-10", "2026-01", "2026-02"], months
