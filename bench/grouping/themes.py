"""Themes (groups of one category that share a broader situation), measured:

- HWU64 (the quality set: 3 000 random train texts, seed 0): topic-level AMI against the 18
  scenarios (the label's prefix before "_"), each text's topic being the theme of its group (a group
  in no theme is its own topic; an ungrouped text its own singleton), beside k-means told k = 18 on
  the same vectors. The engine groups 10/11 of the texts, makes themes, then adds the rest with an
  incremental refresh and refreshes the themes: the share of theme ids still active afterwards.
- The bundled journal (`datasets/journal`, whole entries, one category): pairs of situations whose
  groups share a theme, scored against the documented theme key `datasets/journal/themes.json`
  (precision: of the co-themed situation pairs, the share the key puts in one theme; recall: of the
  key's pairs, the share co-themed). A situation's group is the group holding most of its entries.
- BANKING77 (test split): how many themes, how much of the set they cover, and theme-id survival
  (there is no coarse label to score against).

`calibrate_themes` sweeps the theme fractions on HWU64's test split (the set the group thresholds
were calibrated on, disjoint from the 3 000 train texts reported), the journal key beside it.
"""

import collections
import itertools
import json
import re

import numpy as np

import bench as B


def topics(final_groups, final_themes):
    """Per row: its theme (offset), else its group, else a singleton."""
    out, nxt = [], 10_000_000
    for g, t in zip(final_groups, final_themes):
        if t >= 0:
            out.append(t)
        elif g >= 0:
            out.append(1_000_000 + g)
        else:
            out.append(nxt)
            nxt += 1
    return out


def ami(truth, labels):
    from sklearn.metrics import adjusted_mutual_info_score
    return adjusted_mutual_info_score(truth, labels)


def run_kindred(x, texts, extra=(), grow=True):
    n = len(texts)
    initial = round(n / 1.1) if grow else n
    return B.kindred_cluster(x, texts=texts, extra=["--themes", "--initial", str(initial)] + list(extra))


def hwu(extra=()):
    sets = {name: (texts, labels) for name, _, texts, labels in B.quality_sets()}
    texts, labels = sets["hwu64"]
    coarse = [l.split("_")[0] for l in labels]
    x = B.embed("hwu64", texts)
    r = run_kindred(x, texts, extra)
    k = len(set(coarse))
    km = B.kmeans(x, k)
    groups_only = topics(r["final"], [-1] * len(texts))
    return {
        "kindred": ami(coarse, topics(r["final"], r["themes_final"])),
        "groups": ami(coarse, groups_only),
        "kmeans": ami(coarse, list(km)),
        "k": k,
        "themes": r["themes_active"],
        "covered": sum(1 for t in r["themes_final"] if t >= 0) / len(texts),
        "kept": (r["theme_ids_kept"], r["theme_ids_before"]),
        "idempotent": r["themes_idempotent"],
        "labels": r["theme_labels"],
        "intent_ami": ami(labels, B.singletons(r["final"])),
    }


def banking(extra=()):
    sets = {name: (texts, labels) for name, _, texts, labels in B.quality_sets()}
    texts, labels = sets["banking77"]
    x = B.embed("banking77", texts)
    r = run_kindred(x, texts, extra)
    return {
        "themes": r["themes_active"],
        "covered": sum(1 for t in r["themes_final"] if t >= 0) / len(texts),
        "kept": (r["theme_ids_kept"], r["theme_ids_before"]),
        "idempotent": r["themes_idempotent"],
        "intent_ami": ami(labels, B.singletons(r["final"])),
        "theme_ami_vs_intent": ami(labels, topics(r["final"], r["themes_final"])),
    }


def journal_key():
    folder = B.ROOT / "datasets" / "journal"
    recs = [json.loads(l) for l in (folder / "records.jsonl").read_text().splitlines() if l.strip()]
    key = json.loads((folder / "situations.json").read_text())
    themes = json.loads((folder / "themes.json").read_text())
    return recs, key, themes


def co_theme_scores(ids, key, theme_key, groups, themes):
    """Situation pairs co-themed (their majority groups in one active theme) against the key."""
    index = {r: i for i, r in enumerate(ids)}
    group_of = {}
    for s in key["situations"]:
        counts = collections.Counter(groups[index[e]] for e in s["entries"] if groups[index[e]] >= 0)
        if counts:
            group_of[s["id"]] = counts.most_common(1)[0][0]
    theme_of_group = {}
    for g, t in zip(groups, themes):
        if g >= 0 and t >= 0:
            theme_of_group[g] = t
    in_key = {s: t["id"] for t in theme_key["themes"] for s in t["situations"]}
    sits = [s["id"] for s in key["situations"]]
    tp = fp = fn = 0
    pairs = []
    for a, b in itertools.combinations(sits, 2):
        ta = theme_of_group.get(group_of.get(a, -1), None)
        tb = theme_of_group.get(group_of.get(b, -1), None)
        together = ta is not None and ta == tb and group_of[a] != group_of[b]
        same = a in in_key and in_key.get(a) == in_key.get(b)
        tp += together and same
        fp += together and not same
        fn += same and not together
        if together:
            pairs.append((a, b, same))
    return {"precision": tp / max(tp + fp, 1), "recall": tp / max(tp + fn, 1), "pairs": tp + fp, "right": tp,
            "key_pairs": tp + fn, "list": pairs}


