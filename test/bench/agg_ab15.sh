#!/usr/bin/env bash
# The aggregates of this tree against those of a base commit on Debian's
# PostgreSQL 15, in one run (never a pass/fail test): both are built from
# copies (git archive of BASE, the working tree as it is), then installed in
# turn, ROUNDS times each, alternating, into PostgreSQL 15 under its lock;
# each install gets a throwaway cluster (test/pg_tmp.sh) that times, REPS
# times, on a table of N distinct bigints (parallel_workers 2): count(*),
# sbf_agg and sbf_hashset_agg serially and with 2 parallel workers, and one
# group of 1M from generate_series.  Prints the median wall ms of each query
# per build, new / base, and whether both builds wrote the same bytes.
#   PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config ROUNDS=2 REPS=3 N=10000000 \
#     bash test/bench/agg_ab15.sh BASE       (as root)
# AB_BODY=lookup times small filters' lookups instead (lookup_ab15_body.sh;
# CALLS lookups a query, default 500000), with the same alternation.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ -n "${SBF_AB_INNER:-}" ] && [ "${AB_BODY:-agg}" = lookup ]; then
	exec bash test/bench/lookup_ab15_body.sh
fi
if [ -n "${SBF_AB_INNER:-}" ]; then
	# inside a throwaway cluster: "query-label ms" lines, then "md5 ..."
	psql -X -q -c "CREATE EXTENSION sbf"
	psql -X -q -c "CREATE UNLOGGED TABLE t AS SELECT (g * 2654435761) % 1000000007 AS x FROM generate_series(1, $N) g" \
		-c "ALTER TABLE t SET (parallel_workers = 2)" -c "VACUUM ANALYZE t"
	set_w() { echo "SET max_parallel_workers_per_gather = $1; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET jit = off;"; }
	for _ in $(seq "$REPS"); do
		for w in 0 2; do
			psql -X -q -At -c "$(set_w $w)" -c '\timing on' -c "SELECT count(*) FROM t" \
				-c "SELECT octet_length(sbf_agg(x)::bytea) FROM t" \
				-c "SELECT octet_length(sbf_hashset_agg(x)::bytea) FROM t" |
				awk -v w="$w" '/^Time:/ {n++; q = n == 1 ? "count" : n == 2 ? "sbf_agg" : "sbf_hashset_agg";
					printf "%s_w%s %s\n", q, w, $2}'
		done
		psql -X -q -At -c "SET jit = off" -c '\timing on' \
			-c "SELECT octet_length(sbf_agg(x)::bytea) FROM (SELECT generate_series(1, 1000000::bigint) AS x) s" |
			awk '/^Time:/ {print "sbf_agg_1M_group", $2}'
	done
	echo "md5 $(psql -X -q -At -c "$(set_w 2)" -c "SELECT md5(sbf_agg(x)::bytea) || md5(sbf_hashset_agg(x)::bytea) FROM t")"
	exit 0
fi
BASE=${1:?usage: agg_ab15.sh BASE}
: "${PG_CONFIG:=/usr/lib/postgresql/15/bin/pg_config}"
ROUNDS=${ROUNDS:-2} REPS=${REPS:-3} N=${N:-10000000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/base" "$tmp/new"
git archive "$BASE" | tar -x -C "$tmp/base"
git ls-files -co --exclude-standard | tar -c -T - | tar -x -C "$tmp/new"
for v in base new; do
	make -s -C "$tmp/$v" PG_CONFIG="$PG_CONFIG" >/dev/null
done
chmod -R a+rX "$tmp"
echo "# agg_ab15.sh: $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo '+changes') against $BASE, $(date -u '+%Y-%m-%d %H:%M') UTC"
echo "# PostgreSQL 15 ($("$PG_CONFIG" --version)), N=$N, ROUNDS=$ROUNDS, REPS=$REPS, work_mem 4MB; load $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$ROUNDS"); do
	for v in base new; do
		flock /var/lock/sbf-pg15.lock sh -c "make -s -C '$tmp/$v' install PG_CONFIG='$PG_CONFIG' >/dev/null &&
			SBF_AB_INNER=1 AB_BODY=${AB_BODY:-agg} CALLS=${CALLS:-500000} N=$N REPS=$REPS PG_CONFIG='$PG_CONFIG' bash test/pg_tmp.sh bash '$PWD/test/bench/agg_ab15.sh'" |
			sed "s/^/$v /" >> "$tmp/times"
	done
done
awk -v what="$([ "${AB_BODY:-agg}" = lookup ] && echo "answers (every lookup query)" || echo "bytes (sbf_agg, sbf_hashset_agg, parallel plan)")" '$2 != "md5" {v[$1 " " $2] = v[$1 " " $2] " " $3; q[$2] = 1}
	$2 == "md5" {m[$1] = m[$1] == "" || m[$1] == $3 ? $3 : "differs"}
	function med(s,   a, n, i, j, t) {
		n = split(s, a, " ")
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	END {
		for (k in q) {
			b = med(v["base " k]); n = med(v["new " k])
			printf "| %-22s | %10.0f | %10.0f | %8.2f |\n", k, b, n, n / b
		}
		print "~same " what ":", (m["base"] == m["new"] && m["base"] != "differs") ? "yes" : "no"
	}' "$tmp/times" | sort > "$tmp/table"
printf '| %-22s | %10s | %10s | %8s |\n' "query (w2: 2 workers)" "base ms" "new ms" "new/base"
printf '|%s|%s|%s|%s|\n' "------------------------" "-----------:" "-----------:" "---------:"
grep '^|' "$tmp/table"
grep '^~' "$tmp/table" | cut -c2-
echo "samples (ms, in run order):"
awk '$2 != "md5" {v[$1 " " $2] = v[$1 " " $2] " " $3} END {for (k in v) print "  " k ":" v[k]}' "$tmp/times" | sort -k2,2 -k1,1
# leave this tree installed
flock /var/lock/sbf-pg15.lock make -s -C "$tmp/new" install PG_CONFIG="$PG_CONFIG" >/dev/null
