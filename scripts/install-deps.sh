#!/usr/bin/env bash
# Installs the Debian packages Kindred builds against (no-op when they are all present).
set -euo pipefail
# librsvg2-bin: rsvg-convert, which the picture tests render the SVGs with.
# nats-server and libnats-dev: the cluster (kindred node, serve --cluster) and its tests.
# neovim: a real editor's LSP client driving kindred lsp (tests-e2e/test_lsp_neovim.py).
# g++: llama-cpp-python builds llama.cpp from source for the chat-server test (tests-e2e/make-venv-llama.sh;
# cmake and ninja come from PyPI).
# libstemmer-dev: the Snowball stemmers of keyword search in other languages than English.
packages=(libsqlite3-dev libblas-dev libopenblas-dev liblapacke-dev libcurl4-openssl-dev libstemmer-dev pkg-config unzip librsvg2-bin nats-server libnats-dev neovim g++)
missing=()
for p in "${packages[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "installing: ${missing[*]}" >&2
    sudo_cmd=""
    [[ $(id -u) -ne 0 ]] && sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi
command -v swift >/dev/null || { echo "install-deps: swift (6.x) must be on PATH" >&2; exit 1; }
