#!/usr/bin/env bash
# The body of lookup_bench.sh, run in bench_cluster.sh's throwaway cluster (PG* variables set).
set -euo pipefail

PSQL=(psql -X -q -At -v ON_ERROR_STOP=1)
REPS=${REPS:-3}
DURATION=${DURATION:-10}
CLIENTS=${CLIENTS:-4}
NREQ=1000
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

sql() { "${PSQL[@]}" -c "$1"; }

# Prints the median of its arguments.
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# Prints a / b with 2 decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", (b > 0) ? a / b : 0}'; }

echo "# sbf lookup benchmark"
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) CPUs; $(sql 'SELECT version()' | cut -d, -f1)"
echo "sbf commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- ../../src ../../sql 2>/dev/null || echo ' with local changes'); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "settings: shared_buffers=1GB jit=off; pgbench -M prepared -c $CLIENTS -j 2 -T $DURATION, REPS=$REPS (medians)"
echo

sql "CREATE EXTENSION sbf"
echo "## data"
t0=$(date +%s)
"${PSQL[@]}" -v scale=1 -v nposts=200000 -v nreq=$NREQ -f lookup_data.sql >/dev/null
sql "SELECT format('interactions: %s rows; user 1: %s rows, %s distinct objects, filter %s bytes (%s segment(s)); typical users 10..1000: %s..%s rows, filters %s..%s bytes (median %s)',
	(SELECT count(*) FROM interactions),
	(SELECT count(*) FROM interactions WHERE user_id = 1),
	(SELECT count(*) FROM user_objects WHERE user_id = 1),
	(SELECT pg_column_size(seen) FROM user_filters WHERE user_id = 1),
	(SELECT jsonb_array_length(sbf_info(seen)->'segments') FROM user_filters WHERE user_id = 1),
	min(n), max(n), min(b), max(b), percentile_disc(0.5) WITHIN GROUP (ORDER BY b))
	FROM (SELECT f.user_id, pg_column_size(f.seen) AS b,
				 (SELECT count(*) FROM interactions i WHERE i.user_id = f.user_id) AS n
		  FROM user_filters f WHERE f.user_id BETWEEN 10 AND 1000) s"
sql "SELECT format('posts: %s, objects per post %s..%s (avg %s); sized filters: %s',
	count(*), min(cardinality(objects)), max(cardinality(objects)), round(avg(cardinality(objects)), 2),
	(SELECT string_agg(format('%s bytes (%s keys)', pg_column_size(seen), n), ', ' ORDER BY id) FROM sized_filters))
	FROM posts"
echo "generated in $(( $(date +%s) - t0 )) s"
echo

# The request: one user and 120 candidate posts (a prepared row of
# requests), scored five ways.
cat > "$work/floor.sql" <<'SQL'
\set r random(:lo, :hi)
SELECT p.post_id, cardinality(p.objects) AS hits
FROM requests r JOIN user_filters f ON f.user_id = r.user_id
	 JOIN posts p ON p.post_id = ANY (r.post_ids)
WHERE r.req_id = :r;
SQL
cat > "$work/exact.sql" <<'SQL'
\set r random(:lo, :hi)
SELECT p.post_id,
	   (SELECT count(*) FILTER (WHERE EXISTS (SELECT 1 FROM user_objects u
											  WHERE u.user_id = r.user_id AND u.object = o))
		FROM unnest(p.objects) o) AS hits
FROM requests r JOIN posts p ON p.post_id = ANY (r.post_ids)
WHERE r.req_id = :r;
SQL
cat > "$work/arrays.sql" <<'SQL'
\set r random(:lo, :hi)
SELECT p.post_id, p.objects && a.objects AS hit
FROM requests r JOIN user_arrays a ON a.user_id = r.user_id
	 JOIN posts p ON p.post_id = ANY (r.post_ids)
WHERE r.req_id = :r;
SQL
cat > "$work/sbf_matches.sql" <<'SQL'
\set r random(:lo, :hi)
SELECT p.post_id, sbf_matches(f.seen, p.objects) AS hits
FROM requests r JOIN user_filters f ON f.user_id = r.user_id
	 JOIN posts p ON p.post_id = ANY (r.post_ids)
WHERE r.req_id = :r;
SQL
cat > "$work/sbf_any.sql" <<'SQL'
\set r random(:lo, :hi)
SELECT p.post_id, f.seen @> ANY (p.objects) AS hit
FROM requests r JOIN user_filters f ON f.user_id = r.user_id
	 JOIN posts p ON p.post_id = ANY (r.post_ids)
WHERE r.req_id = :r;
SQL

