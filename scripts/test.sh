#!/usr/bin/env bash
# The whole test suite from a fresh clone: dependencies, model, unit and service tests (Swift Testing),
# then end-to-end tests that drive the release binary over pipes with third-party clients (pytest).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/fetch-model.sh
swift build -c release
swift test
KINDRED_BIN="$PWD/.build/release/kindred" bash tests-e2e/run.sh