def journal(extra=()):
    recs, key, theme_key = journal_key()
    ids, texts = [r["id"] for r in recs], [r["text"] for r in recs]
    x = B.embed("journal-entries", [re.sub(r"\s+", " ", t) for t in texts])
    r = run_kindred(x, texts, extra)
    m = co_theme_scores(ids, key, theme_key, r["final"], r["themes_final"])
    m["themes"] = r["themes_active"]
    m["kept"] = (r["theme_ids_kept"], r["theme_ids_before"])
    m["labels"] = r["theme_labels"]
    return m


GRID = [(0.10, 0.08, 0.18), (0.12, 0.10, 0.20), (0.13, 0.11, 0.22), (0.15, 0.12, 0.18), (0.15, 0.12, 0.22),
        (0.15, 0.12, 0.26), (0.15, 0.10, 0.22), (0.15, 0.15, 0.22), (0.17, 0.14, 0.22), (0.18, 0.15, 0.26), (0.22, 0.20, 0.30)]


def args(rep, sup, seed):
    return ["--theme-rep", str(rep), "--theme-sup", str(sup), "--theme-seed", str(seed)]


def calibrate_themes():
    """Every setting of GRID on the calibration set, HWU64's test split (topic-level AMI against its
    scenarios), with the journal key's co-theme precision beside it (reported, not chosen on)."""
    out = ["| rep | sup | seed | HWU64 test: theme AMI | k-means (k = 18) | groups alone | themes | journal: co-themed pairs right | recall |",
           "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for rep, sup, seed in GRID:
        h, j = hwu_test(args(rep, sup, seed)), journal(args(rep, sup, seed))
        out.append(f"| {rep} | {sup} | {seed} | {h['kindred']:.3f} | {h['kmeans']:.3f} | {h['groups']:.3f} | {h['themes']} | "
                   f"{j['precision']:.3f} ({j['right']} of {j['pairs']}) | {j['recall']:.3f} |")
        B.say(out[-1])
    return "\n".join(out) + "\n"


def table(extra=()):
    h = hwu(extra)
    j = journal(extra)
    b = banking(extra)
    lines = [
        "| set | measure | Kindred themes | reference |",
        "|---|---|---:|---:|",
        f"| HWU64 3 000 train (held out) | AMI against the {h['k']} scenarios | **{h['kindred']:.3f}** | k-means (k = {h['k']}): {h['kmeans']:.3f}; groups alone: {h['groups']:.3f} |",
        f"| HWU64 3 000 train | themes / texts in a theme | {h['themes']} / {h['covered']:.1%} | |",
        f"| HWU64 3 000 train | theme ids kept by a refresh adding 10 % | {h['kept'][0]} of {h['kept'][1]} | |",
        f"| HWU64 3 000 train | group-level AMI (64 intents) | {h['intent_ami']:.3f} | |",
        f"| journal (held out) | co-themed situation pairs right (precision) | **{j['precision']:.3f}** ({j['right']} of {j['pairs']}) | |",
        f"| journal | key pairs co-themed (recall) | {j['recall']:.3f} (of {j['key_pairs']}) | |",
        f"| journal | themes / ids kept adding 10 % | {j['themes']} / {j['kept'][0]} of {j['kept'][1]} | |",
        f"| BANKING77 test | themes / texts in a theme | {b['themes']} / {b['covered']:.1%} | |",
        f"| BANKING77 test | theme ids kept by a refresh adding 10 % | {b['kept'][0]} of {b['kept'][1]} | |",
        f"| BANKING77 test | group-level AMI (77 intents) | {b['intent_ami']:.3f} | |",
    ]
    lines.append("")
    lines.append("Journal pairs co-themed: " + "; ".join(f"{a} + {b}{'' if s else ' (not in the key)'}" for a, b, s in j["list"]))
    lines.append("")
    lines.append("Journal theme labels: " + "; ".join(f'"{v}"' for v in j["labels"].values()))
    lines.append("")
    lines.append("HWU64 theme labels (first 12): " + "; ".join(f'"{v}"' for v in list(h["labels"].values())[:12]))
    lines.append(f"\nIdempotent (a second theme refresh changes nothing): HWU64 {h['idempotent']}, BANKING77 {b['idempotent']}")
    for l in lines:
        B.say(l)
    return "\n".join(lines) + "\n"


def hwu_test(extra=()):
    """HWU64's test split (the calibration set of the group thresholds, disjoint from the 3 000
    train texts reported): topic-level AMI against the scenarios, and k-means told k = 18."""
    sets = {name: (texts, labels) for name, _, texts, labels in B.calibration_sets()}
    texts, labels = sets["hwu64-test"]
    coarse = [l.split("_")[0] for l in labels]
    x = B.embed("hwu64-test", texts)
    r = run_kindred(x, texts, extra)
    return {"kindred": ami(coarse, topics(r["final"], r["themes_final"])), "groups": ami(coarse, topics(r["final"], [-1] * len(texts))),
            "kmeans": ami(coarse, list(B.kmeans(x, len(set(coarse))))), "themes": r["themes_active"],
            "kept": (r["theme_ids_kept"], r["theme_ids_before"])}
