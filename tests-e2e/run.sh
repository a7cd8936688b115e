#!/usr/bin/env bash
# End-to-end tests against the real `kindred` binary.
#   bash tests-e2e/run.sh [pytest args...]
# The binary comes from $KINDRED_BIN, else <repo>/.build/release/kindred (build it with
# `swift build -c release` first). The virtualenvs live in tests-e2e/.venv, tests-e2e/.venv-mcp1
# (the mcp 1.x client) and tests-e2e/.venv-llama (llama.cpp's chat server) and are reused.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$here/.venv"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv" || exit 1
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --timeout 60 -r "$here/requirements.txt" || exit 1
# The Python client, installed from its folder as an application would (tests-e2e/test_python_client.py).
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$here/../clients/python" || exit 1
# The mcp 1.x client cannot share that venv (test_mcp_v1.py): it gets its own, .venv-mcp1.
bash "$here/make-venv-mcp1.sh" || exit 1
# llama.cpp's chat server and its model (test_judge_llama.py) get theirs too, .venv-llama.
bash "$here/make-venv-llama.sh" || exit 1
cd "$here"
"$venv/bin/python" -m pytest -q "$@"
code=$?
if [ "$code" -eq 5 ]; then
    exit 0
fi
exit "$code"
