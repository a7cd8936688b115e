#!/usr/bin/env bash
# bench/cluster: throughput through `kindred serve --cluster` (1, 2, 3 nodes) against `kindred serve
# --db`, and the chaos run (random kill -9 of nodes and nats-servers; 0 acknowledged writes lost).
#   bash bench/cluster/run.sh [throughput.py args]      e.g. --writes 300 --searches 300 --clients 2
#   bash bench/cluster/run.sh chaos [chaos.py args]     e.g. --minutes 10
#   bash bench/cluster/run.sh standbys [standbys.py args] e.g. --writes 400 --rounds 2
#   bash bench/cluster/run.sh replay [replay.py args]     e.g. --writes 600 --rounds 2
#   bash bench/cluster/run.sh snapshots [snapshots.py args] e.g. --writes 1000 --shards 4
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$here/../.."
(cd "$repo" && swift build -c release --product kindred >/dev/null)
export KINDRED_BIN="$repo/.build/release/kindred"
py=python3
[ -x "$repo/tests-e2e/.venv/bin/python" ] && py="$repo/tests-e2e/.venv/bin/python"
if [ "${1:-}" = chaos ]; then
    shift
    exec "$py" "$here/chaos.py" "$@"
fi
if [ "${1:-}" = standbys ] || [ "${1:-}" = replay ] || [ "${1:-}" = snapshots ]; then
    script="$1.py"
    shift
    exec "$py" "$here/$script" "$@"
fi
exec "$py" "$here/throughput.py" "$@"
