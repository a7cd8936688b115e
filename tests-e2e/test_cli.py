"""The command line: help, usage errors, `ingest` with a bad line, `search --json`, `status`, `embed --file -`."""

import json
import subprocess

import pytest

from conftest import BIN, record, run_cli, vec


@pytest.mark.parametrize("args", [["--help"], ["help"], ["search", "--help"], ["ingest", "--help"],
                                  ["serve", "--help"], ["status", "--help"], ["help", "search"],
                                  ["embed", "--help"], ["lsp", "--help"], ["mcp", "--help"]])
def test_help_exits_0(args):
    p = run_cli(*args)
    assert p.returncode == 0, p.stderr
    assert "USAGE" in p.stdout


def test_search_help_lists_options():
    p = run_cli("search", "--help")
    for opt in ["--db", "--owner", "--mode", "--limit", "--json"]:
        assert opt in p.stdout


@pytest.mark.parametrize("args", [["frobnicate"], [], ["search", "--no-such-flag"], ["search", "--db", "x"],
                                  ["ingest", "--db", "x", "--owner", "o"], ["serve", "--set", "nonsense.key=1", "--db", "x"]])
def test_usage_errors_exit_2(tmp_path, args):
    p = run_cli(*args, cwd=tmp_path, input="")
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    assert p.stderr.strip(), "a usage error says what was wrong on stderr"


def test_unknown_command_exit_2():
    p = run_cli("frobnicate")
    assert p.returncode == 2
    assert "frobnicate" in p.stderr
    assert p.stdout == ""


def test_ingest_bad_lines_then_search(tmp_path):
    db = tmp_path / "cli.sqlite"
    f = tmp_path / "records.jsonl"
    lines = [
        json.dumps(record("fox", text="the quick brown fox jumps over the fence", kind="note", date="2024-03-01")),
        json.dumps(record("dog", text="lazy dogs sleep all afternoon", vector=vec(2))),
        json.dumps({"id": "bad", "revision": 0, "text": "revision zero"}),
        "",
        "{this is not json",
        json.dumps(record("cat", text="a cat watches the fox from the fence")),
        json.dumps({"id": "nov", "revision": 1}),
    ]
    f.write_text("\n".join(lines) + "\n")
    p = run_cli("ingest", "--db", db, "--owner", "me", f, timeout=300)
    assert p.returncode == 3, (p.stdout, p.stderr)
    err = p.stderr
    assert f"{f}:3:" in err and "revision" in err
    assert f"{f}:5:" in err
    assert f"{f}:7:" in err and "text" in err
    for good in [1, 2, 6]:
        assert f"{f}:{good}:" not in err
    assert "3 created" in p.stdout and "3 refused" in p.stdout

    p = run_cli("search", "--db", db, "--owner", "me", "--mode", "keyword", "--json", "fox")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["mode"] == "keyword"
    assert sorted(r["id"] for r in out["results"]) == ["cat", "fox"]
    fox = next(r for r in out["results"] if r["id"] == "fox")
    assert fox["kind"] == "note" and fox["date"] == "2024-03-01" and "fox" in fox["passage"]["text"]

    p = run_cli("search", "--db", db, "--owner", "me", "--mode", "keyword", "--json", "revision")
    assert p.returncode == 4 and json.loads(p.stdout)["results"] == []
    p = run_cli("search", "--db", db, "--owner", "someone-else", "--mode", "keyword", "--json", "fox")
    assert p.returncode == 4 and json.loads(p.stdout)["results"] == []

    # Ingesting the same file again: nothing changes, the same lines are refused.
    p = run_cli("ingest", "--db", db, "--owner", "me", "--json", f, timeout=300)
    assert p.returncode == 3
    summary = json.loads(p.stdout)
    assert summary["created"] == 0 and summary["unchanged"] == 3 and summary["refused"] == 3

    p = run_cli("status", "--db", db, "--owner", "me", "--json")
    assert p.returncode == 0
    assert json.loads(p.stdout)["records"] == 3


def test_ingest_clean_file_exits_0_and_serve_sees_it(tmp_path, spawn):
    db = tmp_path / "clean.sqlite"
    f = tmp_path / "ok.jsonl"
    f.write_text("".join(json.dumps(record(f"r{i}", text=f"clean line {i}", vector=vec(i))) + "\n" for i in range(50)))
    p = run_cli("ingest", "--db", db, "--owner", "me", "--json", f)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["created"] == 50
    srv = spawn(db_path=db)
    srv.initialize()
    res = srv.result("search/query", {"owner": "me", "vector": vec(17), "limit": 1})
    assert [r["id"] for r in res["results"]] == ["r17"]


def test_ingest_missing_file_exits_1(tmp_path):
    p = run_cli("ingest", "--db", tmp_path / "x.sqlite", "--owner", "me", tmp_path / "nope.jsonl")
    assert p.returncode == 1
    assert "nope.jsonl" in p.stderr


# -- read-only commands on a missing database, bad option values, an owner with no records --------

