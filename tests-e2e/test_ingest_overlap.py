"""`kindred ingest` embeds the next batch while the last one commits: over the real binary, a file
ingested in many small batches (each embedded while the one before commits) gives the same records
and the same vectors as in one batch (nothing to overlap). int8 vectors do not depend on the batch
at all, so they must match bit for bit; float32 ones within 1e-6. Also `embedder.precision`: part of
the index version, and a bad value is refused naming the key."""

import json
import pathlib
import subprocess

import pytest

from conftest import BIN, run_cli

JOURNAL = pathlib.Path(__file__).resolve().parent.parent / "datasets" / "journal"


def journal_subset(tmp_path, n=96):
    f = tmp_path / "journal.jsonl"
    f.write_text("".join(JOURNAL.joinpath("records.jsonl").read_text().splitlines(keepends=True)[:n]))
    return f, n


def queries(n=8):
    return [json.loads(line)["query"] for line in JOURNAL.joinpath("queries.jsonl").read_text().splitlines()[:n]]


def ingest(tmp_path, name, f, precision, batch):
    db = tmp_path / f"{name}.sqlite"
    p = run_cli("ingest", "--db", db, "--owner", "me", "--json", "--set", f"embedder.precision={precision}",
                "--set", f"embedder.batchSize={batch}", f, timeout=600)
    assert p.returncode == 0, p.stderr
    return db, json.loads(p.stdout)


def search(db, precision, text):
    p = run_cli("search", "--db", db, "--owner", "me", "--mode", "semantic", "--limit", "20", "--json",
                "--set", f"embedder.precision={precision}", text)
    assert p.returncode == 0, p.stderr
    return [(r["id"], r["score"]) for r in json.loads(p.stdout)["results"]]


def status(db, precision):
    p = run_cli("status", "--db", db, "--owner", "me", "--json", "--set", f"embedder.precision={precision}")
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


@pytest.mark.parametrize("precision", ["int8", "float32"])
def test_overlapped_ingest_gives_the_same_records_and_vectors(tmp_path, precision):
    f, n = journal_subset(tmp_path)
    small, s1 = ingest(tmp_path, "small", f, precision, batch=5)
    whole, s2 = ingest(tmp_path, "whole", f, precision, batch=100000)
    assert s1 == dict(s2, file=s1["file"]) and s1["created"] == n and s1["embedded"] >= n, (s1, s2)
    for db in (small, whole):
        st = status(db, precision)
        assert st["indexed"] == st["searchable"] == n and st["pendingEmbeddings"] == 0, st
    for q in queries():
        a, b = search(small, precision, q), search(whole, precision, q)
        assert [i for i, _ in a] == [i for i, _ in b], q
        if precision == "int8":
            assert a == b, q
        else:
            assert max(abs(x - y) for (_, x), (_, y) in zip(a, b)) <= 1e-6, q


def test_batches_committed_before_kill_9_stay_and_the_rest_completes_the_same(tmp_path):
    """kill -9 while embedding one record a batch: what was committed stays, with no record half done;
    ingesting the file again embeds the rest, and every vector equals that of an uninterrupted ingest."""
    f, n = journal_subset(tmp_path, 336)
    db = tmp_path / "killed.sqlite"
    args = ["--set", "embedder.precision=int8", "--set", "embedder.batchSize=1"]
    proc = subprocess.Popen([BIN, "ingest", "--db", str(db), "--owner", "me", *args, str(f)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    killed_at = None
    while proc.poll() is None:
        if db.exists():
            st = status(db, "int8")
            if 0 < st["indexed"] < n:
                proc.kill()
                killed_at = st["indexed"]
                break
    proc.wait()
    assert killed_at is not None, "the ingest ended before it could be interrupted"
    st = status(db, "int8")
    # Every record was written before embedding began; each one is indexed or waiting, none lost.
    assert st["records"] == n and st["indexed"] >= killed_at and st["indexed"] + st["pendingEmbeddings"] == n, st
    p = run_cli("ingest", "--db", db, "--owner", "me", "--json", *args, f, timeout=600)
    assert p.returncode == 0, p.stderr
    again = json.loads(p.stdout)
    assert again["unchanged"] == n and again["embedded"] == n - st["indexed"], again
    whole, _ = ingest(tmp_path, "uninterrupted", f, "int8", batch=100000)
    for q in queries():
        assert search(db, "int8", q) == search(whole, "int8", q), q


def test_precision_is_part_of_the_index_version(tmp_path):
    f, n = journal_subset(tmp_path, 12)
    db, _ = ingest(tmp_path, "versions", f, "float32", batch=32)
    assert status(db, "float32")["indexVersion"] == "all-MiniLM-L6-v2@384"
    # Under int8 the float32 vectors are another version: every record waits for the embedder.
    st = status(db, "int8")
    assert st["indexVersion"] == "all-MiniLM-L6-v2@384;precision=int8"
    assert st["pendingEmbeddings"] == n and st["indexed"] == 0, st


def test_unknown_precision_is_refused_naming_the_key(tmp_path):
    f, _ = journal_subset(tmp_path, 2)
    db = tmp_path / "never.sqlite"
    p = run_cli("ingest", "--db", db, "--owner", "me", "--set", "embedder.precision=int4", f)
    assert p.returncode == 2 and not db.exists()
    assert "embedder.precision: expected auto, int8 or float32, got 'int4'" in p.stderr, p.stderr
    p = run_cli("embed", "--set", "embedder.precision=int4", "hello")
    assert p.returncode == 1
    assert "embedder.precision: expected auto, int8 or float32, got 'int4'" in p.stderr and "install" not in p.stderr, p.stderr
