#!/usr/bin/env bash
# The body of wal_bench.sh, run with PG* variables set.
set -euo pipefail

PSQL=(psql -X -q -At -v ON_ERROR_STOP=1)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sql() { "${PSQL[@]}" -c "$1"; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", (b > 0) ? a / b : 0}'; }
lsn() { sql "SELECT pg_current_wal_insert_lsn()"; }
# WAL bytes between two LSNs
waldiff() { sql "SELECT pg_wal_lsn_diff('$2', '$1')::bigint"; }

echo "# sbf live-update benchmark (WAL per update, ranking tps)"
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) CPUs; $(sql 'SELECT version()' | cut -d, -f1)"
echo "sbf commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- ../../src ../../sql 2>/dev/null || echo ' with local changes'); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "settings: full_page_writes=$(sql 'SHOW full_page_writes'), wal_level=$(sql 'SHOW wal_level'), data_checksums=$(sql 'SHOW data_checksums'); pgbench -M prepared, DURATION=$DURATION s, REPS=$REPS (medians)"
echo

sql "CREATE EXTENSION IF NOT EXISTS sbf"
sql "SET client_min_messages = warning; DROP TABLE IF EXISTS naive, twocol, posts"
# big filters by sbf_agg: about 10 kB, 1 MB and 10 MB
sql "CREATE TABLE naive (user_id int PRIMARY KEY, seen scalablebloom)"
sql "INSERT INTO naive
	 SELECT u, (SELECT sbf_agg('u' || u || ':' || i) FROM generate_series(1, n) i)
	 FROM (VALUES (1, 8000), (2, 800000), (3, 8000000)) v(u, n)"
sql "CREATE TABLE twocol (user_id int PRIMARY KEY, seen scalablebloom, recent scalablebloom)"
sql "INSERT INTO twocol SELECT user_id, seen, sbf_delta(seen) FROM naive"
sql "VACUUM ANALYZE naive"
sql "VACUUM ANALYZE twocol"
echo "## filters"
sql "SELECT format('user %s: seen %s bytes (%s distinct), recent %s bytes (%s)', user_id,
		pg_column_size(seen), # seen, pg_column_size(recent), sbf_info(recent)->>'form')
	 FROM twocol ORDER BY user_id"
echo

cat > "$work/naive.sql" <<'SQL'
UPDATE naive SET seen = seen || ('live:' || random()) WHERE user_id = :u;
SQL
cat > "$work/pattern.sql" <<'SQL'
UPDATE twocol SET recent = recent || ('live:' || random()) WHERE user_id = :u;
SQL

# Prints WAL bytes per transaction of script $1 for user $2 over $3 runs.
wal_per_update() {
	local before after
	sql "CHECKPOINT"
	before=$(lsn)
	pgbench -n -M prepared -c 1 -t "$3" -D u="$2" -f "$work/$1" >/dev/null 2>&1
	after=$(lsn)
	awk -v b="$(waldiff "$before" "$after")" -v n="$3" 'BEGIN {printf "%.0f", b / n}'
}

echo "## WAL bytes per live update"
printf '%-6s %10s %14s %16s %8s %22s %12s\n' user seen_bytes naive_per_upd pattern_per_upd ratio recent_after_200 merge_wal
for u in 1 2 3; do
	bytes=$(sql "SELECT pg_column_size(seen) FROM naive WHERE user_id = $u")
	naive=$(wal_per_update naive.sql $u 20)
	pattern=$(wal_per_update pattern.sql $u 200)
	recent=$(sql "SELECT pg_column_size(recent) || ' B ' || (sbf_info(recent)->>'form') FROM twocol WHERE user_id = $u")
	sql "CHECKPOINT"
	before=$(lsn)
	sql "UPDATE twocol SET seen = seen || recent, recent = NULL WHERE user_id = $u"
	after=$(lsn)
	merge=$(waldiff "$before" "$after")
	sql "UPDATE twocol SET recent = sbf_delta(seen) WHERE user_id = $u"
	printf '%-6s %10s %14s %16s %8s %22s %12s\n' "$u" "$bytes" "$naive" "$pattern" "$(ratio "$naive" "$pattern")" "$recent" "$merge"
done
sql "SELECT format('after the merges: fpr_bound <= error_rate for every user: %s',
		bool_and((sbf_info(seen)->>'fpr_bound')::float8 <= (sbf_info(seen)->>'error_rate')::float8)) FROM twocol"
echo

