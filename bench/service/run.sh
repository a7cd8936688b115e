#!/usr/bin/env bash
# Placing one record through `kindred serve` on a history of N records (default 20 000):
#
#   bench/service/run.sh [--n 20000] [--place 30] [--synthetic] [--prepared DIR]
#
# Needs the grouping speed corpus (bench/results/grouping-data/speed-corpus.{txt,f32}), which
# `bench/grouping/run.sh speed` writes, unless --synthetic, and a release build (built here unless
# SKIP_BUILD is set; KINDRED_BIN names another binary).
# Results: bench/results/service-YYYYMMDD.md (git-ignored), also printed.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [[ " $* " != *" --synthetic "* ]] && [ ! -f bench/results/grouping-data/speed-corpus.f32 ]; then
    echo "missing bench/results/grouping-data/speed-corpus.f32: run bench/grouping/run.sh speed first" >&2
    exit 2
fi
if [ -z "${SKIP_BUILD:-}" ]; then swift build -c release --product kindred; fi
exec python3 bench/service/place_one.py "$@"
