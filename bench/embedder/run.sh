#!/usr/bin/env bash
# Benchmarks Kindred's embedder against sentence-transformers (run by hand; not part of the tests).
#
# Creates a pinned virtualenv in bench/.venv-embed (git-ignored) with CPU torch and
# sentence-transformers, builds kindred in release mode, then runs bench.py. Extra arguments go to
# bench.py (e.g. --out bench/embedder/RESULTS.md, --only st).
#
# torch: 2.13.0+cpu is the CPU-only build (no CUDA wheels); pip finds it through PIP_FIND_LINKS on
# the project machines. Elsewhere, override: TORCH_SPEC="torch==2.15.0" bench/embedder/run.sh
# (PyPI's default Linux torch wheels pull several GB of CUDA libraries).
#
# On CPUs OpenBLAS 0.3.21 does not recognise, it falls back to its slow Prescott kernels; set
# OPENBLAS_CORETYPE (e.g. SkylakeX or Haswell) in the environment to choose the kernels.
set -euo pipefail
cd "$(dirname "$0")/../.."

venv=bench/.venv-embed
torch_spec="${TORCH_SPEC:-torch==2.13.0+cpu}"
st_spec="sentence-transformers==6.2.0"

if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c "import sentence_transformers, torch" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet "$torch_spec" "$st_spec"
fi

scripts/fetch-model.sh
swift build -c release --product kindred
exec "$venv/bin/python" bench/embedder/bench.py --kindred .build/release/kindred "$@"
