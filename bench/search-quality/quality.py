"""Ranking quality of Kindred's three search modes on one set, beside the reference rankers, in one run."""
import os
import shutil
import time

import metrics
import references
from kindred_rpc import RpcError, Server

OWNER = "bench"
MODES = ("keyword", "semantic", "hybrid")
# Row labels: a provider's rows are "<provider>:<mode>", "<provider>:ref" (its offline dense
# reference) and "<provider>:rrf" (RRF of that reference with bm25s); bm25s is "bm25".
MODE_LABELS = {"keyword": "Kindred keyword", "semantic": "Kindred semantic", "hybrid": "Kindred hybrid"}
BM25_LABEL = "bm25s (PyStemmer english, en stopwords)"


class Provider:
    """One embedder Kindred runs with: `env` for `kindred serve` (None: the local model), and the
    offline dense reference computed with the same model in the bench's process."""

    def __init__(self, name, title, env, ref_label, encode, semantic_check):
        self.name, self.title, self.env, self.ref_label = name, title, env, ref_label
        self.encode = encode  # (texts, as_query) -> unit vectors
        self.semantic_check = semantic_check  # (semantic - reference) -> ok

    def label(self, key):
        kind = key.split(":", 1)[1]
        if kind in MODE_LABELS:
            return f"{MODE_LABELS[kind]} ({self.title})"
        if kind == "ref":
            return self.ref_label
        return f"RRF({self.ref_label.split(' (')[0]}, bm25s), k=60"


def _records(docs):
    out = []
    for d in docs:
        r = {"id": d["id"], "revision": int(d.get("revision", 1)), "text": d["text"]}
        for k in ("kind", "date", "tags", "metadata"):
            if d.get(k) is not None:
                r[k] = d[k]
        out.append(r)
    return out


def kindred_runs(data, kindred, provider, workdir, say):
    """Loads the set into a fresh database over RPC, then runs every query in every mode (limit 10)."""
    run = os.path.join(workdir, data["name"], provider.name)
    shutil.rmtree(run, ignore_errors=True)
    os.makedirs(run)
    srv = Server(kindred, os.path.join(run, "kindred.sqlite"), os.path.join(run, "serve.log"), env=provider.env)
    info = {"embedder": srv.info.get("capabilities", {}).get("embedder")}
    try:
        t0 = time.time()
        srv.upsert(OWNER, _records(data["docs"]))
        info["upsert_s"] = time.time() - t0
        status, waited = srv.wait_indexed(OWNER, len(data["docs"]), say=say)
        info["embed_wait_s"], info["status"] = waited, status
        say(f"    [{provider.name}] {len(data['docs'])} records in, embedded {waited:.1f} s after the last upsert "
            f"(index version {status.get('indexVersion')})")
        runs, errors, empty, secs = {}, {}, {}, {}
        for mode in MODES:
            key = f"{provider.name}:{mode}"
            runs[key], errors[key], empty[key] = {}, [], 0
            t0 = time.time()
            for q in data["queries"]:
                try:
                    res = srv.search(OWNER, q["text"], mode)
                    ids = [h["id"] for h in res["results"]]
                    if res.get("mode") != mode:
                        errors[key].append({"query": q["id"], "mode_used": res.get("mode"), "degraded": res.get("degraded")})
                except RpcError as e:
                    ids = []
                    errors[key].append({"query": q["id"], "error": str(e)})
                runs[key][q["id"]] = ids
                empty[key] += 0 if ids else 1
            secs[key] = time.time() - t0
        info.update(errors=errors, empty=empty, search_s=secs)
        return runs, info
    finally:
        srv.close()


def reference_runs(data, providers):
    ids = [d["id"] for d in data["docs"]]
    qtexts = [q["text"] for q in data["queries"]]
    t0 = time.time()
    bm = references.BM25([d["text"] for d in data["docs"]])
    sparse = bm.rankings(qtexts, ids)
    times = {"bm25_s": time.time() - t0}
    runs = {"bm25": {q["id"]: b[:10] for q, b in zip(data["queries"], sparse)}}
    for p in providers:
        t0 = time.time()
        dvec = p.encode([d["text"] for d in data["docs"]], False)
        qvec = p.encode(qtexts, True)
        dense = references.dense_rankings(dvec, qvec, ids)
        times[f"{p.name}_ref_s"] = time.time() - t0
        runs[f"{p.name}:ref"], runs[f"{p.name}:rrf"] = {}, {}
        for q, a, b in zip(data["queries"], dense, sparse):
            runs[f"{p.name}:ref"][q["id"]] = a[:10]
            runs[f"{p.name}:rrf"][q["id"]] = references.rrf(a, b)
    return runs, {**times, "empty": {"bm25": sum(1 for b in sparse if not b)}}


def splits_of(data):
    names = sorted({q.get("split", "all") for q in data["queries"]})
    if names == ["all"]:
        return {"all": data["queries"]}
    out = {s: [q for q in data["queries"] if q.get("split") == s] for s in names}
    out["all"] = data["queries"]
    return out


def checks(scores, provider):
    """The acceptance checks on nDCG@10 (points) for one provider and, for the journal, precision@5."""
    p = provider.name
    kw, sem, hyb, ref = (scores[f"{p}:{m}"]["ndcg10"] for m in ("keyword", "semantic", "hybrid", "ref"))
    best = max(kw, sem)
    return {
        "best_single": best,
        "hybrid_minus_best": hyb - best,
        "hybrid_not_below_best": hyb >= best - 0.5,
        "hybrid_above_best_by_1": hyb >= best + 1.0,
        "semantic_minus_ref": sem - ref,
        "semantic_ok": provider.semantic_check(sem - ref),
        "p5_hybrid_not_below_semantic": scores[f"{p}:hybrid"]["p5"] >= scores[f"{p}:semantic"]["p5"],
    }


def evaluate(data, kindred, providers, workdir, say=print):
    runs, k_info = {}, {}
    for p in providers:
        say(f"  Kindred over RPC, {p.title} ...")
        r, info = kindred_runs(data, kindred, p, workdir, say)
        runs.update(r)
        k_info[p.name] = info
    say(f"  references ({', '.join(p.ref_label for p in providers)}, bm25s, RRF) ...")
    r_runs, r_info = reference_runs(data, providers)
    runs.update(r_runs)
    result = {"name": data["name"], "docs": len(data["docs"]), "source": data.get("source"),
              "providers": [p.name for p in providers], "kindred": k_info, "references": r_info, "splits": {}}
    for split, queries in splits_of(data).items():
        scores = {m: metrics.score(runs[m], queries) for m in runs}
        result["splits"][split] = {"queries": len(queries), "scores": scores,
                                   "checks": {p.name: checks(scores, p) for p in providers}}
    return result
