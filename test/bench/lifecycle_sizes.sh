#!/usr/bin/env bash
# Bytes and count errors of grown / sbf_agg / union filters at n = 1 .. 1e6
# (lifecycle_sizes.sql), in a throwaway cluster (bench_cluster.sh) of the
# installation PG_CONFIG names, or of Debian's PostgreSQL 15 when PG_CONFIG is
# not set; sbf must be installed in it (make [PG_CONFIG=...] install).
#   [PG_CONFIG=/path/bin/pg_config] bash test/bench/lifecycle_sizes.sh
# With BASE_PG_CONFIG naming a second installation (another build of sbf, for
# example 1.0 built from its commit), the same script runs there too, for a
# side-by-side table.  Writes test/bench/results/lifecycle_sizes.txt.  Never a
# pass/fail test.  Run as root.
set -euo pipefail
cd "$(dirname "$0")"
if [ "${1:-}" = --inside ]; then	# in the throwaway cluster
	psql -X -q -c "CREATE EXTENSION sbf"
	export PGOPTIONS="-c client_min_messages=warning"
	echo "# sbf $(psql -X -At -c "SELECT extversion FROM pg_extension WHERE extname = 'sbf'"), $(psql -X -At -c "SELECT version()" | cut -d, -f1)"
	exec psql -X -q -v ON_ERROR_STOP=1 -f lifecycle_sizes.sql
fi
OUT=results/lifecycle_sizes.txt
mkdir -p results
{
	echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), sbf commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
	bash ./bench_cluster.sh "" bash ./lifecycle_sizes.sh --inside
	if [ -n "${BASE_PG_CONFIG:-}" ]; then
		echo
		PG_CONFIG=$BASE_PG_CONFIG bash ./bench_cluster.sh "" bash ./lifecycle_sizes.sh --inside
	fi
} > "$OUT"
cat "$OUT"
