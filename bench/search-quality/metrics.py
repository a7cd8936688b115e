"""Ranking metrics with binary relevance, as percentages (0-100) averaged over queries."""
import math


def ndcg_at(ranked, relevant, k=10):
    rel = set(relevant)
    dcg = sum(1.0 / math.log2(i + 2) for i, d in enumerate(ranked[:k]) if d in rel)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(rel), k)))
    return dcg / ideal if ideal else 0.0


def recall_at(ranked, relevant, k=10):
    rel = set(relevant)
    return len(rel.intersection(ranked[:k])) / len(rel) if rel else 0.0


def mrr_at(ranked, relevant, k=10):
    rel = set(relevant)
    for i, d in enumerate(ranked[:k]):
        if d in rel:
            return 1.0 / (i + 1)
    return 0.0


def precision_at(ranked, relevant, k=5):
    """Hits in the first k over k (a query with fewer than k relevant entries cannot reach 1)."""
    rel = set(relevant)
    return len(rel.intersection(ranked[:k])) / k


def score(runs, queries):
    """runs: {query id: ranked doc ids}. Returns mean nDCG@10, recall@10, MRR@10 (in points) and P@5 (0-1)."""
    n = len(queries)
    if n == 0:
        return {"queries": 0}
    out = {"ndcg10": 0.0, "recall10": 0.0, "mrr10": 0.0, "p5": 0.0}
    for q in queries:
        r = runs.get(q["id"], [])
        out["ndcg10"] += ndcg_at(r, q["relevant"])
        out["recall10"] += recall_at(r, q["relevant"])
        out["mrr10"] += mrr_at(r, q["relevant"])
        out["p5"] += precision_at(r, q["relevant"])
    out = {k: v / n for k, v in out.items()}
    for k in ("ndcg10", "recall10", "mrr10"):
        out[k] *= 100.0
    out["queries"] = n
    return out
