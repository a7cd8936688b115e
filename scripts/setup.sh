#!/usr/bin/env bash
# One command from a fresh clone: dependencies, model, release build, the bundled dataset loaded into
# an SQLite file, then a natural-language search and a pattern refresh over it; it ends by linking
# `kindred` into a folder on the PATH and printing where the database is and what to try next.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/fetch-model.sh
swift build -c release
bin=.build/release/kindred
db="${KINDRED_DEMO_DB:-.kindred/demo.sqlite}"
mkdir -p "$(dirname "$db")"
rm -f "$db" "$db-wal" "$db-shm"
"$bin" ingest --db "$db" --owner demo datasets/journal/records.jsonl
echo
"$bin" search --db "$db" --owner demo --limit 5 "the dream where I kept missing a train"
echo
"$bin" status --db "$db" --owner demo
echo
"$bin" patterns refresh --db "$db" --owner demo
echo
"$bin" patterns findings --db "$db" --owner demo --limit 5
bash scripts/next-steps.sh "$bin" "$db" demo
