#!/usr/bin/env bash
# Before/after benchmark of sbf lookups: two builds of sbf, each installed in
# its own PostgreSQL 15 tree, side by side in one run (never a pass/fail
# test).
#   test/bench/lookup_compare.sh BASE_BINDIR NEW_BINDIR
# e.g. (dev machine, private installs made by devcheck.sh from a checkout of
# branch main and from this tree):
#   test/bench/lookup_compare.sh /opt/pg-speed10/lib/postgresql/15/bin \
#       /opt/pg-speed/lib/postgresql/15/bin
# It starts one throwaway cluster per build, generates the lookup benchmark's
# data (lookup_data.sql, without the exact tables) in the first and copies it
# to the second, then runs every case in both builds in turn, REPS times, so
# that load drifts on a shared machine hit both alike:
#   ranking request (120 candidates, pgbench -c CLIENTS): the floor (no
#   membership test) and sbf_matches, for typical users (10..1000), for the
#   same heavy user (1.1M interactions) asking again and again, and for random
#   users (2..2001);
#   single lookup (1 client, latency): seen @> present/absent element on a
#   10 kB and a 10 MB filter, once with the session cache on (the same filter
#   asked again and again) and once with sbf.cache_size = 0 (every lookup
#   reads the filter as if for the first time, as a filter read once does).
# Prints medians, and ratios new / base; output also goes to
# test/bench/results/lookup_compare.txt.  Run as root (clusters run as
# postgres).  Environment: REPS (3), DURATION (5 s), CLIENTS (4), SCALE (1),
# NPOSTS (50000).
set -euo pipefail
cd "$(dirname "$0")"
BASE=$1 NEW=$2
REPS=${REPS:-3} DURATION=${DURATION:-5} CLIENTS=${CLIENTS:-4}
SCALE=${SCALE:-1} NPOSTS=${NPOSTS:-50000} NREQ=1000
mkdir -p results
work=$(mktemp -d /tmp/lookup_compare.XXXXXX)
chown postgres: "$work"
declare -A BIN=([base]=$BASE [new]=$NEW) PORT=([base]=$((30000 + RANDOM % 5000)) [new]=$((35000 + RANDOM % 5000)))
builds=(base new)
stop_all() {
	for b in "${builds[@]}"; do
		runuser -u postgres -- "${BIN[$b]}/pg_ctl" -D "$work/$b" -m immediate stop >/dev/null 2>&1 || true
	done
	rm -rf "$work"
}
trap stop_all EXIT
as_pg() { runuser -u postgres -- "$@"; }
psql_b() { local b=$1; shift; as_pg "${BIN[$b]}/psql" -X -q -At -v ON_ERROR_STOP=1 -h "$work" -p "${PORT[$b]}" -U postgres postgres "$@"; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", (b > 0) ? a / b : 0}'; }

{
echo "# sbf lookup benchmark, before/after"
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "base: $BASE"
echo "new:  $NEW"
echo "settings: shared_buffers=512MB jit=off; pgbench -M prepared -c $CLIENTS -j 2 -T $DURATION, REPS=$REPS (medians), SCALE=$SCALE NPOSTS=$NPOSTS"
for b in "${builds[@]}"; do
	as_pg "${BIN[$b]}/initdb" -D "$work/$b" -A trust -U postgres >/dev/null
	as_pg "${BIN[$b]}/pg_ctl" -D "$work/$b" -l "$work/$b.log" -w \
		-o "-p ${PORT[$b]} -k $work -c listen_addresses='' -c shared_buffers=512MB -c jit=off -c max_connections=30" start >/dev/null
	psql_b "$b" -c "CREATE EXTENSION sbf"
done
t0=$(date +%s)
psql_b base -v scale="$SCALE" -v nposts="$NPOSTS" -v nreq=$NREQ -v slim=1 -f "$PWD/lookup_data.sql" >/dev/null
as_pg "${BIN[base]}/pg_dump" -h "$work" -p "${PORT[base]}" -U postgres -t requests -t posts -t user_filters -t sized_filters postgres |
	psql_b new >/dev/null
psql_b new -c "VACUUM ANALYZE"
echo "data generated and copied in $(( $(date +%s) - t0 )) s"
psql_b base -c "SELECT format('user 1: filter %s bytes; users 10..1000: filters %s..%s bytes; users 2..2001 stored out of line: %s',
	(SELECT pg_column_size(seen) FROM user_filters WHERE user_id = 1),
	(SELECT min(pg_column_size(seen)) FROM user_filters WHERE user_id BETWEEN 10 AND 1000),
	(SELECT max(pg_column_size(seen)) FROM user_filters WHERE user_id BETWEEN 10 AND 1000),
	(SELECT count(*) FROM user_filters WHERE user_id >= 2 AND pg_column_size(seen) > 2000))"
for b in "${builds[@]}"; do
	echo "$b: same bytes as base: $(psql_b "$b" -c "SELECT md5(string_agg(seen::bytea::text, ',' ORDER BY user_id)) FROM user_filters")"
done

cat > "$work/floor.sql" <<'SQL'
\set r random(:lo, :hi)
SELECT p.post_id, cardinality(p.objects) AS hits
FROM requests r JOIN user_filters f ON f.user_id = r.user_id
	 JOIN posts p ON p.post_id = ANY (r.post_ids)
WHERE r.req_id = :r;
SQL
cat > "$work/sbf.sql" <<'SQL'
\set r random(:lo, :hi)
SELECT p.post_id, sbf_matches(f.seen, p.objects) AS hits
FROM requests r JOIN user_filters f ON f.user_id = r.user_id
	 JOIN posts p ON p.post_id = ANY (r.post_ids)
WHERE r.req_id = :r;
SQL
cat > "$work/present.sql" <<'SQL'
\set i random(1, 5000)
SELECT seen @> ('k' || :i) FROM sized_filters WHERE id = :id;
SQL
cat > "$work/absent.sql" <<'SQL'
\set i random(1, 1000000)
SELECT seen @> ('absent' || :i) FROM sized_filters WHERE id = :id;
SQL
chown postgres: "$work"/*.sql

# tps of one pgbench run: build, script, lo, hi
tps_of() {
	as_pg "${BIN[$1]}/pgbench" -n -M prepared -c "$CLIENTS" -j 2 -T "$DURATION" -h "$work" -p "${PORT[$1]}" -U postgres \
		-D lo="$3" -D hi="$4" -f "$work/$2.sql" postgres 2>&1 | sed -n 's/^tps = \([0-9.]*\) .*/\1/p'
}
# average latency (ms) of one single-client run: build, script, id, cache setting
lat_of() {
	PGOPTIONS="-c sbf.cache_size=$4" as_pg "${BIN[$1]}/pgbench" -n -M prepared -c 1 -T "$DURATION" -h "$work" \
		-p "${PORT[$1]}" -U postgres -D id="$3" -f "$work/$2.sql" postgres 2>&1 |
		sed -n 's/^latency average = \([0-9.]*\) ms.*/\1/p'
}
declare -A lo=([typical]=1 [heavy]=$((NREQ + 1)) [random]=$((2 * NREQ + 1)))
declare -A hi=([typical]=$NREQ [heavy]=$((2 * NREQ)) [random]=$((3 * NREQ)))
declare -A runs=() M=()
classes=(typical heavy random)
for b in "${builds[@]}"; do	# warm-up
	for c in "${classes[@]}"; do
		for v in floor sbf; do
			as_pg "${BIN[$b]}/pgbench" -n -M prepared -c "$CLIENTS" -j 2 -T 1 -h "$work" -p "${PORT[$b]}" -U postgres \
				-D lo="${lo[$c]}" -D hi="${hi[$c]}" -f "$work/$v.sql" postgres >/dev/null 2>&1
		done
	done
