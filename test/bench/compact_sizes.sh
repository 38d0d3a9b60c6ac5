#!/usr/bin/env bash
# Compiles test/bench/compact_sizes.c with -O2 against the core and runs it:
# today's aggregate final beside a set of fingerprints in two codes (issue
# 36's small values), n = 1 .. 10^6 at 1% and 0.1%.  HDR (argument, default
# 20) is the compact form's bytes outside its code, the 4-byte varlena header
# included: version, flags, fingerprint bits, Rice parameter (1 byte each),
# error_rate (8), count and capacity (varints, 2 bytes each up to 16,383).
# Never a pass/fail test.
#   usage: bash test/bench/compact_sizes.sh [HDR [n ...]]   (sizes given: 1% only)
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$(mktemp -d)/compact_sizes
trap 'rm -rf "$(dirname "$bin")"' EXIT
cc -O2 -std=gnu11 -Wall -Wextra -Werror $(printf -- '-I%s ' src/core/*/) -o "$bin" test/bench/compact_sizes.c src/core/*/*.c -lm
echo "# compact_sizes.sh at $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src test/bench/compact_sizes.c || echo '+changes'), $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$bin" "$@"
