"""Pattern groups scored against a journal's key (datasets/journal*/situations.json): the one scorer of
the journal tests (test_journal_precision.py, test_journal_languages.py) and benches
(bench/grouping: judged.py, languages.py, sweep.py, service_scores.py, bench.py). Standard library only.

A key lists situations (`id`, `entries`: record ids; an entry may belong to several) and look-alike
distractors (`entry`, `resembles`: the situation it looks like without being one). Groups are sets of
record ids, as findings' evidence gives them (an id may be in several groups).

- member precision, as a person reads a group: over every pair of members of one group, look-alikes
  and one-off entries included, the share that share a situation;
- pair precision and recall over the entries of exactly one situation: "in one group together"
  against "same situation"; F1 of the two;
- look-alikes grouped: distractors in any group; leaks: distractors in a group with an entry of
  the situation they resemble;
- worst purity: for each group holding four or more entries of exactly one situation, the share
  of its majority situation; the lowest (1 without such a group).
"""

import collections
import itertools


def score(groups, key):
    groups = [set(g) for g in groups]
    situations = {s["id"]: s["entries"] for s in key["situations"]}
    of = collections.defaultdict(set)  # entry -> its situations
    for s, entries in situations.items():
        for i in entries:
            of[i].add(s)
    listed = collections.Counter(i for entries in situations.values() for i in entries)
    one = {i: s for s, entries in situations.items() for i in entries if listed[i] == 1}
    where = collections.defaultdict(set)  # entry -> the groups holding it
    for n, g in enumerate(groups):
        for i in g:
            where[i].add(n)

    tp = fp = fn = 0
    for a, b in itertools.combinations(sorted(one), 2):
        same, together = one[a] == one[b], bool(where[a] & where[b])
        tp += same and together
        fp += (not same) and together
        fn += same and not together
    members = [bool(of[a] & of[b]) for g in groups for a, b in itertools.combinations(sorted(g), 2)]
    distractors = key["distractors"]
    lookalikes = sum(1 for d in distractors if where[d["entry"]])
    leaks = sum(1 for d in distractors
                if any(groups[n] & set(situations.get(d["resembles"], ())) for n in where[d["entry"]]))
    majority = [c.most_common(1)[0][1] / sum(c.values())
                for c in (collections.Counter(one[i] for i in g if i in one) for g in groups) if sum(c.values()) >= 4]
    p, r = tp / max(tp + fp, 1), tp / max(tp + fn, 1)
    return {"member_precision": sum(members) / max(len(members), 1), "pair_precision": p, "recall": r,
            "f1": 2 * p * r / max(p + r, 1e-9), "lookalikes": lookalikes, "leaks": leaks,
            "lookalikes_of": len(distractors), "purity": min(majority or [1.0]), "groups": len(groups)}