@pytest.mark.parametrize("args", [["search", "--owner", "o", "train"], ["status"], ["patterns", "findings", "--owner", "o"],
                                  ["patterns", "show", "1", "--owner", "o"], ["tombstones", "purge", "--before", "2024-01-01"]])
def test_read_only_commands_never_create_a_database(tmp_path, args):
    missing = tmp_path / "nowhere" / "missing.sqlite"
    for db in (missing, tmp_path / "missing.sqlite"):
        p = run_cli(*args, "--db", db)
        assert p.returncode == 1, (p.returncode, p.stdout, p.stderr)
        assert str(db) in p.stderr and "no database" in p.stderr
        assert not db.exists() and not db.parent.joinpath(db.name + "-wal").exists()


def _small_db(tmp_path):
    db = tmp_path / "cli.sqlite"
    f = tmp_path / "r.jsonl"
    f.write_text(json.dumps(record("fox", text="the quick brown fox", vector=vec(1))) + "\n")
    p = run_cli("ingest", "--db", db, "--owner", "me", f, timeout=300)
    assert p.returncode == 0, p.stderr
    return db


@pytest.mark.parametrize("args,option", [
    (["--mode", "fuzzy"], "--mode"), (["--limit", "abc"], "--limit"), (["--limit", "0"], "--limit"), (["--limit", "100000"], "--limit"),
    (["--from", "last week"], "--from"), (["--to", "2024-13-45"], "--to"),
])
def test_bad_option_values_exit_2_in_plain_words(tmp_path, args, option):
    db = _small_db(tmp_path)
    p = run_cli("search", "--db", db, "--owner", "me", *args, "fox")
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    assert option in p.stderr
    assert "-326" not in p.stderr and "invalid params" not in p.stderr, p.stderr
    p = run_cli("patterns", "findings", "--db", db, "--owner", "me", "--from", "someday")
    assert p.returncode == 2 and "--from" in p.stderr and "-326" not in p.stderr, p.stderr


def test_search_for_an_owner_without_records_says_so(tmp_path):
    db = _small_db(tmp_path)
    p = run_cli("search", "--db", db, "--owner", "nobody", "--mode", "keyword", "fox")
    assert p.returncode == 4, (p.stdout, p.stderr)
    assert "owner 'nobody' has no records" in p.stderr and str(db) in p.stderr
    p = run_cli("search", "--db", db, "--owner", "me", "--mode", "keyword", "zebra")
    assert p.returncode == 4
    assert "nothing matched" in p.stderr and "has no records" not in p.stderr
    p = run_cli("search", "--db", db, "--owner", "me", "--mode", "keyword", "fox")
    assert p.returncode == 0 and "fox" in p.stdout and p.stderr == ""


# -- embed: texts from standard input --------------------------------------------------------------

def _vectors(stdout):
    rows = [json.loads(line) for line in stdout.splitlines()]
    for r in rows:
        assert len(r) == 384 and abs(sum(x * x for x in r) - 1.0) < 1e-3, "unit vectors of the model's 384 dimensions"
    return rows


def _cosine(a, b):
    return sum(x * y for x, y in zip(a, b))


def test_embed_reads_texts_from_standard_input_one_per_line(tmp_path):
    texts = ["I kept missing the train.", "", "A dog barked all night next door."]
    piped = run_cli("embed", "--file", "-", input="\n".join(texts) + "\n", timeout=120)
    assert piped.returncode == 0, piped.stderr
    from_stdin = _vectors(piped.stdout)
    assert len(from_stdin) == 3, "one vector per line, the empty line included"

    # The same lines from a file: the same output, byte for byte.
    f = tmp_path / "texts.txt"
    f.write_text("\n".join(texts) + "\n")
    from_file = run_cli("embed", "--file", f, timeout=120)
    assert from_file.returncode == 0 and from_file.stdout == piped.stdout, from_file.stderr

    # In input order: each line's vector is the one of that text given as an argument.
    alone = [_vectors(run_cli("embed", t, timeout=120).stdout)[0] for t in (texts[0], texts[2])]
    assert _cosine(from_stdin[0], alone[0]) > 0.9999 and _cosine(from_stdin[2], alone[1]) > 0.9999
    assert _cosine(from_stdin[0], from_stdin[2]) < 0.5

    # Arguments come first, then the lines; no trailing newline is needed; --file=- is the same.
    both = run_cli("embed", "--file=-", "A dog barked all night next door.", input="I kept missing the train.", timeout=120)
    assert both.returncode == 0, both.stderr
    first, second = _vectors(both.stdout)
    assert _cosine(first, alone[1]) > 0.9999 and _cosine(second, alone[0]) > 0.9999


def test_embed_from_empty_or_unreadable_standard_input():
    p = run_cli("embed", "--file", "-", input="")
    assert p.returncode == 0 and p.stdout == "" and p.stderr == "", (p.returncode, p.stdout, p.stderr)
    p = subprocess.run([BIN, "embed", "--file", "-"], input=b"caf\xe9\n", capture_output=True, timeout=60)
    assert p.returncode == 1 and p.stdout == b""
    assert b"standard input is not UTF-8" in p.stderr, p.stderr
