#!/usr/bin/env python3
"""Judged grouping on the bundled journals, through the real binary and a client judge.

For each journal (datasets/journal, datasets/journal2) it loads the records into a fresh database,
starts `kindred serve --set patterns.judge=client`, and refreshes until a refresh asks nothing,
answering every `patterns/judge` request with one of these judges:

  none        no judge (the default configuration)
  perfect     answers from the journal's key: yes when the occurrence's entry and the
              representative's entry share a situation
  flip5/10    the same, with 5 % / 10 % of answers flipped (seeded, so runs repeat)
  model       an OpenAI-compatible chat server (--model-url URL --model NAME), as patterns.judge=openai
  cobras      COBRAS (cobras-ts) over the same MiniLM vectors, given the perfect oracle and the
              number of questions the perfect judge asked

Each row: member precision (every pair of members of a group), pair precision and recall (entries
of exactly one situation), F1, look-alikes grouped, questions asked, questions per entry, refreshes
to converge, and the refresh time of the first refresh.

  python3 bench/grouping/judged.py [--binary .build/release/kindred] [--judges none,perfect,flip5,flip10,cobras]
"""
import argparse, collections, json, os, random, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.join(os.path.dirname(__file__)))
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests-e2e"))
from journal_score import score  # noqa: E402  (tests-e2e/journal_score.py: one scorer for the journal tests and benches)


def load(journal):
    """A journal's records and key; a translated journal (no situations.json) keeps the English ids and key."""
    recs = [json.loads(l) for l in open(f"datasets/{journal}/records.jsonl")]
    own = f"datasets/{journal}/situations.json"
    key = json.load(open(own if os.path.exists(own) else "datasets/journal/situations.json"))
    return recs, key


class KeyJudge:
    """Answers a question from the key; `flip` of the answers are turned round (seeded)."""

    def __init__(self, key, flip=0.0, seed=7):
        self.of = collections.defaultdict(set)
        for s in key["situations"]:
            for i in s["entries"]:
                self.of[i].add(s["id"])
        self.flip, self.rng, self.asked = flip, random.Random(seed), 0

    def __call__(self, params):
        self.asked += 1
        a = params["occurrence"]["recordId"]
        b = params["group"]["representative"]["recordId"]
        match = bool(self.of[a] & self.of[b])
        if self.flip and self.rng.random() < self.flip:
            match = not match
        return {"match": match, "sharedElement": "the same situation" if match else "", "difference": "" if match else "another situation"}


