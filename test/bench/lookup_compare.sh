#!/usr/bin/env bash
# Before/after benchmark of sbf lookups: two builds of sbf, each installed in
# its own copy of one PostgreSQL installation, side by side in one run (never
# a pass/fail test).
#   test/bench/lookup_compare.sh BASE_BINDIR NEW_BINDIR
# e.g. with two private copies of the built PostgreSQL 18 (cp -a the install
# directory twice; then `make PG_CONFIG=COPY/bin/pg_config install` from a
# checkout of the base commit into one and from this tree into the other):
#   bash test/bench/lookup_compare.sh /var/cache/sbf/pg18-base/bin \
#       /var/cache/sbf/pg18-bench/bin
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
#   reads the filter as if for the first time, as a filter read once does);
#   # seen and sbf_info(seen) on the same two filters (1 client, latency).
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
minimum() { printf '%s\n' "$@" | sort -g | head -1; }
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
cat > "$work/card.sql" <<'SQL'
SELECT # seen FROM sized_filters WHERE id = :id;
SQL
cat > "$work/info.sql" <<'SQL'
SELECT sbf_info(seen) FROM sized_filters WHERE id = :id;
SQL
chown postgres: "$work"/*.sql

# Server CPU time (ms) used so far by a cluster's backends that have exited:
# the postmaster's cutime + cstime (it reaps every backend).  pgbench opens
# new connections for each run, so a run's backends are all counted once it
# ends.  CPU per request is much less disturbed than wall time by other load
# on a shared machine.
reaped_ms() {
	local pm
	pm=$(head -1 "$work/$1/postmaster.pid")
	awk -v t="$(getconf CLK_TCK)" '{print ($16 + $17) * 1000 / t}' "/proc/$pm/stat"
}
# One pgbench run; prints "tps latency_ms server_cpu_us_per_transaction".
# Arguments: build, script, clients, extra pgbench arguments...
bench_of() {
	local b=$1 f=$2 c=$3 out c0 c1
	shift 3
	c0=$(reaped_ms "$b")
	out=$(as_pg "${BIN[$b]}/pgbench" -n -M prepared -c "$c" -j "$(( c < 2 ? 1 : 2 ))" -T "$DURATION" -h "$work" \
		-p "${PORT[$b]}" -U postgres "$@" -f "$work/$f.sql" postgres 2>&1)
	sleep 0.2	# let the postmaster reap the run's backends
	c1=$(reaped_ms "$b")
	awk -v c0="$c0" -v c1="$c1" '
		/^tps = / {tps = $3}
		/^latency average = / {lat = $4}
		/^number of transactions actually processed: / {split($6, a, "/"); n = a[1]}
		END {printf "%s %s %.1f\n", tps, lat, (n > 0) ? (c1 - c0) * 1000 / n : 0}' <<<"$out"
}
tps_of() {
	bench_of "$1" "$2" "$CLIENTS" -D lo="$3" -D hi="$4"
}
lat_of() {
	PGOPTIONS="-c sbf.cache_size=$4" bench_of "$1" "$2" 1 -D id="$3"
}
declare -A lo=([typical]=1 [heavy]=$((NREQ + 1)) [random]=$((2 * NREQ + 1)))
declare -A hi=([typical]=$NREQ [heavy]=$((2 * NREQ)) [random]=$((3 * NREQ)))
declare -A runs=() cpu=() M=() C=()
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
				read -r t _ u < <(tps_of "$b" "$v" "${lo[$c]}" "${hi[$c]}")
				runs[$b,$c,$v]+="$t "
				cpu[$b,$c,$v]+="$u "
			done
		done
	done
	for k in present absent card info; do
		for id in 1 2; do
			for cache in 32MB 0; do
				case $k in card|info) [ "$cache" = 0 ] && continue ;; esac
				for b in "${builds[@]}"; do
					read -r _ l u < <(lat_of "$b" "$k" "$id" "$cache")
					runs[$b,$k,$id,$cache]+="$l "
					cpu[$b,$k,$id,$cache]+="$u "
				done
			done
		done
	done
done
for key in "${!runs[@]}"; do
	echo "  runs $key: ${runs[$key]} cpu us: ${cpu[$key]}"
done | sort
declare -A MIN=()
for key in "${!runs[@]}"; do
	# shellcheck disable=SC2086
	M[$key]=$(median ${runs[$key]})
	# shellcheck disable=SC2086
	MIN[$key]=$(minimum ${runs[$key]})
	# shellcheck disable=SC2086
	C[$key]=$(median ${cpu[$key]})
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
echo
echo "## ranking request: server CPU per request (us, all backends; medians)"
printf '| %-40s | %9s | %9s | %9s | %12s | %12s |\n' case "base us" "new us" "new/base" "base x floor" "new x floor"
printf '|%s|%s|%s|%s|%s|%s|\n' ------------------------------------------ ----------- ----------- ----------- -------------- --------------
for c in "${classes[@]}"; do
	case $c in
		typical) l='typical users (10..1000)' ;;
		heavy) l='same heavy user, repeated requests' ;;
		random) l='random users (2..2001)' ;;
	esac
	for v in floor sbf; do
		# "x floor" as a throughput ratio: floor CPU / this CPU
		printf '| %-40s | %9s | %9s | %9s | %12s | %12s |\n' "$l: $v" "${C[base,$c,$v]}" "${C[new,$c,$v]}" \
			"$(ratio "${C[new,$c,$v]}" "${C[base,$c,$v]}")" \
			"$(ratio "${C[base,$c,floor]}" "${C[base,$c,$v]}")" "$(ratio "${C[new,$c,floor]}" "${C[new,$c,$v]}")"
	done
done
for b in "${builds[@]}"; do
	echo "$b (by CPU per request): heavy user / typical user = $(ratio "${C[$b,typical,sbf]}" "${C[$b,heavy,sbf]}"); typical user / floor = $(ratio "${C[$b,typical,floor]}" "${C[$b,typical,sbf]}"); random users / floor = $(ratio "${C[$b,random,floor]}" "${C[$b,random,sbf]}")"
done
echo "(best of REPS runs: base / new tps)"
for c in "${classes[@]}"; do
	for v in floor sbf; do
		echo "  $c $v: $(printf '%s\n' ${runs[base,$c,$v]} | sort -g | tail -1) / $(printf '%s\n' ${runs[new,$c,$v]} | sort -g | tail -1)"
	done
done
for b in "${builds[@]}"; do
	echo "$b: heavy user / typical user (sbf tps) = $(ratio "${M[$b,heavy,sbf]}" "${M[$b,typical,sbf]}"); typical user / floor = $(ratio "${M[$b,typical,sbf]}" "${M[$b,typical,floor]}"); random users / floor = $(ratio "${M[$b,random,sbf]}" "${M[$b,random,floor]}")"
done
echo
echo "## single lookup: SELECT seen @> element FROM sized_filters WHERE id = \$1 (1 client, latency ms; medians)"
echo "(min: the fastest of the REPS runs, less disturbed by other load on a shared machine)"
printf '| %-52s | %8s | %8s | %8s | %8s | %8s | %8s |\n' case "base ms" "new ms" "new/base" "base min" "new min" "new/base"
printf '|%s|%s|%s|%s|%s|%s|%s|\n' ------------------------------------------------------ ---------- ---------- ---------- ---------- ---------- ----------
for k in present absent card info; do
	for id in 1 2; do
		for cache in 0 32MB; do
			case $k in card|info) [ "$cache" = 0 ] && continue ;; esac
			if [ "$cache" = 0 ]; then how='read once (sbf.cache_size = 0)'; else how='asked again and again'; fi
			case $k in present) what='seen @> element, present' ;; absent) what='seen @> element, absent' ;;
				card) what='# seen'; how='' ;; info) what='sbf_info(seen)'; how='' ;; esac
			printf '| %-52s | %8s | %8s | %8s | %8s | %8s | %8s |\n' "$([ $id = 1 ] && echo '10 kB' || echo '10 MB'): $what${how:+, $how}" \
				"${M[base,$k,$id,$cache]}" "${M[new,$k,$id,$cache]}" "$(ratio "${M[new,$k,$id,$cache]}" "${M[base,$k,$id,$cache]}")" \
				"${MIN[base,$k,$id,$cache]}" "${MIN[new,$k,$id,$cache]}" "$(ratio "${MIN[new,$k,$id,$cache]}" "${MIN[base,$k,$id,$cache]}")"
		done
	done
done
echo
echo "## single lookup: server CPU per query (us; medians)"
printf '| %-52s | %8s | %8s | %8s |\n' case "base us" "new us" "new/base"
printf '|%s|%s|%s|%s|\n' ------------------------------------------------------ ---------- ---------- ----------
for k in present absent card info; do
	for id in 1 2; do
		for cache in 0 32MB; do
			case $k in card|info) [ "$cache" = 0 ] && continue ;; esac
			if [ "$cache" = 0 ]; then how='read once (sbf.cache_size = 0)'; else how='asked again and again'; fi
			case $k in present) what='seen @> element, present' ;; absent) what='seen @> element, absent' ;;
				card) what='# seen'; how='' ;; info) what='sbf_info(seen)'; how='' ;; esac
			printf '| %-52s | %8s | %8s | %8s |\n' "$([ $id = 1 ] && echo '10 kB' || echo '10 MB'): $what${how:+, $how}" \
				"${C[base,$k,$id,$cache]}" "${C[new,$k,$id,$cache]}" "$(ratio "${C[new,$k,$id,$cache]}" "${C[base,$k,$id,$cache]}")"
		done
	done
done
for b in "${builds[@]}"; do
	echo "$b: 10 MB / 10 kB: # seen $(ratio "${M[$b,card,2,32MB]}" "${M[$b,card,1,32MB]}") latency, $(ratio "${C[$b,card,2,32MB]}" "${C[$b,card,1,32MB]}") CPU; sbf_info $(ratio "${M[$b,info,2,32MB]}" "${M[$b,info,1,32MB]}") latency, $(ratio "${C[$b,info,2,32MB]}" "${C[$b,info,1,32MB]}") CPU"
done
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
} 2>&1 | tee results/lookup_compare.txt
