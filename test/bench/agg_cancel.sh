#!/usr/bin/env bash
# How fast a spilling sbf_agg stops at its statement_timeout, in each phase,
# and whether it leaves temporary files (never a pass/fail test).
#
# In a throwaway cluster (work_mem 4MB) it first runs sbf_agg over one group
# of N distinct bigints (default 40M; BIG=1: 200M) with client_min_messages
# = debug1, and stamps the messages that say when the final starts merging
# the runs and when it starts building the filter.  Collecting (with its
# spills), merging and building are the three phases; it then reruns the
# query with statement_timeout in the middle of each (and just after the
# first spill), and prints how long after the timeout the server raised the
# error (the server log's timestamps of the statement and of the error), how
# long after it the client had its answer (the abort deletes the temporary
# files first, whose pages the kernel drops), and how many files
# pg_ls_tmpdir() shows afterwards.
#   BIN  bin directory of the PostgreSQL 15 to run (default the system's)
set -euo pipefail
cd "$(dirname "$0")"
N=${N:-40000000}
[ "${BIG:-0}" = 1 ] && N=200000000
BIN=${BIN:-/usr/lib/postgresql/15/bin}
D=$(mktemp -d /tmp/aggcancel.XXXXXX)
chown postgres: "$D"
PORT=$(( 20000 + RANDOM % 20000 ))
runuser -u postgres -- "$BIN/initdb" -D "$D/data" -A trust -U postgres >/dev/null
runuser -u postgres -- "$BIN/pg_ctl" -D "$D/data" -l "$D/log" -w start -o \
	"-p $PORT -k $D -c listen_addresses='' -c jit=off -c max_parallel_workers_per_gather=0 -c log_line_prefix='%m [%p] ' -c log_statement=all" >/dev/null
trap 'runuser -u postgres -- "$BIN/pg_ctl" -D "$D/data" -m immediate stop >/dev/null; rm -rf "$D"' EXIT
export PGHOST=$D PGPORT=$PORT PGUSER=postgres PGDATABASE=postgres PATH="$BIN:$PATH"
psql -X -q -c 'CREATE EXTENSION sbf'
Q="SELECT octet_length(sbf_agg(x)::bytea) FROM (SELECT generate_series(1, $N::bigint) AS x) s"

now() { date +%s.%N; }
# the phases: a full run with the final's debug messages stamped on arrival
t0=$(now)
psql -X -q -At -c 'SET client_min_messages = debug1' -c "$Q" 2>&1 >/dev/null |
	while IFS= read -r line; do echo "$(now) $line"; done >"$D/phases"
t1=$(now)
merge=$(awk '/merging/ {print $1; exit}' "$D/phases")
build=$(awk '/building a filter/ {print $1; exit}' "$D/phases")
total=$(echo "$t1 - $t0" | bc -l)
m=$(echo "$merge - $t0" | bc -l)
b=$(echo "$build - $t0" | bc -l)
printf 'sbf_agg over %s distinct bigints, work_mem 4MB: %.2f s; the merge starts at %.2f s, the filter build at %.2f s\n\n' \
	"$N" "$total" "$m" "$b"
printf '| %-22s | %10s | %16s | %16s | %10s |\n' phase "timeout ms" "error late by ms" "answer late by ms" "files left"
printf '|%s|\n' "------------------------|-----------:|-----------------:|-----------------:|-----------:"
# milliseconds since the epoch of a log line's "%m" prefix
log_ms() { date -d "$(echo "$1" | cut -d' ' -f1-2)" +%s%3N; }
cancel() {
	local label=$1 ms=$2 s e files tag st er
	tag="/* cancel $RANDOM$RANDOM */"
	s=$(now)
	psql -X -q -At -c "SET statement_timeout = $ms" -c "$Q $tag" >/dev/null 2>&1 || true
	e=$(now)
	files=$(psql -X -At -c 'SELECT count(*) FROM pg_ls_tmpdir()')
	st=$(grep -F "statement: $Q $tag" "$D/log" | head -1)
	er=$(grep -A0 "canceling statement due to statement timeout" "$D/log" | tail -1)
	printf '| %-22s | %10d | %16d | %16.0f | %10s |\n' "$label" "$ms" \
		"$(( $(log_ms "$er") - $(log_ms "$st") - ms ))" \
		"$(echo "($e - $s) * 1000 - $ms" | bc -l)" "$files"
}
cancel "collect, first spills" 300
cancel "collect and spill" "$(echo "$m * 500 / 1" | bc)"
cancel "merge" "$(echo "($m + $b) * 500 / 1" | bc)"
cancel "filter build" "$(echo "($b + $total) * 500 / 1" | bc)"
echo
echo "(answer late by: from the client, so it includes starting psql and the session, about 10-20 ms here)"