class Serve:
    def __init__(self, binary, db, args):
        self.p = subprocess.Popen([binary, "serve", "--db", db, "--framing", "ndjson", *args], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.next = 0

    def send(self, m):
        self.p.stdin.write(json.dumps(m) + "\n")
        self.p.stdin.flush()

    def call(self, method, params, judge=None):
        self.next += 1
        rid = self.next
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise SystemExit(f"judged.py: the server closed during {method}")
            m = json.loads(line)
            if m.get("method") == "patterns/judge" and "id" in m:
                self.send({"jsonrpc": "2.0", "id": m["id"], "result": judge(m["params"])})
                continue
            if "method" not in m and m.get("id") == rid:
                if "error" in m:
                    raise SystemExit(f"judged.py: {method}: {m['error']}")
                return m["result"]

    def close(self):
        self.send({"jsonrpc": "2.0", "id": "bye", "method": "shutdown"})
        self.send({"jsonrpc": "2.0", "method": "exit"})
        self.p.wait(timeout=60)


def groups_of(s):
    f = s.call("patterns/findings", {"owner": "me", "includeRelated": True, "limit": 1000})
    return [{e["recordId"] for e in fd["evidence"]} for fd in f["findings"]]


def run_kindred(binary, journal, judge_name, args_extra, model=None, seed=7):
    recs, key = load(journal)
    db = os.path.join(tempfile.mkdtemp(prefix="judged-"), "j.sqlite")
    args = list(args_extra)
    judge = None
    if judge_name == "model":
        args += ["--set", "patterns.judge=openai", "--set", f"patterns.judgeUrl={model[0]}", "--set", f"patterns.judgeModel={model[1]}"]
    elif judge_name != "none":
        args += ["--set", "patterns.judge=client"]
        judge = KeyJudge(key, {"perfect": 0.0, "flip5": 0.05, "flip10": 0.10}[judge_name], seed)
    s = Serve(binary, db, args)
    s.call("initialize", {"capabilities": {"judge": judge is not None}})
    s.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    s.call("records/upsert", {"owner": "me", "waitForIndex": True, "records": recs})
    refreshes, first_ms, asked = 0, None, 0
    while True:
        t = time.monotonic()
        r = s.call("patterns/refresh", {"owner": "me"}, judge)
        refreshes += 1
        first_ms = first_ms if first_ms is not None else (time.monotonic() - t) * 1000
        asked += r.get("judgeAsked", 0)
        if judge_name == "none" or (r.get("judgeAsked", 0) == 0 and r.get("groupsChanged", 0) == 0 and r.get("groupsCreated", 0) == 0) or refreshes >= 10:
            break
    groups = groups_of(s)
    s.close()
    out = score(groups, key)
    out.update(questions=asked, per_entry=asked / len(recs), refreshes=refreshes, first_refresh_ms=first_ms, groups=len(groups))
    return out


def run_cobras(journal, budget, binary):
    """COBRAS with the perfect oracle over the records' MiniLM vectors (kindred embed), `budget` questions."""
    import types
    import numpy as np
    # (The package's querier folder imports its interactive, browser-based querier, whose plotting
    # dependencies the bench does not need: an empty module stands in for it.)
    for name, attr in (("visualquerier", "VisualQuerier"), ("visualquerier_images", "VisualImageQuerier")):
        stand_in = types.ModuleType("cobras_ts.querier." + name)
        setattr(stand_in, attr, None)
        sys.modules.setdefault("cobras_ts.querier." + name, stand_in)
    if not hasattr(np, "int"):
        np.int = int  # (the package still uses the alias NumPy 1.24 removed)
    from cobras_ts.cobras_kmeans import COBRAS_kmeans
    from cobras_ts.querier.labelquerier import LabelQuerier
    recs, key = load(journal)
    texts = "\n".join(r["text"].replace("\n", " ") for r in recs) + "\n"
    out = subprocess.run([binary, "embed", "--file", "-"], input=texts, capture_output=True, text=True, check=True).stdout
    X = np.array([json.loads(l) for l in out.splitlines()], dtype=np.float64)
    # Labels for the oracle: an entry of one situation gets it; every other entry is its own.
    sit = {}
    for s in key["situations"]:
        for i in s["entries"]:
            sit.setdefault(i, s["id"])
    labels, ids = [], {}
    for r in recs:
        labels.append(ids.setdefault(sit.get(r["id"], "alone-" + r["id"]), len(ids)))
    np.random.seed(0)  # (COBRAS draws its k-means starts from NumPy's global generator)
    clusterer = COBRAS_kmeans(X, LabelQuerier(np.array(labels)), max_questions=budget, store_intermediate_results=False)
    final = clusterer.cluster().construct_cluster_labeling()
    by = collections.defaultdict(set)
    for r, c in zip(recs, final):
        by[c].add(r["id"])
    groups = [g for g in by.values() if len(g) >= 2]
    res = score(groups, key)
    res.update(questions=budget, per_entry=budget / len(recs), refreshes=1, first_refresh_ms=None, groups=len(groups))
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default=os.environ.get("KINDRED_BIN", ".build/release/kindred"))
    ap.add_argument("--judges", default="none,perfect,flip5,flip10,cobras")
    ap.add_argument("--journals", default="journal,journal2")
    ap.add_argument("--model-url")
    ap.add_argument("--model")
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--seeds", type=int, default=1, help="runs of each flipping judge (seeds 7, 8, …): the mean, and the lowest in brackets")
    a = ap.parse_args()
    extra = [x for kv in a.set for x in ("--set", kv)]
    print("| journal | judge | member precision | pair precision | recall | F1 | look-alikes grouped | questions | per entry | refreshes | first refresh ms |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for journal in a.journals.split(","):
        perfect_questions = None
        for j in a.judges.split(","):
            if j == "cobras":
                r = run_cobras(journal, perfect_questions or 1000, a.binary)
            elif j.startswith("flip") and a.seeds > 1:
                runs = [run_kindred(a.binary, journal, j, extra, seed=7 + i) for i in range(a.seeds)]
                mean = {k: sum(x[k] for x in runs) / len(runs) for k in runs[0] if isinstance(runs[0][k], (int, float))}
                low = {k: min(x[k] for x in runs) for k in ("member_precision", "recall")}
                print(f"| {journal} | {j} ({a.seeds} seeds) | {mean['member_precision']:.2f} ({low['member_precision']:.2f}) | "
                      f"{mean['pair_precision']:.2f} | {mean['recall']:.2f} ({low['recall']:.2f}) | {mean['f1']:.2f} | "
                      f"{mean['lookalikes']:.1f} of {runs[0]['lookalikes_of']} | {mean['questions']:.0f} | {mean['per_entry']:.2f} | "
                      f"{mean['refreshes']:.1f} | {mean['first_refresh_ms']:.0f} |", flush=True)
                continue
            else:
                r = run_kindred(a.binary, journal, j, extra, (a.model_url, a.model))
                if j == "perfect":
                    perfect_questions = r["questions"]
            ms = "" if r["first_refresh_ms"] is None else "%.0f" % r["first_refresh_ms"]
            print(f"| {journal} | {j} | {r['member_precision']:.2f} | {r['pair_precision']:.2f} | {r['recall']:.2f} | {r['f1']:.2f} | "
                  f"{r['lookalikes']} of {r['lookalikes_of']} | {r['questions']} | {r['per_entry']:.2f} | {r['refreshes']} | {ms} |", flush=True)


if __name__ == "__main__":
    main()
