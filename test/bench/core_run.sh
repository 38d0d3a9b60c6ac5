#!/usr/bin/env bash
# Runs a core-only benchmark against the working tree's core, from the
# repository's top:
#   bash test/bench/core_run.sh NAME [args...]
# compiles test/bench/NAME.c (-O2) with every source of src/core, runs it
# (nice) with args, and writes its output after two header lines (commit,
# command) to test/bench/results/NAME.txt.  Used by bucket_kinds.sh and
# grown_segments.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
name=${1:?usage: core_run.sh NAME [args...]}
shift
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mapfile -t incs < <(find src/core -type d | sed 's/^/-I/')
mapfile -t srcs < <(find src/core -name '[a-z]*.c' | sort)
${CC:-cc} -O2 -Wall -Wextra -Werror "${incs[@]}" -Itest/bench -o "$out/$name" \
	"test/bench/$name.c" "${srcs[@]}" -lm
{
	echo "# $name: sbf commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src || echo '+changes'), $(date -u +%Y-%m-%dT%H:%MZ)"
	echo "# command: bash test/bench/$name.sh $*"
	nice "$out/$name" "$@"
} | tee "test/bench/results/$name.txt"
