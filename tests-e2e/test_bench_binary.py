"""The benchmarks' programs stay out of the shipped command: `kindred` has no bench subcommands, and
`kindred-bench` (built beside it) runs the measurements behind bench/ on real components."""

import json
import os
import random
import struct
import subprocess

import pytest

from conftest import BIN, run_cli

BENCH_BIN = os.environ.get("KINDRED_BENCH_BIN", os.path.join(os.path.dirname(BIN), "kindred-bench"))
OLD_SUBCOMMANDS = ["embed-bench", "bench-search", "bench-grouping"]


def run_bench(*args, timeout=120):
    assert os.access(BENCH_BIN, os.X_OK), f"kindred-bench not found at {BENCH_BIN}: `swift build -c release` builds it"
    return subprocess.run([BENCH_BIN, *map(str, args)], capture_output=True, text=True, timeout=timeout)


def test_kindred_help_lists_no_bench_command():
    p = run_cli("--help")
    assert p.returncode == 0, p.stderr
    assert "bench" not in p.stdout.lower()


@pytest.mark.parametrize("command", OLD_SUBCOMMANDS)
def test_kindred_refuses_the_old_bench_subcommands(command):
    p = run_cli(command, "--help")
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert f"unknown command '{command}'" in p.stderr
    assert p.stdout == ""


def test_kindred_bench_help_lists_its_commands():
    p = run_bench("--help")
    assert p.returncode == 0, p.stderr
    for command in ["embedder", "search", "grouping"]:
        assert f"\n  {command} " in p.stdout
    p = run_bench("frobnicate")
    assert p.returncode == 2 and "unknown command 'frobnicate'" in p.stderr


def write_f32(path, rows):
    with open(path, "wb") as f:
        for r in rows:
            f.write(struct.pack(f"<{len(r)}f", *r))


def test_kindred_bench_search_finds_the_exact_top_k(tmp_path):
    # 300 random rows of 16 dimensions through a real store; each query's top 5 by cosine, computed here.
    rng = random.Random(5)
    dim, k = 16, 5
    base = [[rng.uniform(-1, 1) for _ in range(dim)] for _ in range(300)]
    queries = [[rng.uniform(-1, 1) for _ in range(dim)] for _ in range(6)]
    write_f32(tmp_path / "base.f32", base)
    write_f32(tmp_path / "queries.f32", queries)
    p = run_bench("search", "--base", tmp_path / "base.f32", "--queries", tmp_path / "queries.f32",
                  "--db", tmp_path / "bench.sqlite", "--dim", dim, "--k", k)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["n"] == 300 and out["queries"] == 6 and out["batch_matches_single"] is True

    def unit(v):
        n = sum(x * x for x in v) ** 0.5
        return [x / n for x in v]

    ub = [unit(r) for r in base]
    for q, got in zip(queries, out["topk"]):
        uq = unit(q)
        scores = [sum(a * b for a, b in zip(uq, r)) for r in ub]
        assert got == sorted(range(len(base)), key=lambda i: -scores[i])[:k]


def test_kindred_bench_grouping_speed_on_synthetic_data():
    p = run_bench("grouping", "speed", "--synthetic", "--n", 1000, "--clusters", 10, "--place", 5)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["n"] == 1000 and out["placements"] == 5 and out["groups"] > 0
    assert out["place_one_ms_median"] <= out["place_one_ms_max"]