# Prints the tps of one pgbench run of script $1 over requests $2..$3.
tps_of() {
	pgbench -n -M prepared -c "$CLIENTS" -j 2 -T "$DURATION" -D lo="$2" -D hi="$3" -f "$work/$1.sql" 2>&1 |
		sed -n 's/^tps = \([0-9.]*\) .*/\1/p'
}

variants=(floor exact arrays sbf_matches sbf_any)
declare -A label=(
	[floor]='floor: no membership test'
	[exact]='exact: EXISTS per object, btree (user_id, object)'
	[arrays]='exact arrays: text[] && per-user text[]'
	[sbf_matches]='sbf: sbf_matches(seen, objects)'
	[sbf_any]='sbf: seen @> ANY (objects)')
declare -A lo=([typical]=1 [heavy]=$((NREQ + 1)) [random]=$((2 * NREQ + 1)))
declare -A hi=([typical]=$NREQ [heavy]=$((2 * NREQ)) [random]=$((3 * NREQ)))
declare -A TPS

echo "## ranking request: 120 candidates for one user (tps, $CLIENTS clients)"
for class in typical heavy random; do
	for v in "${variants[@]}"; do	# warm-up
		pgbench -n -M prepared -c "$CLIENTS" -j 2 -T 1 -D lo="${lo[$class]}" -D hi="${hi[$class]}" \
			-f "$work/$v.sql" >/dev/null 2>&1
	done
done
declare -A runs=() RR=() XF=()
# every request kind takes its turn in every repetition, so that load drift
# on a shared machine hits all of them alike; each run is also divided by
# the floor run of its own repetition and class (seconds apart)
for ((i = 0; i < REPS; i++)); do
	for class in typical heavy random; do
		for v in "${variants[@]}"; do
			t=$(tps_of "$v" "${lo[$class]}" "${hi[$class]}")
			[ "$v" = floor ] && f=$t
			runs[$class,$v]+="$t "
			RR[$class,$v]+="$(ratio "$t" "$f") "
		done
	done
done
for class in typical heavy random; do
	for v in "${variants[@]}"; do
		# shellcheck disable=SC2086
		TPS[$class,$v]=$(median ${runs[$class,$v]})
		# shellcheck disable=SC2086
		XF[$class,$v]=$(median ${RR[$class,$v]})
		echo "  $class $v runs: ${runs[$class,$v]}; x floor of the same repetition: ${RR[$class,$v]}"
	done
done
echo
echo "x floor, median of the repetitions' own ratios (each run against the floor run of its repetition):"
printf '| %-50s | %9s | %9s | %9s |\n' request typical 1M-user random
for v in "${variants[@]}"; do
	printf '| %-50s | %9s | %9s | %9s |\n' "${label[$v]}" "${XF[typical,$v]}" "${XF[heavy,$v]}" "${XF[random,$v]}"
done
echo
echo "ratio of medians:"
# "1M / typical" compares the two users' x-floor ratios: the floor request
# itself differs a little between them (user_filters row, plan)
printf '| %-50s | %11s | %7s | %11s | %7s | %12s |\n' request "typical tps" "x floor" "1M-user tps" "x floor" "1M / typical"
printf '|%s|%s|%s|%s|%s|%s|\n' "----------------------------------------------------" "-------------" "---------" "-------------" "---------" "--------------"
: > "results/lookup_bench.tsv"
for v in "${variants[@]}"; do
	t=${TPS[typical,$v]} h=${TPS[heavy,$v]}
	printf '| %-50s | %11.1f | %7s | %11.1f | %7s | %12s |\n' "${label[$v]}" "$t" \
		"$(ratio "$t" "${TPS[typical,floor]}")" "$h" "$(ratio "$h" "${TPS[heavy,floor]}")" \
		"$(awk -v a="$h" -v b="${TPS[heavy,floor]}" -v c="$t" -v d="${TPS[typical,floor]}" \
			'BEGIN {printf "%.2f", (a / b) / (c / d)}')"
	printf '%s\t%s\t%s\n' "$v" "$t" "$h" >> "results/lookup_bench.tsv"
done
for v in "${variants[@]}"; do
	printf 'random users (2..2001, rarely the same filter twice in a row): %-50s %9.1f tps, %s x floor\n' \
		"${label[$v]}" "${TPS[random,$v]}" "$(ratio "${TPS[random,$v]}" "${TPS[random,floor]}")"
