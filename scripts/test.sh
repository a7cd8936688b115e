#!/usr/bin/env bash
# The whole test suite from a fresh clone: dependencies, model, unit and service tests (Swift Testing),
# then end-to-end tests that drive the release binary over pipes with third-party clients (pytest).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/fetch-model.sh
bash scripts/fetch-e5-model.sh   # multilingual-e5-small, for its parity tests (about a minute, 92 MB download)
swift build -c release
# The kindred binary picks OpenBLAS kernels from the CPU flags when OPENBLAS_CORETYPE is unset
# (LinearAlgebra/BLASCoreType.swift); the test process gets the same choice here.
if [[ -z "${OPENBLAS_CORETYPE:-}" ]]; then
    flags="$(grep -m1 '^flags' /proc/cpuinfo || true)"
    if [[ " $flags " == *" avx512f "* && " $flags " == *" avx512bw "* && " $flags " == *" avx512dq "* && " $flags " == *" avx512vl "* ]]; then
        export OPENBLAS_CORETYPE=SkylakeX
    elif [[ " $flags " == *" avx2 "* && " $flags " == *" fma "* ]]; then
        export OPENBLAS_CORETYPE=Haswell
    fi
fi
swift test
# The library example: an app's use of KindredKit's public API, on a fresh database.
example_db="$(mktemp -d)/kindred-kit-example.sqlite"
.build/release/KindredKitExample "$example_db"
rm -rf "$(dirname "$example_db")"
KINDRED_BIN="$PWD/.build/release/kindred" bash tests-e2e/run.sh
