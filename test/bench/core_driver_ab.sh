#!/usr/bin/env bash
# The core's main paths (core_driver.c) in two builds of the core, by
# instruction count (callgrind: the same on a busy machine as on a quiet
# one), in one run:
#   bash test/bench/core_driver_ab.sh BASE
# compiles core_driver.c against commit BASE's src/core (any folder layout)
# and against the working tree's, with -O2, runs each once under callgrind,
# and prints each build's output (hits and counts: equal when no answer
# changed) and instructions, and the ratio new/base.  No server needed;
# needs valgrind (test/packages.sh does not install it: apt-get install
# valgrind).
set -euo pipefail
cd "$(dirname "$0")/../.."
base=${1:?usage: core_driver_ab.sh BASE}
command -v valgrind > /dev/null || { echo "valgrind is not installed" >&2; exit 2; }
work=$(mktemp -d /var/tmp/sbf-drv.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/base" "$work/new"
git archive "$base" src/core | tar -x -C "$work/base"
cp -a src "$work/new/"
echo "# $(date -u +%Y-%m-%dT%H:%MZ), base $(git rev-parse --short "$base"), new $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src || echo '+changes')"
for v in base new; do
	mapfile -t incs < <(find "$work/$v/src/core" -type d | sed 's/^/-I/')
	mapfile -t srcs < <(find "$work/$v/src/core" -name '[a-z]*.c' | sort)
	cc -O2 "${incs[@]}" -o "$work/$v/drv" test/bench/core_driver.c "${srcs[@]}" -lm
	out=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$work/$v/drv" 2> "$work/$v.vg")
	ir=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$work/$v.vg")
	echo "$v" "$ir" > "$work/$v.ir"
	printf '%-5s output %-28s instructions %s\n' "$v" "$out" "$ir"
done
read -r _ b < "$work/base.ir"
read -r _ n < "$work/new.ir"
awk -v b="$b" -v n="$n" 'BEGIN { printf "new/base instructions %.4f\n", n / b }'