done
echo "raw tps 1M-user / typical: floor $(ratio "${TPS[heavy,floor]}" "${TPS[typical,floor]}"), sbf_matches $(ratio "${TPS[heavy,sbf_matches]}" "${TPS[typical,sbf_matches]}"), @> ANY $(ratio "${TPS[heavy,sbf_any]}" "${TPS[typical,sbf_any]}")"
for c in typical heavy; do
	echo "$c: sbf_matches / exact = $(ratio "${TPS[$c,sbf_matches]}" "${TPS[$c,exact]}"), sbf_matches / exact arrays = $(ratio "${TPS[$c,sbf_matches]}" "${TPS[$c,arrays]}"), @> ANY / exact = $(ratio "${TPS[$c,sbf_any]}" "${TPS[$c,exact]}")"
done
echo

echo "## single lookup: SELECT seen @> 'k<i>' FROM sized_filters WHERE id = \$1 (1 client, latency ms)"
cat > "$work/one_present.sql" <<'SQL'
\set i random(1, 5000)
SELECT seen @> ('k' || :i) FROM sized_filters WHERE id = :id;
SQL
cat > "$work/one_absent.sql" <<'SQL'
\set i random(1, 1000000)
SELECT seen @> ('absent' || :i) FROM sized_filters WHERE id = :id;
SQL
cat > "$work/one_floor.sql" <<'SQL'
\set i random(1, 5000)
SELECT ('k' || :i) IS NOT NULL FROM sized_filters WHERE id = :id;
SQL
cat > "$work/one_full.sql" <<'SQL'
SELECT octet_length(seen::bytea) FROM sized_filters WHERE id = :id;
SQL
# Prints the average latency (ms) of one single-client run.
lat_of() {
	pgbench -n -M prepared -c 1 -T "$(( (DURATION + 1) / 2 ))" -D id="$2" -f "$work/$1.sql" 2>&1 |
		sed -n 's/^latency average = \([0-9.]*\) ms.*/\1/p'
}
declare -A LAT LR lr
singles=(one_floor one_present one_absent one_full)
for k in "${singles[@]}"; do
	for id in 1 2; do
		pgbench -n -M prepared -c 1 -t 20 -D id=$id -f "$work/$k.sql" >/dev/null 2>&1
	done
done
# interleaved like the ranking runs: in every repetition each query on the
# 10 kB filter, then at once on the 10 MB one; their ratio per repetition
for ((i = 0; i < REPS; i++)); do
	for k in "${singles[@]}"; do
		a=$(lat_of "$k" 1) b=$(lat_of "$k" 2)
		LR[$k,1]+="$a " LR[$k,2]+="$b " lr[$k]+="$(ratio "$b" "$a") "
	done
done
for k in "${singles[@]}"; do
	for id in 1 2; do
		# shellcheck disable=SC2086
		LAT[$k,$id]=$(median ${LR[$k,$id]})
		echo "  $k id=$id runs: ${LR[$k,$id]}"
	done
	echo "  $k 10 MB / 10 kB in each repetition: ${lr[$k]}"
done
printf '| %-44s | %10s | %10s | %8s | %s |\n' query "10 kB ms" "10 MB ms" "10 MB / 10 kB" "median of the repetitions' 10 MB / 10 kB"
printf '|%s|%s|%s|%s|%s|\n' "----------------------------------------------" "------------" "------------" "----------" "---------"
for k in "${singles[@]}"; do
	case $k in
		one_floor) l='no lookup (same row fetch)' ;;
		one_present) l='seen @> element, present' ;;
		one_absent) l='seen @> element, absent' ;;
		one_full) l='reference: full detoast (seen::bytea)' ;;
	esac
	# shellcheck disable=SC2086
	printf '| %-44s | %10s | %10s | %8s | %s |\n' "$l" "${LAT[$k,1]}" "${LAT[$k,2]}" "$(ratio "${LAT[$k,2]}" "${LAT[$k,1]}")" "$(median ${lr[$k]})"
done
echo

# the plot: tps per request kind, typical user vs the 1.1M-interaction user
if ! command -v gnuplot >/dev/null; then
	echo "plot: skipped, gnuplot is not installed"
	echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
	exit 0
fi
gnuplot <<GP
set terminal pngcairo noenhanced size 900,540 font ",10"
set bmargin 4
set output "plots/lookup_tps.png"
set title "Ranking request (120 candidates), pgbench -c $CLIENTS, $(nproc) CPUs, PG $(sql "SHOW server_version" | cut -d. -f1): median tps"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set ylabel "transactions per second"
set logscale y
set yrange [0.5:*]
set grid ytics
set key top right
set xtics ("floor" 0, "exact\nEXISTS" 1, "exact\ntext[] &&" 2, "sbf\nsbf_matches" 3, "sbf\n@> ANY" 4)
plot "results/lookup_bench.tsv" using 2 title "typical user (60-6,000 interactions)", \
	 "" using 3 title "user with 1.1M interactions"
GP
echo "plot: test/bench/plots/lookup_tps.png"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
