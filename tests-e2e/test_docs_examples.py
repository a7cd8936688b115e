"""Every request/response example in docs/ is replayed against the real server (see docs_examples.py):
a method whose answer changes shape breaks this test, not the reader."""

import pathlib

import pytest

from conftest import REPO, Server
from docs_examples import compare, expand_ellipses, parse_values, read_doc, replay, steps

# Every page with JSON examples (docs/library.md has Swift only).
DOCS = sorted(p for p in (REPO / "docs").glob("*.md") if "```json" in p.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_every_example_matches_the_server(path, tmp_path):
    doc = read_doc(path)
    assert steps(doc), f"{path.name} has no runnable example"
    count = [0]

    def start(args, initialize=True):
        count[0] += 1
        s = Server(tmp_path / f"docs-{count[0]}.sqlite", tmp_path, args=args)
        if initialize:
            s.initialize()
        return s

    problems = replay(doc, start)
    assert not problems, f"{len(problems)} differences between {path.name} and the server:\n" + "\n".join(problems)


def test_the_comparison_catches_a_changed_shape():
    doc = parse_values('{"results":[{"id":"a","score":0.5,"kind":null}, …],"mode":"hybrid","took":"…ms"}')[0]
    same = {"results": [{"id": "a", "score": 0.91, "kind": None}, {"id": "b", "score": 0.2, "kind": None}], "mode": "hybrid", "took": "12ms"}
    problems = []
    compare(doc, same, "x", set(), problems)
    assert problems == []
    for changed in (
        {**same, "extra": 1},                                              # a key the docs do not show
        {"results": same["results"]},                                      # a documented key missing
        {**same, "mode": "keyword"},                                       # another value
        {**same, "results": [{"id": "a", "score": "high", "kind": None}]},  # another type
        {**same, "results": [{"id": "a", "score": 0.9, "kind": "note"}]},   # null became a string
        {**same, "results": []},                                           # fewer elements than shown
    ):
        problems = []
        compare(doc, changed, "x", set(), problems)
        assert problems, changed
    problems = []
    compare({"durationMs": 12, "n": 3}, {"durationMs": 40, "n": 3}, "x", {"durationMs"}, problems)
    assert problems == []


def test_ellipses_become_json():
    assert parse_values(expand_ellipses('{"records":0, …}')) == [{"records": 0, "…": "…"}]
    assert parse_values('[0.01, …] {"a":"b …"}') == [[0.01, "…"], {"a": "b …"}]


def test_recipes_use_a_fresh_temporary_folder():
    """Two people (or two runs) on one machine must not share a fixed folder: recipes use `mktemp -d`."""
    import re

    for path in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        for block in re.findall(r"```(?:bash|sh)\n(.*?)```", path.read_text(encoding="utf-8"), re.S):
            assert not re.search(r"(?<![\w$])/tmp/", block), f"{path.name}: a fixed /tmp path in\n{block}"

