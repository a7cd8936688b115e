"""End-to-end text search latency at N records: Kindred over RPC next to the same search done by hand
in Python (sentence-transformers query encode + FAISS IndexFlatIP + bm25s + RRF), in one run.

The records are short real texts (Debian package descriptions) inserted with client vectors that
sentence-transformers computed once (cached as .npy), so loading does not wait for the model; every
query is sent as text, so both sides embed it per query."""
import json
import os
import shutil
import statistics
import time

import numpy as np

import datasets
import references
from kindred_rpc import Server

OWNER = "bench"


def _vectors(model, texts, n, seed, say, chunk=5000):
    """sentence-transformers vectors of the corpus, computed once; chunks are kept as they finish, so an
    interrupted run resumes where it stopped."""
    path = os.path.join(datasets.DATA, f"latency-vectors-{n}-s{seed}.npy")
    if os.path.exists(path):
        v = np.load(path)
        if v.shape == (len(texts), 384):
            return v, 0.0
    parts_dir = path[:-4] + ".parts"
    os.makedirs(parts_dir, exist_ok=True)
    say(f"  encoding {len(texts)} texts with sentence-transformers once (cached as {os.path.relpath(path, datasets.ROOT)}) ...")
    t0 = time.time()
    parts = []
    for i in range(0, len(texts), chunk):
        part = os.path.join(parts_dir, f"{i:07d}.npy")
        if os.path.exists(part):
            parts.append(np.load(part))
            continue
        v = references.encode(model, texts[i:i + chunk])
        np.save(part + ".tmp.npy", v)
        os.replace(part + ".tmp.npy", part)
        parts.append(v)
        say(f"    {min(i + chunk, len(texts))}/{len(texts)} ({time.time() - t0:.0f} s)")
    v = np.concatenate(parts)
    np.save(path + ".tmp.npy", v)
    os.replace(path + ".tmp.npy", path)
    shutil.rmtree(parts_dir, ignore_errors=True)
    return v, time.time() - t0


def _stats(secs):
    ms = sorted(s * 1000.0 for s in secs)
    p95 = ms[min(len(ms) - 1, int(round(0.95 * (len(ms) - 1))))]
    return {"median_ms": statistics.median(ms), "p95_ms": p95, "mean_ms": statistics.fmean(ms), "queries": len(ms)}