# ranking: 120 candidate posts of 3 objects, a quarter of them seen by user 2
sql "CREATE TABLE posts AS
	 SELECT p AS post_id, ARRAY(SELECT CASE WHEN (p + j) % 4 = 0 THEN 'u2:' || (p * 7 + j) ELSE 'o:' || p || ':' || j END
								FROM generate_series(1, 3) j) AS objects
	 FROM generate_series(1, 12000) p"
sql "ALTER TABLE posts ADD PRIMARY KEY (post_id)"
sql "UPDATE twocol SET recent = sbf_add(recent, ARRAY(SELECT 'live:' || i FROM generate_series(1, 100) i)) WHERE user_id = 2"
sql "ANALYZE posts"
cat > "$work/one.sql" <<'SQL'
\set a random(1, 11880)
SELECT p.post_id, sbf_matches(f.seen, p.objects) AS hits
FROM naive f, posts p WHERE f.user_id = 2 AND p.post_id BETWEEN :a AND :a + 119;
SQL
cat > "$work/two.sql" <<'SQL'
\set a random(1, 11880)
SELECT p.post_id,
	   (SELECT count(*) FROM unnest(p.objects) o WHERE f.seen @> o OR f.recent @> o) AS hits
FROM twocol f, posts p WHERE f.user_id = 2 AND p.post_id BETWEEN :a AND :a + 119;
SQL
cat > "$work/two_matches.sql" <<'SQL'
\set a random(1, 11880)
SELECT p.post_id, sbf_matches(f.seen, p.objects) + sbf_matches(f.recent, p.objects) AS hits
FROM twocol f, posts p WHERE f.user_id = 2 AND p.post_id BETWEEN :a AND :a + 119;
SQL
# both queries find every object user 2 has seen (u2:1 .. u2:800000); they
# may differ by false positives, the filters being different
sql "SELECT format('no false negatives over 2000 posts: one column %s, two columns %s',
		bool_and(a.hits >= e.n), bool_and(b.hits >= e.n)) FROM
	 (SELECT p.post_id, sbf_matches(f.seen, p.objects) AS hits FROM naive f, posts p
	  WHERE f.user_id = 2 AND p.post_id <= 2000) a JOIN
	 (SELECT p.post_id, (SELECT count(*) FROM unnest(p.objects) o WHERE f.seen @> o OR f.recent @> o) AS hits
	  FROM twocol f, posts p WHERE f.user_id = 2 AND p.post_id <= 2000) b USING (post_id) JOIN
	 (SELECT post_id, (SELECT count(*) FROM unnest(objects) o
					   WHERE o LIKE 'u2:%' AND substr(o, 4)::int <= 800000) AS n
	  FROM posts WHERE post_id <= 2000) e USING (post_id)"

echo "## ranking tps, user 2 (1 MB filter), 120 candidates, pgbench -c 2 -j 2 -T $DURATION"
# the kinds take turns within each repetition, so load drift hits all alike
# (and each repetition's ratios to its own one-column run are reported too:
# the three runs of a repetition share the machine's load of those seconds)
declare -A res runs rr
for r in $(seq "$REPS"); do
	declare -A t=()
	for kind in one two two_matches; do
		t[$kind]=$(pgbench -n -M prepared -c 2 -j 2 -T "$DURATION" -f "$work/$kind.sql" 2>/dev/null |
					awk '/^tps/ {print $3; exit}')
		runs[$kind]+=" ${t[$kind]}"
		rr[$kind]+=" $(ratio "${t[$kind]}" "${t[one]}")"
	done
done
for kind in one two two_matches; do
	# shellcheck disable=SC2086
	res[$kind]=$(median ${runs[$kind]})
	echo "  $kind runs (tps):${runs[$kind]}; ratio to one in each repetition:${rr[$kind]}"
done
# shellcheck disable=SC2086
rng() { printf '%s\n' "$@" | sort -g | sed -n '1p;$p' | paste -sd-; }
printf '%-44s %10s %8s %18s %12s\n' query tps vs_one "median_run_ratio" "range"
printf '%-44s %10s %8s %18s %12s\n' "one column: sbf_matches(seen, objects)" "${res[one]}" 1.00 1.00 -
for kind in two two_matches; do
	case $kind in
	two) l="two columns: seen @> o OR recent @> o" ;;
	two_matches) l="two columns: sbf_matches(seen)+(recent)" ;;
	esac
	# shellcheck disable=SC2086
	printf '%-44s %10s %8s %18s %12s\n' "$l" "${res[$kind]}" "$(ratio "${res[$kind]}" "${res[one]}")" \
		"$(median ${rr[$kind]})" "$(rng ${rr[$kind]})"
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
