#!/usr/bin/env bash
# Regenerates the pictures of the bundled journal shown in the README (docs/pictures/*.svg):
# loads datasets/journal into a fresh SQLite file as scripts/setup.sh does, refreshes its patterns,
# then draws the pattern map and the findings timeline (the last seven months against the seven before).
#   bash scripts/make-pictures.sh        (after `swift build -c release`)
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${KINDRED_BIN:-.build/release/kindred}"
db="$(mktemp -d)/journal.sqlite"
trap 'rm -rf "$(dirname "$db")"' EXIT
"$bin" ingest --db "$db" --owner demo datasets/journal/records.jsonl >/dev/null
"$bin" patterns refresh --db "$db" --owner demo >/dev/null
mkdir -p docs/pictures
"$bin" patterns map --db "$db" --owner demo --out docs/pictures/journal-map.svg
"$bin" patterns timeline --db "$db" --owner demo --out docs/pictures/journal-timeline.svg \
    --from 2025-08-01 --to 2026-02-28 --compare-from 2025-01-01 --compare-to 2025-07-31
