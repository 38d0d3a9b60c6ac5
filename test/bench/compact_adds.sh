#!/usr/bin/env bash
# Bytes of sbf_agg's values after adds: the compact form rewritten in place
# against adds to its segmented form (compact_adds.sql), in a throwaway
# cluster (bench_cluster.sh) of the installation PG_CONFIG names, Debian's
# PostgreSQL 15 when it is not set (sbf installed there).  Writes
# test/bench/results/compact_adds.txt.  Never a pass/fail test.  Run as root.
#   [PG_CONFIG=/path/bin/pg_config] bash test/bench/compact_adds.sh
set -euo pipefail
cd "$(dirname "$0")"
if [ "${1:-}" = --inside ]; then	# in the throwaway cluster
	export PGOPTIONS="-c client_min_messages=warning"
	exec psql -X -q -v ON_ERROR_STOP=1 -f compact_adds.sql
fi
mkdir -p results
{
	echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), sbf commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- ../../src compact_adds.sql compact_adds.sh || echo '+changes')"
	bash ./bench_cluster.sh "" bash ./compact_adds.sh --inside
} > results/compact_adds.txt
cat results/compact_adds.txt
