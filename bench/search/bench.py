#!/usr/bin/env python3
"""Side-by-side exact cosine top-k search: Kindred vs numpy, FAISS IndexFlatIP, sqlite-vec vec0, usearch.

Run through bench/search/run.sh (it sets up the venv and the one-thread environment). Every engine runs
in its own subprocess on the same base vectors and queries; the parent generates the data, collects each
child's JSON and its peak RSS (wait4), computes recall@k against numpy's exact result, and writes a
Markdown report to bench/results/search-YYYYMMDD.md.

Usage: bench.py [options] N [N ...]
"""
from __future__ import annotations

import argparse
import datetime as _dt
import glob
import json
import os
import platform
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
RESULTS = os.path.join(REPO, "bench", "results")

ENGINES = ["numpy", "kindred", "faiss", "sqlite-vec", "usearch"]
LABELS = {"numpy": "numpy (BLAS)", "kindred": "Kindred", "faiss": "FAISS IndexFlatIP",
          "sqlite-vec": "sqlite-vec vec0", "usearch": "usearch exact"}
THREAD_VARS = ["OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS",
               "NUMEXPR_NUM_THREADS"]
NUMPY_UNSET = ["OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"]
GEN_CHUNK = 100_000  # rows generated per draw; fixed so that a smaller N is a prefix of a larger one


