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
# OpenBLAS 0.3.21 (Debian 12) does not recognise some CPUs — e.g. the project VMs, which report a
# generic "Intel Xeon Processor" with AVX-512 — and then falls back to its SSE3 Prescott kernels,
# about 2.5× slower. Unless OPENBLAS_CORETYPE is already set, pick the kernels from the CPU flags
# (SkylakeX for AVX-512, Haswell for AVX2). The variable is read when the library loads, so it has
# to be in the environment of the kindred process. torch ships its own kernels and is unaffected.
set -euo pipefail
cd "$(dirname "$0")/../.."

if [[ -z "${OPENBLAS_CORETYPE:-}" ]]; then
    flags="$(grep -m1 '^flags' /proc/cpuinfo || true)"
    if [[ "$flags" =~ avx512f && "$flags" =~ avx512bw && "$flags" =~ avx512vl && "$flags" =~ avx512dq ]]; then
        export OPENBLAS_CORETYPE=SkylakeX
    elif [[ "$flags" =~ avx2 && "$flags" =~ fma ]]; then
        export OPENBLAS_CORETYPE=Haswell
    fi
fi

venv=bench/.venv-embed
torch_spec="${TORCH_SPEC:-torch==2.13.0+cpu}"
st_spec="sentence-transformers==6.2.0"

if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c "import sentence_transformers, torch" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet "$torch_spec" "$st_spec"
fi

scripts/fetch-model.sh
swift build -c release --product kindred-bench
exec "$venv/bin/python" bench/embedder/bench.py --kindred-bench .build/release/kindred-bench "$@"
