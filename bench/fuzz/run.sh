#!/usr/bin/env bash
# The wire fuzzer of tests-e2e/test_fuzz.py, for longer: COUNT messages per framing (half hostile,
# half known-good), then a table of counts (sent, answered, by error code, crashes).
#   bash bench/fuzz/run.sh [COUNT] [SEED]        (default 50000 per framing, seed 1: 100 000 messages)
# The binary comes from $KINDRED_BIN, else <repo>/.build/release/kindred.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
count="${1:-50000}"
seed="${2:-1}"
export KINDRED_BIN="${KINDRED_BIN:-$repo/.build/release/kindred}"
[ -x "$KINDRED_BIN" ] || { echo "build first: swift build -c release" >&2; exit 1; }
exec python3 "$repo/tests-e2e/fuzz_wire.py" --count "$count" --seed "$seed" --framing both
