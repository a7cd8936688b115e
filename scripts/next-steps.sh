#!/usr/bin/env bash
# The end of scripts/setup.sh: makes `kindred` runnable by name and says where things are and what to
# try next, in commands that work as printed (tests-e2e/test_setup_next_steps.py runs them).
#   bash scripts/next-steps.sh [BINARY] [DATABASE] [OWNER]
# KINDRED_LINK_DIR: the folder on the PATH to link `kindred` into (default: the first writable one of
# /usr/local/bin and ~/.local/bin that is on the PATH).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-.build/release/kindred}"
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"   # absolute, through .build/release (kept across rebuilds)
db="$(realpath "${2:-${KINDRED_DEMO_DB:-.kindred/demo.sqlite}}")"
owner="${3:-demo}"

link_dir="${KINDRED_LINK_DIR:-}"
if [ -z "$link_dir" ]; then
    for d in /usr/local/bin "$HOME/.local/bin"; do
        case ":$PATH:" in *":$d:"*) if [ -d "$d" ] && [ -w "$d" ]; then link_dir="$d"; break; fi ;; esac
    done
fi
kindred="$bin"
echo
if [ -n "$link_dir" ] && ln -sf "$bin" "$link_dir/kindred" 2>/dev/null; then
    echo "kindred: $link_dir/kindred (a link to $bin)"
    [ "$(command -v kindred || true)" = "$link_dir/kindred" ] && kindred=kindred
else
    echo "kindred: $bin"
    echo "  not on the PATH; to run it by name: sudo ln -sf $bin /usr/local/bin/kindred"
    echo "  (or: export PATH=\"$(dirname "$bin"):\$PATH\")"
fi
q() { printf '%q' "$1"; }
echo "demo database: $db (the bundled journal, datasets/journal), owner $owner"
echo
echo "Try:"
echo "  $kindred search --db $(q "$db") --owner $(q "$owner") \"a dream about missing a train\""
echo "  $kindred patterns findings --db $(q "$db") --owner $(q "$owner") --kind dream --limit 3"
echo "  $kindred patterns show --db $(q "$db") --owner $(q "$owner") 1"
echo
echo "The README's \"Using it\" runs on this database from the repository folder; every command has --help."
