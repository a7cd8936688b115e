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


# -- a reader that goes away: quiet, whatever the disposition of SIGPIPE -----------------------------

@pytest.mark.parametrize("args", [["--help"], ["search", "--help"], ["embed", "a text"], ["status", "--db", "{db}"]])
def test_a_closed_pipe_ends_the_command_quietly(tmp_path, args):
    """`kindred cluster status | head`: nats.c ignores SIGPIPE, and a write to the closed pipe then
    failed with EPIPE inside Foundation's FileHandle.write, a `try!` that crashed with a backtrace.
    Here the child inherits SIGPIPE ignored (restore_signals=False) and its stdout is a pipe whose
    reader is already gone: it must end as a command killed by SIGPIPE, with nothing on stderr."""
    import os
    import signal

    if "{db}" in args:
        args = [a.replace("{db}", str(_small_db(tmp_path))) for a in args]
    read, write = os.pipe()
    os.close(read)
    old = signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    try:
        p = subprocess.run([BIN, *args], stdout=write, stderr=subprocess.PIPE, restore_signals=False, timeout=120)
    finally:
        signal.signal(signal.SIGPIPE, old)
        os.close(write)
    assert p.returncode == -signal.SIGPIPE, (p.returncode, p.stderr[-2000:])
    assert p.stderr == b"", p.stderr[-2000:]


# -- write commands and a database that is not there -------------------------------------------------

@pytest.mark.parametrize("args", [["patterns", "refresh", "--owner", "o"], ["records", "delete", "x", "--owner", "o"],
                                  ["patterns", "correct", "undo", "1", "--owner", "o"], ["patterns", "label", "1", "L", "--owner", "o"]])
def test_write_commands_refuse_a_database_that_is_not_there(tmp_path, args):
    db = tmp_path / "mistyped.sqlite"
    p = run_cli(*args, "--db", db)
    assert p.returncode == 1, (p.returncode, p.stdout, p.stderr)
    assert f"no database at {db}" in p.stderr and p.stdout == ""
    assert not db.exists() and not tmp_path.joinpath(db.name + "-wal").exists()


def test_refresh_creates_a_database_only_when_told(tmp_path):
    db = tmp_path / "new.sqlite"
    p = run_cli("patterns", "refresh", "--db", db, "--owner", "o")
    assert p.returncode == 1 and "--create" in p.stderr and not db.exists()
    p = run_cli("patterns", "refresh", "--db", db, "--owner", "o", "--create")
    assert p.returncode == 0, p.stderr
    assert db.exists() and p.stdout.startswith("0 records grouped")
    p = run_cli("patterns", "findings", "--db", db, "--owner", "o", "--create")
    assert p.returncode == 2 and "--create" in p.stderr


@pytest.mark.parametrize("args", [["ingest", "--owner", "o", "{file}"], ["patterns", "refresh", "--owner", "o", "--create"],
                                  ["serve"]])
def test_a_missing_folder_is_said_in_words(tmp_path, args):
    f = tmp_path / "r.jsonl"
    f.write_text(json.dumps(record("a")) + "\n")
    db = tmp_path / "no-such-folder" / "k.sqlite"
    p = run_cli(*[str(f) if a == "{file}" else a for a in args], "--db", db, input="")
    assert p.returncode == 1, (p.returncode, p.stdout, p.stderr)
    assert f"there is no folder {db.parent}" in p.stderr, p.stderr
    assert "SQLite" not in p.stderr and "error 14" not in p.stderr
    assert not db.parent.exists()


# -- ingest: standard input, and every line that was not applied named -------------------------------

def test_ingest_reads_standard_input_and_names_lines_not_applied(tmp_path):
    """`ingest -` said "cannot read -"; a conflict was counted as "1 conflict", exit 0, with no line or id."""
    db = tmp_path / "stdin.sqlite"
    first = "\n".join(json.dumps(record(i, text=f"first text of {i}", vector_seed=n)) for n, i in enumerate(["d1", "d2", "d3"])) + "\n"
    p = run_cli("ingest", "--db", db, "--owner", "me", "-", input=first)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("ingested stdin: 3 created") and p.stderr == ""
    lines = [
        json.dumps(record("d1", text="first text of d1", vector_seed=0)),           # unchanged
        json.dumps(record("d2", text="an edit without a new revision")),            # conflict
        json.dumps(record("d3", revision=2, text="an edit with one", vector_seed=9)),  # updated
        json.dumps({"id": "d4", "revision": 1, "text": " "}),                        # refused
    ]
    p = run_cli("ingest", "--db", db, "--owner", "me", "-", input="\n".join(lines) + "\n")
    assert p.returncode == 3, (p.stdout, p.stderr)
    assert p.stderr.splitlines() == [
        "stdin:2: id d2: conflict: revision 1 is already stored with other text; give the change a higher revision",
        "stdin:4: record.text: must not be empty or blank",
    ]
    assert "1 updated, 1 unchanged, 0 stale, 1 conflict, 1 refused" in p.stdout

    run_cli("records", "delete", "d1", "--db", db, "--owner", "me")
    f = tmp_path / "old.jsonl"
    f.write_text(json.dumps(record("d3", text="first text of d3", vector_seed=2)) + "\n" + json.dumps(record("d1", text="first text of d1")) + "\n")
    p = run_cli("ingest", "--db", db, "--owner", "me", "--json", f)
    assert p.returncode == 3, (p.stdout, p.stderr)
    assert p.stderr.splitlines() == [
        f"{f}:1: id d3: stale: revision 1 is older than the stored revision 2; nothing was changed",
        f"{f}:2: id d1: stale: the record was deleted at revision 1; a revision above 1 brings it back",
    ]
    assert json.loads(p.stdout)["stale"] == 2


def test_a_bad_setting_is_named_before_a_missing_database(tmp_path):
    db = tmp_path / "missing.sqlite"
    p = run_cli("patterns", "refresh", "--db", db, "--owner", "o", "--set", "embedder.precision=int4")
    assert p.returncode == 2 and "embedder.precision: expected auto, int8 or float32, got 'int4'" in p.stderr, p.stderr
    assert not db.exists()
