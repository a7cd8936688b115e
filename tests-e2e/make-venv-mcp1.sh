#!/usr/bin/env bash
# The virtualenv of the mcp 1.x client test (test_mcp_v1.py): mcp 1.x and 2.x cannot share one venv.
# Lives in tests-e2e/.venv-mcp1 (git-ignored); pinned by requirements-mcp1.txt; reused once made.
# Bounded: pip gives up after 5 minutes.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$here/.venv-mcp1"
stamp="$venv/.requirements"
if [[ -x "$venv/bin/python" && -f "$stamp" ]] && cmp -s "$stamp" "$here/requirements-mcp1.txt"; then
    exit 0
fi
[[ -x "$venv/bin/python" ]] || python3 -m venv "$venv"
timeout 300 "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --timeout 60 -r "$here/requirements-mcp1.txt"
cp "$here/requirements-mcp1.txt" "$stamp"