done
for ((i = 0; i < REPS; i++)); do
	for c in "${classes[@]}"; do
		for v in floor sbf; do
			for b in "${builds[@]}"; do
				runs[$b,$c,$v]+="$(tps_of "$b" "$v" "${lo[$c]}" "${hi[$c]}") "
			done
		done
	done
	for k in present absent; do
		for id in 1 2; do
			for cache in 32MB 0; do
				for b in "${builds[@]}"; do
					runs[$b,$k,$id,$cache]+="$(lat_of "$b" "$k" "$id" "$cache") "
				done
			done
		done
	done
done
for key in "${!runs[@]}"; do
	# shellcheck disable=SC2086
	M[$key]=$(median ${runs[$key]})
	echo "  runs $key: ${runs[$key]}"
done | sort
for key in "${!runs[@]}"; do
	# shellcheck disable=SC2086
	M[$key]=$(median ${runs[$key]})
done
echo
echo "## ranking request (tps, $CLIENTS clients; medians)"
printf '| %-40s | %9s | %9s | %9s | %10s | %10s |\n' case "base tps" "new tps" "new/base" "base x floor" "new x floor"
printf '|%s|%s|%s|%s|%s|%s|\n' ------------------------------------------ ----------- ----------- ----------- ------------ ------------
for c in "${classes[@]}"; do
	case $c in
		typical) l='typical users (10..1000)' ;;
		heavy) l='same heavy user, repeated requests' ;;
		random) l='random users (2..2001)' ;;
	esac
	for v in floor sbf; do
		printf '| %-40s | %9.1f | %9.1f | %9s | %12s | %12s |\n' "$l: $v" "${M[base,$c,$v]}" "${M[new,$c,$v]}" \
			"$(ratio "${M[new,$c,$v]}" "${M[base,$c,$v]}")" \
			"$(ratio "${M[base,$c,$v]}" "${M[base,$c,floor]}")" "$(ratio "${M[new,$c,$v]}" "${M[new,$c,floor]}")"
	done
done
for b in "${builds[@]}"; do
	echo "$b: heavy user / typical user (sbf tps) = $(ratio "${M[$b,heavy,sbf]}" "${M[$b,typical,sbf]}"); typical user / floor = $(ratio "${M[$b,typical,sbf]}" "${M[$b,typical,floor]}"); random users / floor = $(ratio "${M[$b,random,sbf]}" "${M[$b,random,floor]}")"
done
echo
echo "## single lookup: SELECT seen @> element FROM sized_filters WHERE id = \$1 (1 client, latency ms; medians)"
printf '| %-52s | %8s | %8s | %8s |\n' case "base ms" "new ms" "new/base"
printf '|%s|%s|%s|%s|\n' ------------------------------------------------------ ---------- ---------- ----------
for id in 1 2; do
	for k in present absent; do
		for cache in 0 32MB; do
			if [ "$cache" = 0 ]; then how='read once (sbf.cache_size = 0)'; else how='asked again and again'; fi
			printf '| %-52s | %8s | %8s | %8s |\n' "$([ $id = 1 ] && echo '10 kB' || echo '10 MB'), $k, $how" \
				"${M[base,$k,$id,$cache]}" "${M[new,$k,$id,$cache]}" "$(ratio "${M[new,$k,$id,$cache]}" "${M[base,$k,$id,$cache]}")"
		done
	done
done
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
} 2>&1 | tee results/lookup_compare.txt
