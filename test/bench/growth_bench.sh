#!/usr/bin/env bash
# Memory after 1000x growth by adds, by the rule of the appended segments'
# kind (test/bench/growth_bench.c; docs/format4.md, sections 4 and 6).
#   usage: bash test/bench/growth_bench.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$(mktemp -d)/growth_bench
cc -O2 -std=gnu11 -Wall -Wextra -Werror $(printf -- '-I%s ' src/core/*/) -o "$bin" test/bench/growth_bench.c src/core/*/*.c -lm
"$bin"
rm -rf "$(dirname "$bin")"
