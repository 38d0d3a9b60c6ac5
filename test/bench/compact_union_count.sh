#!/usr/bin/env bash
# Compiles test/bench/compact_union_count.c with -O2 against the core and
# runs it: the count of a union of K small values in the compact form
# against 1.3's one-segment values (issue 36).  Never a pass/fail test.
#   usage: bash test/bench/compact_union_count.sh [n K ...]
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$(mktemp -d)/compact_union_count
trap 'rm -rf "$(dirname "$bin")"' EXIT
cc -O2 -std=gnu11 -Wall -Wextra -Werror $(printf -- '-I%s ' src/core/*/) -o "$bin" test/bench/compact_union_count.c src/core/*/*.c -lm
echo "# compact_union_count.sh at $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src test/bench/compact_union_count.c || echo '+changes'), $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores"
"$bin" "$@"
