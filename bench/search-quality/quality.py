"""Ranking quality of Kindred's three search modes on one set, beside the reference rankers, in one run."""
import os
import shutil
import time

import metrics
import references
from kindred_rpc import RpcError, Server

OWNER = "bench"
MODES = ("keyword", "semantic", "hybrid")
LABELS = {
    "keyword": "Kindred keyword",
    "semantic": "Kindred semantic",
    "hybrid": "Kindred hybrid",
    "st": "sentence-transformers (dense cosine)",
    "bm25": "bm25s (PyStemmer english, en stopwords)",
    "rrf": "RRF(sentence-transformers, bm25s), k=60",
}


def _records(docs):
    out = []
    for d in docs:
        r = {"id": d["id"], "revision": int(d.get("revision", 1)), "text": d["text"]}
        for k in ("kind", "date", "tags", "metadata"):
            if d.get(k) is not None:
                r[k] = d[k]
        out.append(r)
    return out


def kindred_runs(data, kindred, workdir, say):
    """Loads the set into a fresh database over RPC, then runs every query in every mode (limit 10)."""
    run = os.path.join(workdir, data["name"])
    shutil.rmtree(run, ignore_errors=True)
    os.makedirs(run)
    srv = Server(kindred, os.path.join(run, "kindred.sqlite"), os.path.join(run, "serve.log"))
    info = {"embedder": srv.info.get("capabilities", {}).get("embedder")}
    try:
        t0 = time.time()
        srv.upsert(OWNER, _records(data["docs"]))
        info["upsert_s"] = time.time() - t0
        status, waited = srv.wait_indexed(OWNER, len(data["docs"]), say=say)
        info["embed_wait_s"], info["status"] = waited, status
        say(f"    {len(data['docs'])} records in, embedded {waited:.1f} s after the last upsert")
        runs, errors, empty, secs = {}, {}, {}, {}
        for mode in MODES:
            runs[mode], errors[mode], empty[mode] = {}, [], 0
            t0 = time.time()
            for q in data["queries"]:
                try:
                    res = srv.search(OWNER, q["text"], mode)
                    ids = [h["id"] for h in res["results"]]
                    if res.get("mode") != mode:
                        errors[mode].append({"query": q["id"], "mode_used": res.get("mode"), "degraded": res.get("degraded")})
                except RpcError as e:
                    ids = []
                    errors[mode].append({"query": q["id"], "error": str(e)})
                runs[mode][q["id"]] = ids
                empty[mode] += 0 if ids else 1
            secs[mode] = time.time() - t0
        info.update(errors=errors, empty=empty, search_s=secs)
        return runs, info
    finally:
        srv.close()


def reference_runs(data, model):
    ids = [d["id"] for d in data["docs"]]
    qtexts = [q["text"] for q in data["queries"]]
    t0 = time.time()
    dvec = references.encode(model, [d["text"] for d in data["docs"]])
    qvec = references.encode(model, qtexts)
    dense = references.dense_rankings(dvec, qvec, ids)
    t_dense = time.time() - t0
    t0 = time.time()
    bm = references.BM25([d["text"] for d in data["docs"]])
    sparse = bm.rankings(qtexts, ids)
    t_bm25 = time.time() - t0
    runs = {"st": {}, "bm25": {}, "rrf": {}}
    for q, a, b in zip(data["queries"], dense, sparse):
        runs["st"][q["id"]] = a[:10]
        runs["bm25"][q["id"]] = b[:10]
        runs["rrf"][q["id"]] = references.rrf(a, b)
    return runs, {"st_s": t_dense, "bm25_s": t_bm25,
                  "empty": {"bm25": sum(1 for b in sparse if not b)}}


def splits_of(data):
    names = sorted({q.get("split", "all") for q in data["queries"]})
    if names == ["all"]:
        return {"all": data["queries"]}
    out = {s: [q for q in data["queries"] if q.get("split") == s] for s in names}
    out["all"] = data["queries"]
    return out


def checks(scores):
    """The issue's acceptance checks on nDCG@10 (points) and, for the journal, precision@5."""
    kw, sem, hyb, st = (scores[m]["ndcg10"] for m in ("keyword", "semantic", "hybrid", "st"))
    best = max(kw, sem)
    return {
        "best_single": best,
        "hybrid_minus_best": hyb - best,
        "hybrid_not_below_best": hyb >= best - 0.5,
        "hybrid_above_best_by_1": hyb >= best + 1.0,
        "semantic_minus_st": sem - st,
        "semantic_within_half_of_st": abs(sem - st) <= 0.5,
        "p5_hybrid_not_below_semantic": scores["hybrid"]["p5"] >= scores["semantic"]["p5"],
    }


def evaluate(data, kindred, model, workdir, say=print):
    say(f"  Kindred over RPC ...")
    k_runs, k_info = kindred_runs(data, kindred, workdir, say)
    say(f"  references (sentence-transformers, bm25s, RRF) ...")
    r_runs, r_info = reference_runs(data, model)
    runs = {**k_runs, **r_runs}
    result = {"name": data["name"], "docs": len(data["docs"]), "source": data.get("source"),
              "kindred": k_info, "references": r_info, "splits": {}}
    for split, queries in splits_of(data).items():
        scores = {m: metrics.score(runs[m], queries) for m in runs}
        result["splits"][split] = {"queries": len(queries), "scores": scores, "checks": checks(scores)}
    return result