def _load(srv, texts, vecs, say, batch=2000):
    t0 = time.time()
    for i in range(0, len(texts), batch):
        recs = [{"id": f"d{j}", "revision": 1, "text": texts[j], "vector": np.round(vecs[j], 7).tolist()}
                for j in range(i, min(i + batch, len(texts)))]
        srv.upsert(OWNER, recs, batch=batch)
        if (i // batch) % 10 == 9:
            say(f"    {i + len(recs)}/{len(texts)} records ({time.time() - t0:.0f} s)")
    return time.time() - t0


def _random_vectors(n, seed):
    """Seeded unit vectors: a corpus of the right size and shape without encoding it (the per-query
    work, encoding the query and scanning every row, is the same; the hits are not meaningful)."""
    v = np.random.default_rng(seed).standard_normal((n, 384), dtype=np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    return v, 0.0


def run(kindred, model, n, queries, workdir, seed=13, keep=False, say=print, vectors="model"):
    corpus = datasets.latency_corpus(n, seed)
    texts = corpus["texts"]
    vecs, encode_s = _random_vectors(n, seed) if vectors == "random" else _vectors(model, texts, n, seed, say)
    out = {"n": n, "queries": len(queries), "corpus": corpus["source"], "encode_s": encode_s, "vectors": vectors}
    run_dir = os.path.join(workdir, f"latency-{n}")
    shutil.rmtree(run_dir, ignore_errors=True)
    os.makedirs(run_dir)

    # Kindred over RPC.
    say(f"  Kindred: loading {n} records with client vectors over RPC ...")
    srv = Server(kindred, os.path.join(run_dir, "kindred.sqlite"), os.path.join(run_dir, "serve.log"))
    kindred_ids = {}
    try:
        out["kindred_load_s"] = _load(srv, texts, vecs, say)
        st, waited = srv.wait_indexed(OWNER, n, say=say)
        out["kindred_index_status"] = st
        for q in queries[:5]:
            for mode in ("hybrid", "semantic", "keyword"):
                srv.search(OWNER, q, mode)
        out["kindred"] = {}
        for mode in ("hybrid", "semantic", "keyword"):
            secs, kindred_ids[mode] = [], []
            for q in queries:
                res, dt = srv.timed_call("search/query", {"owner": OWNER, "text": q, "mode": mode, "limit": 10})
                secs.append(dt)
                kindred_ids[mode].append([h["id"] for h in res["results"]])
            out["kindred"][mode] = _stats(secs)
            say(f"    Kindred {mode}: median {out['kindred'][mode]['median_ms']:.1f} ms, p95 {out['kindred'][mode]['p95_ms']:.1f} ms")
    finally:
        srv.close()

    # By hand, in this process (Kindred's server has exited).
    import faiss
    import torch
    out["threads"] = {"torch": torch.get_num_threads(), "faiss": faiss.omp_get_max_threads()}
    t0 = time.time()
    index = faiss.IndexFlatIP(vecs.shape[1])
    index.add(vecs)
    out["faiss_build_s"] = time.time() - t0
    t0 = time.time()
    bm = references.BM25(texts)
    out["bm25_build_s"] = time.time() - t0
    ids = [f"d{j}" for j in range(n)]

    def dense(q, k=10):
        qv = references.encode(model, [q], batch_size=1)
        _, idx = index.search(qv, k)
        return [ids[i] for i in idx[0] if i >= 0]

    def hybrid(q):
        qv = references.encode(model, [q], batch_size=1)
        _, idx = index.search(qv, references.CANDIDATES)
        a = [ids[i] for i in idx[0] if i >= 0]
        b = [ids[i] for i in bm.search(q, references.CANDIDATES)]
        return references.rrf(a, b)

    def sparse(q):
        return [ids[i] for i in bm.search(q, 10)]

    for q in queries[:5]:
        hybrid(q), dense(q), sparse(q)
    out["by_hand"], hand_ids = {}, {}
    for name, fn in (("hybrid", hybrid), ("dense", dense), ("bm25", sparse)):
        secs, hand_ids[name] = [], []
        for q in queries:
            t0 = time.perf_counter()
            hand_ids[name].append(fn(q))
            secs.append(time.perf_counter() - t0)
        out["by_hand"][name] = _stats(secs)
        say(f"    by hand {name}: median {out['by_hand'][name]['median_ms']:.1f} ms, p95 {out['by_hand'][name]['p95_ms']:.1f} ms")

    k, h = out["kindred"], out["by_hand"]
    out["ratios"] = {
        "kindred_hybrid_over_hand_hybrid": k["hybrid"]["median_ms"] / h["hybrid"]["median_ms"],
        "kindred_hybrid_over_hand_dense": k["hybrid"]["median_ms"] / h["dense"]["median_ms"],
        "kindred_semantic_over_hand_dense": k["semantic"]["median_ms"] / h["dense"]["median_ms"],
        "kindred_keyword_over_hand_bm25": k["keyword"]["median_ms"] / h["bm25"]["median_ms"],
    }
    # The same vectors and the same model on both sides: Kindred's semantic top-10 should be the exact one.
    out["semantic_top10_agreement"] = statistics.fmean(
        len(set(a) & set(b)) / max(1, len(b)) for a, b in zip(kindred_ids["semantic"], hand_ids["dense"]))
    out["checks"] = {
        "hybrid_median_le_half_hand_hybrid": out["ratios"]["kindred_hybrid_over_hand_hybrid"] <= 0.5,
        "hybrid_median_le_hand_dense": out["ratios"]["kindred_hybrid_over_hand_dense"] <= 1.0,
    }
    if not keep:
        shutil.rmtree(run_dir, ignore_errors=True)
    return out
