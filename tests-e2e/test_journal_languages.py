"""Pattern groups on the bundled journal in German (datasets/journal-de, scored with the English key),
through the real binary with the multilingual model in-process (`embedder.model=multilingual-e5-small`,
no judge, one refresh after loading). English MiniLM does not read German (member precision 0.47,
recall 0.06); with e5 the German journal groups about as well as the English one does with the
same model. The floors are the figures measured on 2026-12-07 (bench/grouping/README.md, "a journal
in another language") less a small margin, so a change that costs grouping in German fails here."""

import json
import os
import pathlib

import pytest

from conftest import REPO, Server
from test_journal_precision import groups_of, member_precision, score

E5_DIR = pathlib.Path(os.environ.get("XDG_DATA_HOME") or pathlib.Path.home() / ".local" / "share") / "kindred" / "models" / "multilingual-e5-small"

# Measured with int8 dense layers (the default on a CPU with AVX-512 VNNI): member precision 0.662,
# pair precision 0.809, recall 0.366; float32: 0.699, 0.842, 0.403.
MEMBER_PRECISION, PAIR_PRECISION, RECALL = 0.62, 0.76, 0.33


@pytest.mark.skipif(not E5_DIR.is_dir(), reason="multilingual-e5-small is not installed (bash scripts/fetch-e5-model.sh)")
def test_the_german_journal_groups_with_the_multilingual_model(tmp_path):
    records = [json.loads(line) for line in (REPO / "datasets" / "journal-de" / "records.jsonl").read_text().splitlines() if line.strip()]
    key = json.loads((REPO / "datasets" / "journal" / "situations.json").read_text())
    args = ["--set", "embedder.model=multilingual-e5-small"]
    groups = groups_of(lambda: Server(tmp_path / "journal-de.sqlite", tmp_path, args=args), records)
    p, r, _ = score(key, groups)
    mp = member_precision(key, groups)
    assert mp >= MEMBER_PRECISION and p >= PAIR_PRECISION and r >= RECALL, (
        f"journal-de with e5: member precision {mp:.3f} (floor {MEMBER_PRECISION}), pair precision {p:.3f} "
        f"(floor {PAIR_PRECISION}), recall {r:.3f} (floor {RECALL}), {len(groups)} groups")
