#!/usr/bin/env bash
# Side-by-side exact cosine top-k benchmark: Kindred vs numpy, FAISS, sqlite-vec, usearch (one thread each).
# Run by hand, not by CI:   bench/search/run.sh [N ...] [bench.py options]
# Defaults to N = 100000 1000000. Example: bench/search/run.sh 100000 --skip sqlite-vec@1000000
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
venv="$repo/bench/.venv-search"

# A Python whose sqlite3 module can load extensions (sqlite-vec needs it; some builds, e.g. pyenv's, cannot).
can_load_ext() { "$1" -c 'import sqlite3,sys; sys.exit(0 if hasattr(sqlite3.connect(":memory:"), "enable_load_extension") else 1)' 2>/dev/null; }
if [ ! -x "$venv/bin/python" ] || ! can_load_ext "$venv/bin/python"; then
    py=""
    for cand in ${PYTHON:-} /usr/bin/python3 python3; do
        if command -v "$cand" >/dev/null 2>&1 && can_load_ext "$cand"; then py="$cand"; break; fi
    done
    [ -n "$py" ] || { echo "no python3 with sqlite3 extension loading found (set PYTHON=...)" >&2; exit 1; }
    rm -rf "$venv"
    echo "creating $venv with $py" >&2
    "$py" -m venv "$venv"
fi
"$venv/bin/pip" install --quiet -r "$here/requirements.txt"

# Kindred's side runs in kindred-bench (the benchmarks' program, not shipped with kindred): built
# here into <repo>/.build unless KINDRED_BENCH_BIN names one already built.
if [ -n "${KINDRED_BENCH_BIN:-}" ]; then
    [ -x "$KINDRED_BENCH_BIN" ] || { echo "KINDRED_BENCH_BIN=$KINDRED_BENCH_BIN is not an executable" >&2; exit 1; }
else
    echo "building kindred-bench (release)" >&2
    (cd "$repo" && swift build -c release --product kindred-bench)
    export KINDRED_BENCH_BIN="$repo/.build/release/kindred-bench"
fi

# One thread for everyone. (bench.py also sets these per engine and unsets OPENBLAS_CORETYPE /
# OPENBLAS_L2_SIZE for the numpy process only.)
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1

# Sizes and options go straight to bench.py (sizes default to 100000 1000000 there).
exec "$venv/bin/python" "$here/bench.py" "$@"