def log(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------------------------
# Data


def generate(path: str, rows: int, dim: int, seed: int) -> None:
    import numpy as np
    rng = np.random.default_rng(seed)
    tmp = path + ".part"
    with open(tmp, "wb") as f:
        done = 0
        while done < rows:
            m = min(GEN_CHUNK, rows - done)
            x = rng.standard_normal((m, dim), dtype=np.float32)
            x /= np.linalg.norm(x, axis=1, keepdims=True)
            x.astype("<f4", copy=False).tofile(f)
            done += m
    os.replace(tmp, path)


def ensure_data(n: int, dim: int, nq: int, seed: int, qseed: int) -> str:
    d = os.path.join(RESULTS, "data", f"n{n}-d{dim}-seed{seed}-q{nq}-qseed{qseed}")
    os.makedirs(d, exist_ok=True)
    for name, rows, s in (("base.f32", n, seed), ("queries.f32", nq, qseed)):
        p = os.path.join(d, name)
        if os.path.exists(p) and os.path.getsize(p) == rows * dim * 4:
            log(f"reusing {os.path.relpath(p, REPO)}")
            continue
        log(f"generating {os.path.relpath(p, REPO)} ({rows} x {dim}, seed {s})")
        generate(p, rows, dim, s)
    return d


def ensure_real_data(vectors: str, n: int, dim: int, nq: int) -> str:
    """Base = the first n rows of `vectors` (raw float32, e.g. MiniLM vectors of a text corpus),
    queries = its last nq rows (texts the base does not hold); both L2-normalised."""
    import numpy as np
    x = np.fromfile(vectors, dtype="<f4").reshape(-1, dim)
    if n + nq > len(x):
        raise SystemExit(f"--vectors {vectors}: {len(x)} rows, fewer than N + queries = {n + nq}")
    name = os.path.splitext(os.path.basename(vectors))[0]
    d = os.path.join(RESULTS, "data", f"real-{name}-n{n}-d{dim}-q{nq}")
    os.makedirs(d, exist_ok=True)
    for fname, rows in (("base.f32", x[:n]), ("queries.f32", x[len(x) - nq:])):
        rows = rows / np.linalg.norm(rows, axis=1, keepdims=True)
        rows.astype("<f4").tofile(os.path.join(d, fname))
    log(f"real vectors: base = first {n} rows, queries = last {nq} rows of {vectors}")
    return d


def load_f32(path: str, dim: int):
    import numpy as np
    return np.fromfile(path, dtype="<f4").reshape(-1, dim)


# ----------------------------------------------------------------------------------------------
# Child side: one engine per process


def percentile(sorted_vals, p):
    return sorted_vals[min(len(sorted_vals) - 1, int(round(p * (len(sorted_vals) - 1))))]


def time_single(search_one, Q, budget_s: float):
    """Warm-up once, then time each query alone. If the first 10 predict more than budget_s for the whole
    set, stop after 100 queries (marked as partial)."""
    search_one(Q[0])  # warm-up
    lat, topk = [], []
    limit = len(Q)
    for i, q in enumerate(Q):
        if i >= limit:
            break
        t = time.perf_counter()
        ids = search_one(q)
        lat.append((time.perf_counter() - t) * 1000.0)
        topk.append([int(x) for x in ids])
        if i == 9 and limit == len(Q) and sum(lat) / 1000.0 * len(Q) / 10 > budget_s:
            limit = min(len(Q), 100)
            log(f"single queries: first 10 took {sum(lat):.1f} ms; timing only the first {limit}")
    s = sorted(lat)
    return {"median": percentile(s, 0.5), "p95": percentile(s, 0.95), "mean": sum(lat) / len(lat),
            "n": len(lat)}, topk


def topk_rows(scores, k):
    """Row indices of the k largest scores, best first (scores: 1-D or 2-D, one row per query)."""
    import numpy as np
    n = scores.shape[-1]
    if scores.ndim == 1:
        idx = np.argpartition(scores, n - k)[n - k:]  # no negated copy of the scores
        return idx[np.argsort(-scores[idx], kind="stable")]
    idx = np.argpartition(scores, n - k, axis=1)[:, n - k:]
    part = np.take_along_axis(scores, idx, axis=1)
    order = np.argsort(-part, axis=1, kind="stable")
    return np.take_along_axis(idx, order, axis=1)


def blas_info():
    """Which OpenBLAS kernel numpy's BLAS picked (threadpoolctl if installed, else ctypes on the bundled lib)."""
    info = {}
    try:
        import threadpoolctl  # optional
        for lib in threadpoolctl.threadpool_info():
            if lib.get("user_api") == "blas":
                info = {"source": "threadpoolctl", "internal_api": lib.get("internal_api"),
                        "architecture": lib.get("architecture"), "num_threads": lib.get("num_threads"),
                        "version": lib.get("version")}
                break
        if info:
            return info
    except Exception:
        pass
    try:
        import ctypes
        import numpy as np
        libdir = os.path.join(os.path.dirname(os.path.dirname(np.__file__)), "numpy.libs")
        for path in glob.glob(os.path.join(libdir, "*openblas*.so*")):
            lib = ctypes.CDLL(path)
            for pre in ("", "scipy_"):
                for suf in ("", "64_", "_64"):
                    name = f"{pre}openblas_get_corename{suf}"
                    if hasattr(lib, name):
                        f = getattr(lib, name)
                        f.restype = ctypes.c_char_p
                        info = {"source": "ctypes", "library": os.path.basename(path),
                                "architecture": f().decode()}
                        g = getattr(lib, f"{pre}openblas_get_num_threads{suf}", None)
                        if g is not None:
                            info["num_threads"] = g()
                        return info
    except Exception as e:  # pragma: no cover - informative only
        info = {"error": str(e)}
    return info


def child(args) -> None:
    import numpy as np
    dim, k = args.dim, args.k
    base_path = os.path.join(args.data, "base.f32")
    q_path = os.path.join(args.data, "queries.f32")
    Q = np.ascontiguousarray(load_f32(q_path, dim))
    work = args.work
    os.makedirs(work, exist_ok=True)
    out = {"engine": args.child}
    budget = args.loop_budget

    if args.child == "numpy":
        out["blas"] = blas_info()
        out["numpy"] = np.__version__
        path = os.path.join(work, "base.npy")
        t = time.perf_counter()
        cpu0 = time.process_time()  # CPU seconds of this process (ingest_cpu_s)
        X = np.ascontiguousarray(load_f32(base_path, dim))
        np.save(path, X)
        out["ingest_s"] = time.perf_counter() - t
        out["ingest_cpu_s"] = time.process_time() - cpu0
        del X
        t = time.perf_counter()
        X = np.load(path)
        out["open_s"] = time.perf_counter() - t
        out["single_ms"], topk = time_single(lambda q: topk_rows(X @ q, k), Q, budget)
        # Query blocks whose score matrix stays around 64 MB (16..256 queries), into one reused buffer.
        block = max(16, min(256, (64 << 20) // (4 * X.shape[0])))
        t = time.perf_counter()
        buf = np.empty((min(block, len(Q)), X.shape[0]), dtype=np.float32)
        res = []
        for s in range(0, len(Q), block):
            qb = Q[s:s + block]
            scores = buf[:len(qb)]
            np.matmul(qb, X.T, out=scores)
            res.append(topk_rows(scores, k))
        batch = np.concatenate(res)
        out["batch_s"] = time.perf_counter() - t
        out["batch_block"] = block
        out["batch_topk"] = batch.tolist()

    elif args.child == "faiss":
        import faiss
        faiss.omp_set_num_threads(1)
        out["faiss"] = faiss.__version__
        out["faiss_omp_threads"] = faiss.omp_get_max_threads()
        path = os.path.join(work, "flat.faiss")
        t = time.perf_counter()
        cpu0 = time.process_time()  # CPU seconds of this process (ingest_cpu_s)
        X = np.ascontiguousarray(load_f32(base_path, dim))
        index = faiss.IndexFlatIP(dim)
        index.add(X)
        faiss.write_index(index, path)
        out["ingest_s"] = time.perf_counter() - t
        out["ingest_cpu_s"] = time.process_time() - cpu0
        del index, X
        t = time.perf_counter()
        index = faiss.read_index(path)
        out["open_s"] = time.perf_counter() - t
        out["single_ms"], topk = time_single(lambda q: index.search(q.reshape(1, -1), k)[1][0], Q, budget)
        t = time.perf_counter()
        _, I = index.search(Q, k)
        out["batch_s"] = time.perf_counter() - t
        out["batch_topk"] = I.tolist()

    elif args.child == "usearch" and args.usearch_mode == "flat":
        # usearch's brute-force search over a plain array: no index, the persisted form is a .npy.
        import usearch
        from usearch.index import MetricKind, search
        out["usearch"] = usearch.__version__
        out["mode"] = "flat"
        path = os.path.join(work, "base.npy")
        t = time.perf_counter()
        cpu0 = time.process_time()  # CPU seconds of this process (ingest_cpu_s)
        np.save(path, np.ascontiguousarray(load_f32(base_path, dim)))
        out["ingest_s"] = time.perf_counter() - t
        out["ingest_cpu_s"] = time.process_time() - cpu0
        t = time.perf_counter()
        X = np.load(path)
        out["open_s"] = time.perf_counter() - t
        out["single_ms"], topk = time_single(
            lambda q: search(X, q, k, MetricKind.IP, exact=True, threads=1).keys, Q, budget)
        t = time.perf_counter()
        m = search(X, Q, k, MetricKind.IP, exact=True, threads=1)
        out["batch_s"] = time.perf_counter() - t
        out["batch_topk"] = m.keys.astype(np.int64).tolist()

    elif args.child == "usearch":
        import usearch
        from usearch.index import Index
        out["usearch"] = usearch.__version__
        out["mode"] = "index"
        path = os.path.join(work, "index.usearch")
        t = time.perf_counter()
        cpu0 = time.process_time()  # CPU seconds of this process (ingest_cpu_s)
        X = np.ascontiguousarray(load_f32(base_path, dim))
        index = Index(ndim=dim, metric="ip", dtype="f32")
        n = X.shape[0]
        step = 50_000
        for s in range(0, n, step):  # same work as one add(); chunked only to print progress
            index.add(np.arange(s, min(n, s + step), dtype=np.uint64), X[s:s + step], threads=1)
            if n > step:
                log(f"usearch add {min(n, s + step)}/{n} ({time.perf_counter() - t:.0f}s)")
        index.save(path)
        out["ingest_s"] = time.perf_counter() - t
        out["ingest_cpu_s"] = time.process_time() - cpu0
        del index, X
        t = time.perf_counter()
        index = Index.restore(path)
        out["open_s"] = time.perf_counter() - t
        out["single_ms"], topk = time_single(
            lambda q: index.search(q, k, exact=True, threads=1).keys, Q, budget)
        t = time.perf_counter()
        m = index.search(Q, k, exact=True, threads=1)
        out["batch_s"] = time.perf_counter() - t
        out["batch_topk"] = m.keys.astype(np.int64).tolist()

    elif args.child == "sqlite-vec":
        import sqlite3
        import sqlite_vec
        path = os.path.join(work, "vec.sqlite")
        for suf in ("", "-wal", "-shm", "-journal"):
            if os.path.exists(path + suf):
                os.remove(path + suf)

        def connect():
            c = sqlite3.connect(path)
            c.enable_load_extension(True)
            sqlite_vec.load(c)
            c.enable_load_extension(False)
            return c

        metric = args.sqlite_vec_metric
        sql = "SELECT rowid FROM v WHERE embedding MATCH ? AND k = ? ORDER BY distance"
        t = time.perf_counter()
        cpu0 = time.process_time()  # CPU seconds of this process (ingest_cpu_s)
        X = load_f32(base_path, dim)
        c = connect()
        out["sqlite"] = sqlite3.sqlite_version
        out["sqlite_vec"] = c.execute("SELECT vec_version()").fetchone()[0]
        out["metric"] = metric
        c.execute(f"CREATE VIRTUAL TABLE v USING vec0(embedding float[{dim}] distance_metric={metric})")
        n = X.shape[0]
        step = 10_000
        last = time.perf_counter()
        for s in range(0, n, step):
            with c:  # one transaction per 10 000 rows
                c.executemany("INSERT INTO v(rowid, embedding) VALUES (?, ?)",
                              ((s + i + 1, X[s + i].tobytes()) for i in range(min(step, n - s))))
            if time.perf_counter() - last > 10 or s + step >= n:
                last = time.perf_counter()
                log(f"sqlite-vec insert {min(n, s + step)}/{n} ({last - t:.0f}s)")
        c.close()
        out["ingest_s"] = time.perf_counter() - t
        out["ingest_cpu_s"] = time.process_time() - cpu0
        del X
        t = time.perf_counter()
        c = connect()
        c.execute(sql, (Q[0].tobytes(), k)).fetchall()
        out["open_s"] = time.perf_counter() - t

        def one(q):
            return [r[0] - 1 for r in c.execute(sql, (q.tobytes(), k))]

        out["single_ms"], topk = time_single(one, Q, budget)
        # No batch API: the whole query set in a loop. Extrapolate from 100 queries if it would exceed the budget.
        est = out["single_ms"]["mean"] / 1000.0 * len(Q)
        m = len(Q) if est <= budget else min(len(Q), 100)
        t = time.perf_counter()
        for q in Q[:m]:
            one(q)
        el = time.perf_counter() - t
        out["batch_s"] = el * len(Q) / m
        out["batch_extrapolated_from"] = m if m < len(Q) else None
        c.close()
    else:
        raise SystemExit(f"unknown engine {args.child}")

    out["topk"] = topk
    if "batch_topk" in out:
        out["batch_matches_single"] = out["batch_topk"][:len(topk)] == topk
    with open(os.path.join(work, "..", f"{args.child}.json"), "w") as f:
        json.dump(out, f)


# ----------------------------------------------------------------------------------------------
# Parent side


def child_env(engine: str) -> dict:
    env = dict(os.environ)
    for v in THREAD_VARS:
        env[v] = "1"
    if engine == "numpy":
        for v in NUMPY_UNSET:
            env.pop(v, None)
    return env


def run_child(engine: str, cmd: list, env: dict, stdout_path: str):
    """Run one engine; return (exit code, wall seconds, peak RSS KB of that child alone)."""
    t = time.perf_counter()
    with open(stdout_path, "wb") as so:
        p = subprocess.Popen(cmd, env=env, stdout=so)
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, time.perf_counter() - t, ru.ru_maxrss


def recall(pred, truth, k):
    n = min(len(pred), len(truth))
    if n == 0:
        return None
    return sum(len(set(pred[i][:k]) & set(truth[i][:k])) for i in range(n)) / (n * k)


def recall_ties(pred, truth, k, X, Q):
    """Recall where exact ties count: a returned row outside numpy's top k still counts when its
    score, in float64, is at least that of the worst row numpy returned (two copies of one vector
    tie exactly; which of them a top k holds is the engine's choice)."""
    import numpy as np
    n = min(len(pred), len(truth))
    if n == 0:
        return None
    hits = 0
    for i in range(n):
        want = set(truth[i][:k])
        got = pred[i][:k]
        extra = [j for j in got if j not in want]
        hits += len(got) - len(extra)
        if extra:
            q = Q[i].astype(np.float64)
            worst = min(float(X[j].astype(np.float64) @ q) for j in truth[i][:k])
            hits += sum(1 for j in extra if float(X[j].astype(np.float64) @ q) >= worst)
    return hits / (n * k)


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def git_rev() -> str:
    try:
        rev = subprocess.check_output(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], text=True).strip()
        dirty = subprocess.run(["git", "-C", REPO, "diff", "--quiet", "HEAD", "--", "Sources", "Package.swift"]).returncode
        return rev + (" + uncommitted changes in Sources" if dirty else "")
    except Exception:
        return "unknown"


def fmt(v, digits=3):
    if v is None:
        return "—"
    if isinstance(v, str):
        return v
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    if v >= 1:
        return f"{v:.2f}"
    return f"{v:.{digits}f}"


def bench_size(n: int, a, skips: set, kindred_bin: str) -> dict:
    data = ensure_real_data(a.vectors, n, a.dim, a.queries) if a.vectors else ensure_data(n, a.dim, a.queries, a.seed, a.query_seed)
    runroot = os.path.join(RESULTS, "runs", f"n{n}")
    os.makedirs(runroot, exist_ok=True)
    results = {}
    for engine in a.engines:
        if engine in skips or f"{engine}@{n}" in skips:
            log(f"N={n}: {engine} skipped (--skip)")
            results[engine] = {"skipped": True}
            continue
        work = os.path.join(runroot, engine)
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        jpath = os.path.join(runroot, f"{engine}.json")
        if os.path.exists(jpath):
            os.remove(jpath)
        env = child_env(engine)
        if engine == "kindred":
            cmd = [kindred_bin, "search", "--base", os.path.join(data, "base.f32"),
                   "--queries", os.path.join(data, "queries.f32"), "--db", os.path.join(work, "kindred.sqlite"),
                   "--dim", str(a.dim), "--k", str(a.k), "--threads", "1"]
            for x in a.kindred_arg:  # "--batch-threshold=16" -> "--batch-threshold", "16"
                cmd += x.split("=", 1) if x.startswith("--") and "=" in x else [x]
            stdout_path = jpath
        else:
            cmd = [sys.executable, os.path.abspath(__file__), "--child", engine, "--data", data, "--work", work,
                   "--dim", str(a.dim), "--k", str(a.k), "--loop-budget", str(a.loop_budget),
                   "--sqlite-vec-metric", a.sqlite_vec_metric, "--usearch-mode", a.usearch_mode]
            stdout_path = os.path.join(runroot, f"{engine}.stdout")
        log(f"N={n}: running {engine}")
        rc, wall, rss = run_child(engine, cmd, env, stdout_path)
        if rc != 0:
            log(f"N={n}: {engine} FAILED (exit {rc})")
            results[engine] = {"failed": rc}
            continue
        try:
            with open(jpath) as f:
                r = json.load(f)
        except (OSError, ValueError) as e:
            log(f"N={n}: {engine} printed no readable JSON ({e}); see {os.path.relpath(jpath, REPO)}")
            results[engine] = {"failed": "bad output"}
            continue
        r["peak_rss_kb_wait4"] = rss
        r["wall_s"] = wall
        results[engine] = r
        log(f"N={n}: {engine} done in {wall:.1f}s")
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)

    # Ground truth: numpy's exact batch result (computed here if numpy was skipped).
    truth = results.get("numpy", {}).get("batch_topk")
    if truth is None:
        import numpy as np
        X = load_f32(os.path.join(data, "base.f32"), a.dim)
        Q = load_f32(os.path.join(data, "queries.f32"), a.dim)
        truth = np.concatenate([topk_rows(Q[s:s + 16] @ X.T, a.k) for s in range(0, len(Q), 16)]).tolist()
        del X
    import numpy as np
    X = np.memmap(os.path.join(data, "base.f32"), dtype="<f4", mode="r").reshape(-1, a.dim)
    Q = load_f32(os.path.join(data, "queries.f32"), a.dim)
    for engine, r in results.items():
        if "topk" in r:
            r["recall_plain"] = recall(r["topk"], truth, a.k)
            r["recall"] = recall_ties(r["topk"], truth, a.k, X, Q)
            r["recall_n"] = min(len(r["topk"]), len(truth))
    del X
    return results


def render(n: int, results: dict, a) -> str:
    def num(x):
        return f"{x:,}".replace(",", " ")
    lines = [f"### N = {num(n)} (d = {a.dim}, k = {a.k}, {num(a.queries)} queries, 1 thread)", "",
             "| engine | ingest s | open s | single median ms | single p95 ms | batch 1000 s | recall@10 | peak RSS MB |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    notes = []
    for engine in a.engines:
        r = results.get(engine, {})
        label = LABELS[engine]
        if r.get("skipped"):
            lines.append(f"| {label} | skipped | | | | | | |")
            notes.append(f"{label} skipped at N = {n} (--skip).")
            continue
        if "failed" in r:
            lines.append(f"| {label} | failed (exit {r['failed']}) | | | | | | |")
            continue
        sm = r["single_ms"]
        single_mark = ""
        if sm.get("n", a.queries) < a.queries:
            single_mark = "†"
            notes.append(f"† {label}: single-query figures and recall from the first {sm['n']} queries only (time budget).")
        batch = fmt(r["batch_s"])
        if r.get("batch_extrapolated_from"):
            batch = f"≈{batch}*"
            notes.append(f"* {label}: batch extrapolated ×{a.queries // r['batch_extrapolated_from']} from the first "
                         f"{r['batch_extrapolated_from']} queries (no batch API; full loop would exceed "
                         f"{a.loop_budget:.0f} s).")
        rec = r.get("recall")
        if rec is not None and r.get("recall_plain") is not None and r["recall_plain"] != rec:
            notes.append(f"{label}: recall@{a.k} {r['recall_plain']:.4f} counting only numpy's own rows; "
                         f"{rec:.4f} when a row that ties exactly with numpy's k-th row counts.")
        lines.append(f"| {label} | {fmt(r['ingest_s'])} | {fmt(r['open_s'])} | {fmt(sm['median'])}{single_mark} | "
                     f"{fmt(sm['p95'])}{single_mark} | {batch} | {'—' if rec is None else f'{rec:.4f}'} | "
                     f"{r['peak_rss_kb_wait4'] / 1024:.0f} |")
        if r.get("batch_matches_single") is False:
            notes.append(f"{label}: batch top-k differs from the single-query top-k for some queries.")
    kin = results.get("kindred", {})
    if "single_ms" in kin:
        parts = []
        for engine in a.engines:
            r = results.get(engine, {})
            if engine == "kindred" or "single_ms" not in r:
                continue
            s = r["single_ms"]["median"] / kin["single_ms"]["median"]
            b = r["batch_s"] / kin["batch_s"] if kin.get("batch_s") else float("nan")
            parts.append(f"{LABELS[engine]} single/Kindred single = {s:.2f}×, batch/Kindred batch = {b:.2f}×")
        lines += ["", "Ratios (peer ÷ Kindred; below 1 the peer is faster): " + "; ".join(parts) + "."]
        vec = results.get("sqlite-vec", {})
        if kin.get("ingest_s") and vec.get("ingest_s"):
            cpu = ""
            if kin.get("ingest_cpu_s") and vec.get("ingest_cpu_s"):
                cpu = (f"; CPU seconds of the process during ingest {fmt(kin['ingest_cpu_s'])} against "
                       f"{fmt(vec['ingest_cpu_s'])} = {kin['ingest_cpu_s'] / vec['ingest_cpu_s']:.2f}×")
            lines += ["", f"Ingest, Kindred ÷ sqlite-vec: {kin['ingest_s'] / vec['ingest_s']:.2f}× wall time{cpu}."]
    if notes:
        lines += [""] + [f"- {x}" for x in notes]
    return "\n".join(lines)


def parent(a) -> None:
    kindred_bin = os.environ.get("KINDRED_BENCH_BIN") or os.path.join(REPO, ".build", "release", "kindred-bench")
    if "kindred" in a.engines and not os.access(kindred_bin, os.X_OK):
        raise SystemExit(f"kindred-bench not found: {kindred_bin} (build it or set KINDRED_BENCH_BIN)")
    skips = set(a.skip)
    now = _dt.datetime.now()
    all_results = {}
    sections = []
    for n in a.sizes:
        all_results[n] = bench_size(n, a, skips, kindred_bin)
        sections.append(render(n, all_results[n], a))
        print("\n" + sections[-1] + "\n", file=sys.stderr, flush=True)

    def ver(engine, key):
        for n in a.sizes:
            v = all_results[n].get(engine, {}).get(key)
            if v:
                return v
        return "?"

    blas = next((all_results[n]["numpy"].get("blas") for n in a.sizes if "blas" in all_results[n].get("numpy", {})), {})
    env_notes = ", ".join(f"{v}={os.environ[v]}" for v in NUMPY_UNSET if v in os.environ) or "not set"
    kin_extra = next((all_results[n]["kindred"] for n in a.sizes if "kernel" in all_results[n].get("kindred", {})), {})
    header = [
        f"## Exact cosine top-k search — {now.strftime('%Y-%m-%d %H:%M')}",
        "",
        f"- CPU: {cpu_model()} ({os.cpu_count()} logical CPUs on the machine); threads per engine: 1",
        (f"- Data: real vectors from {a.vectors} (base = first N rows, queries = last {a.queries} rows), L2-normalised, "
         f"float32, d = {a.dim}; k = {a.k}; recall@{a.k} against numpy's exact result" if a.vectors else
         f"- Data: N(0,1) vectors L2-normalised, float32, d = {a.dim}; base seed {a.seed}, query seed "
         f"{a.query_seed}; {a.queries} queries; k = {a.k}; recall@{a.k} against numpy's exact result"),
        f"- Kindred: {os.path.relpath(kindred_bin, REPO) if kindred_bin.startswith(REPO) else kindred_bin} built "
        f"{_dt.datetime.fromtimestamp(os.path.getmtime(kindred_bin)).strftime('%Y-%m-%d %H:%M')}, work tree {git_rev()}; "
        f"kernel {kin_extra.get('kernel', '?')}, BLAS threads {kin_extra.get('blas_threads', '?')}"
        + (f", extra args {' '.join(a.kindred_arg)}" if a.kindred_arg else ""),
        f"- numpy {ver('numpy', 'numpy')} (OpenBLAS kernel: {blas.get('architecture', '?')} via "
        f"{blas.get('source', '?')}), faiss-cpu {ver('faiss', 'faiss')}, sqlite-vec {ver('sqlite-vec', 'sqlite_vec')} "
        f"(SQLite {ver('sqlite-vec', 'sqlite')}, distance_metric={a.sqlite_vec_metric}), usearch {ver('usearch', 'usearch')}; "
        f"Python {platform.python_version()}",
        f"- OMP/OPENBLAS/MKL_NUM_THREADS=1 for every engine; OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE in the calling "
        f"environment: {env_notes} (unset for the numpy process only)",
        "- ingest = load the raw vectors + build + persist (numpy: np.save; FAISS: add + write_index; sqlite-vec: "
        "INSERT in 10 000-row transactions; usearch: " + ("add (builds its HNSW graph, unused by exact search) + save"
        if a.usearch_mode == "index" else "np.save (flat mode, no index)") + "; Kindred: the real write "
        "path into SQLite). open = reload the persisted form (sqlite-vec: reopen + first query). Peak RSS is the "
        "whole engine process (ingest and search).",
    ]
    report = "\n".join(header) + "\n\n" + "\n\n".join(sections) + "\n"
    os.makedirs(RESULTS, exist_ok=True)
    md = os.path.join(RESULTS, f"search-{now.strftime('%Y%m%d')}.md")
    existed = os.path.exists(md)
    with open(md, "a") as f:  # several runs on one day accumulate, newest last
        f.write(("\n---\n\n" if existed else "") + report)
    raw = os.path.join(RESULTS, f"search-{now.strftime('%Y%m%d-%H%M%S')}.json")
    slim = {str(n): {e: {k: v for k, v in r.items() if k not in ("topk", "batch_topk")} for e, r in res.items()}
            for n, res in all_results.items()}
    with open(raw, "w") as f:
        json.dump({"date": now.isoformat(), "cpu": cpu_model(), "results": slim}, f, indent=1)
    print(report, flush=True)
    log(f"wrote {os.path.relpath(md, REPO)} and {os.path.relpath(raw, REPO)}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("sizes", nargs="*", type=int, default=[100_000, 1_000_000], help="base sizes N")
    p.add_argument("--dim", type=int, default=384)
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--queries", type=int, default=1000)
    p.add_argument("--seed", type=int, default=42, help="seed of the base vectors")
    p.add_argument("--query-seed", type=int, default=4242, help="seed of the queries")
    p.add_argument("--engines", default=",".join(ENGINES), help="comma-separated subset of " + ",".join(ENGINES))
    p.add_argument("--skip", action="append", default=[], metavar="ENGINE[@N]",
                   help="skip an engine (at one size with @N), e.g. --skip sqlite-vec@1000000")
    p.add_argument("--kindred-arg", action="append", default=[],
                   help="extra argument passed to kindred-bench search (repeat), e.g. --kindred-arg=--batch-threshold=16")
    p.add_argument("--loop-budget", type=float, default=300.0,
                   help="seconds a query loop may take before timing only 100 queries (default 300)")
    p.add_argument("--sqlite-vec-metric", default="cosine", choices=["cosine", "l2"])
    p.add_argument("--usearch-mode", default="index", choices=["index", "flat"],
                   help="index: Index.add (builds HNSW) + save/restore, search(exact=True); "
                        "flat: usearch.index.search(exact=True) over the .npy-loaded array, no graph build")
    p.add_argument("--vectors", help="raw float32 rows of real vectors (e.g. MiniLM vectors of a corpus): the base is "
                                      "the first N rows and the queries the last --queries rows, instead of random vectors")
    p.add_argument("--keep", action="store_true", help="keep each engine's persisted files under bench/results/runs")
    p.add_argument("--child", help=argparse.SUPPRESS)
    p.add_argument("--data", help=argparse.SUPPRESS)
    p.add_argument("--work", help=argparse.SUPPRESS)
    a = p.parse_intermixed_args()
    if a.child:
        child(a)
        return
    a.engines = [e.strip() for e in a.engines.split(",") if e.strip()]
    bad = [e for e in a.engines if e not in ENGINES]
    if bad:
        raise SystemExit(f"unknown engine(s): {bad}")
    if "numpy" in a.engines:  # numpy first: its exact result is the recall reference
        a.engines = ["numpy"] + [e for e in a.engines if e != "numpy"]
    for s in a.skip:
        e = s.split("@")[0]
        if e not in ENGINES:
            raise SystemExit(f"--skip {s}: unknown engine {e}")
    parent(a)


if __name__ == "__main__":
    main()
