#!/usr/bin/env bash
# Benchmark (never a pass/fail test): a cross-shard sbf_agg on a Citus
# cluster, aggregated partially on the workers (sbf 1.1: the state type is
# sbf_hashset, so Citus sends worker_partial_agg to every shard and combines
# the states on the coordinator) against the row-gathering plan (sbf 1.0's
# behaviour: an aggregate with an internal state makes Citus ship every raw
# row to the coordinator and aggregate there).
#
# The row-gathering baseline is the 1.0 aggregate itself: an aggregate
# "rowgather.sbf_agg" over the same shared library's 1.0 support functions
# (internal state), which 1.1 keeps for databases not yet updated.  Citus
# 13.2 has no setting that forces row gathering on an aggregate it can split
# (citus.coordinator_aggregation_strategy only chooses between row-gather and
# an error for aggregates it cannot split).  Both produce the same bytes;
# the script checks it.
#
# Starts its own coordinator and two workers on loopback ports (throwaway
# data directories), loads ROWS interactions, then for each query prints the
# median wall time of REPS interleaved runs, the ratio, and the rows and bytes
# the workers send to the coordinator.  Those are measured by running every
# task's query (EXPLAIN VERBOSE, citus.explain_all_tasks) again on its worker
# and summing the rows and the length of their columns' text form, because
# Citus 13.2 cannot EXPLAIN ANALYZE a worker_partial_agg query
# (citusdata/citus#4043); for the row-gathering plan EXPLAIN ANALYZE's "Tuple
# data received from nodes" is printed as a cross-check.
#
# Needs Citus and sbf installed into the PostgreSQL that PG_CONFIG names
# (test/citus_setup.sh; make install).  Run as root or as postgres.
#   PG_CONFIG  default /usr/lib/postgresql/15/bin/pg_config
#   ROWS (default 2000000), REPS (default 5), SHARDS (default 32, Citus's default)
#   OBJECTS (default 100000): distinct objects; fewer means more repeats, so
#   smaller partial states (an exact set holds each element once per shard
#   and group)
set -euo pipefail

PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
ROWS=${ROWS:-2000000}
REPS=${REPS:-5}
SHARDS=${SHARDS:-32}
OBJECTS=${OBJECTS:-100000}
bin=$("$PG_CONFIG" --bindir)
ext=$("$PG_CONFIG" --sharedir)/extension
for e in citus sbf; do
	if [ ! -f "$ext/$e.control" ]; then
		echo "citus_bench: $e is not installed in $ext (see test/citus_setup.sh)" >&2
		exit 1
	fi
done

as_pg=()
[ "$(id -u)" -eq 0 ] && as_pg=(runuser -u postgres --)
dir=$(mktemp -d /tmp/sbf-citus-bench.XXXXXX)
[ "$(id -u)" -eq 0 ] && chown postgres: "$dir"
base=$((20000 + RANDOM % 20000))
ports=($base $((base + 1)) $((base + 2)))
names=(coordinator worker1 worker2)

# Stops the nodes and removes their data directories.
cleanup() {
	for i in 0 1 2; do
		"${as_pg[@]}" "$bin/pg_ctl" -D "$dir/${names[$i]}" -m immediate stop >/dev/null 2>&1 || true
	done
	rm -rf "$dir"
}
trap cleanup EXIT

# psql on node $1 (0 = coordinator), the rest of the arguments passed on.
node() {
	local i=$1
	shift
	"$bin/psql" -X -q -At -v ON_ERROR_STOP=1 -h "$dir" -p "${ports[$i]}" -U postgres "$@" postgres
}
coord() { node 0 "$@"; }

echo "# Citus: partial aggregation on the workers vs row gathering"
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$("$bin/postgres" --version); ROWS=$ROWS REPS=$REPS SHARDS=$SHARDS OBJECTS=$OBJECTS"

for i in 0 1 2; do
	"${as_pg[@]}" "$bin/initdb" -D "$dir/${names[$i]}" -A trust -U postgres >/dev/null
	cat >> "$dir/${names[$i]}/postgresql.conf" <<EOF
port = ${ports[$i]}
unix_socket_directories = '$dir'
listen_addresses = '127.0.0.1'
shared_preload_libraries = 'citus'
max_prepared_transactions = 20
shared_buffers = 256MB
work_mem = 64MB
jit = off
citus.shard_count = $SHARDS
EOF
	"${as_pg[@]}" "$bin/pg_ctl" -D "$dir/${names[$i]}" -l "$dir/${names[$i]}.log" -w start >/dev/null
	node "$i" -c 'CREATE EXTENSION citus'
done
coord -c "SELECT citus_set_coordinator_host('127.0.0.1', ${ports[0]})" >/dev/null
coord -c "SELECT citus_add_node('127.0.0.1', ${ports[1]})" >/dev/null
coord -c "SELECT citus_add_node('127.0.0.1', ${ports[2]})" >/dev/null
coord -c 'CREATE EXTENSION sbf'
echo "sbf $(coord -c "SELECT extversion FROM pg_extension WHERE extname = 'sbf'"), Citus $(coord -c "SELECT extversion FROM pg_extension WHERE extname = 'citus'")"

# sbf 1.0's aggregate (internal state), from the same library.
coord <<'SQL'
CREATE SCHEMA rowgather;
CREATE FUNCTION rowgather.trans(internal, text) RETURNS internal
	AS '$libdir/sbf', 'sbf_agg_trans_text' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION rowgather.final(internal) RETURNS scalablebloom
	AS '$libdir/sbf', 'sbf_agg_final' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION rowgather.combine(internal, internal) RETURNS internal
	AS '$libdir/sbf', 'sbf_agg_combine' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION rowgather.ser(internal) RETURNS bytea
	AS '$libdir/sbf', 'sbf_agg_serialize' LANGUAGE C STRICT PARALLEL SAFE;
CREATE FUNCTION rowgather.deser(bytea, internal) RETURNS internal
	AS '$libdir/sbf', 'sbf_agg_deserialize' LANGUAGE C STRICT PARALLEL SAFE;
CREATE AGGREGATE rowgather.sbf_agg(text) (SFUNC = rowgather.trans, STYPE = internal,
	SSPACE = 144, FINALFUNC = rowgather.final, FINALFUNC_MODIFY = READ_ONLY,
	COMBINEFUNC = rowgather.combine, SERIALFUNC = rowgather.ser,
	DESERIALFUNC = rowgather.deser, PARALLEL = SAFE);
SQL

# The data: ROWS interactions of 20,000 users over 30 days with OBJECTS
# objects whose popularity is skewed (object = OBJECTS * r^2 for r uniform
# in [0, 1): low numbers are seen often), inserted through the coordinator.
t0=$(date +%s)
coord <<SQL
CREATE TABLE interactions (user_id int NOT NULL, day int NOT NULL, object text NOT NULL);
SELECT create_distributed_table('interactions', 'user_id') \\g /dev/null
INSERT INTO interactions
	SELECT 1 + i % 20000, 1 + (i / 20000) % 30,
		   'sku:' || floor($OBJECTS * ((i * 2654435761 % 1000003) / 1000003.0) ^ 2)::bigint
	FROM generate_series(0, $ROWS - 1) AS i;
ANALYZE interactions;
SQL
echo "$(coord -c "SELECT format('%s rows, %s distinct objects', count(*), count(DISTINCT object))
	FROM interactions"), $(coord -c "SELECT format('%s shards on %s workers, %s',
	count(*), count(DISTINCT nodeport), pg_size_pretty(sum(shard_size)))
	FROM citus_shards WHERE table_name = 'interactions'::regclass") (loaded in $(( $(date +%s) - t0 )) s)"

# Rows and bytes the workers send for query $1: every task's query run on its
# worker, counting rows and the length of their columns' text form.
shipped() {
	local plan query port rows=0 bytes=0 r b
	plan=$(coord -c 'SET citus.explain_all_tasks = on' -c "EXPLAIN (VERBOSE, COSTS OFF) $1")
	while IFS=$'\t' read -r port query; do
		IFS='|' read -r r b < <(node $((port == ports[1] ? 1 : 2)) \
			-c "SELECT count(*), coalesce(sum((SELECT sum(octet_length(v)) FROM json_each_text(row_to_json(t)) AS c(k, v))), 0) FROM ($query) AS t")
		rows=$((rows + r)) bytes=$((bytes + b))
	done < <(echo "$plan" | awk '/^ +Query: /{sub(/^ +Query: /, ""); q=$0}
		/^ +Node: /{match($0, /port=[0-9]+/); print substr($0, RSTART + 5, RLENGTH - 5) "\t" q}')
	echo "$rows $bytes"
}

# Wall milliseconds of one run of query $1 (a fresh session).
time_ms() {
	local t0 t1
	t0=$(date +%s%N)
	coord -c "$1" >/dev/null
	t1=$(date +%s%N)
	echo $(( (t1 - t0) / 1000000 ))
}
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2)}'; }

declare -A Q
Q[day_partial]="SELECT day, md5(bytea(sbf_agg(object))) FROM interactions GROUP BY day ORDER BY day"
Q[day_gather]="SELECT day, md5(bytea(rowgather.sbf_agg(object))) FROM interactions GROUP BY day ORDER BY day"
Q[all_partial]="SELECT md5(bytea(sbf_agg(object))) FROM interactions"
Q[all_gather]="SELECT md5(bytea(rowgather.sbf_agg(object))) FROM interactions"
runs=(day_partial day_gather all_partial all_gather)

echo
echo "## plans (first task of each)"
for q in "${runs[@]}"; do
	echo "$q: ${Q[$q]}"
	coord -c "EXPLAIN (VERBOSE, COSTS OFF) ${Q[$q]}" |
		grep -E '^ *Output: .*(coord_combine_agg|sbf_agg)|Task Count|^ +Query: ' | sed 's/^/    /' |
		head -4
done

echo
echo "## same results"
for g in day all; do
	a=$(coord -c "${Q[${g}_partial]}" | md5sum | cut -c1-32)
	b=$(coord -c "${Q[${g}_gather]}" | md5sum | cut -c1-32)
	echo "$g: partial $a, row-gather $b: $([ "$a" = "$b" ] && echo same bytes || echo DIFFERENT)"
done

echo
echo "## shipped to the coordinator"
declare -A ROWS_SHIPPED BYTES_SHIPPED
for q in "${runs[@]}"; do
	read -r ROWS_SHIPPED[$q] BYTES_SHIPPED[$q] < <(shipped "${Q[$q]}")
	echo "$q: ${ROWS_SHIPPED[$q]} rows, ${BYTES_SHIPPED[$q]} bytes"
done
for q in day_gather all_gather; do
	echo "$q, EXPLAIN ANALYZE: $(coord -c "EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${Q[$q]}" |
		grep -E 'Custom Scan|Tuple data received from nodes' | sed -E 's/^ *(->  )?//' | tr '\n' ';')"
done

echo
echo "## timing (median of $REPS, interleaved; first run of each discarded as warm-up)"
declare -A T
for q in "${runs[@]}"; do time_ms "${Q[$q]}" >/dev/null; done
for ((r = 1; r <= REPS; r++)); do
	for q in "${runs[@]}"; do
		T[$q]="${T[$q]:-} $(time_ms "${Q[$q]}")"
	done
done
printf '| %-12s | %9s | %7s | %12s | %14s | %s\n' query "median ms" ratio "rows shipped" "bytes shipped" "runs (ms)"
for g in day all; do
	base=$(median ${T[${g}_gather]})
	for q in ${g}_gather ${g}_partial; do
		m=$(median ${T[$q]})
		printf '| %-12s | %9d | %7s | %12d | %14d | %s\n' "$q" "$m" \
			"$(awk -v a="$m" -v b="$base" 'BEGIN {printf "%.2f", a / b}')" \
			"${ROWS_SHIPPED[$q]}" "${BYTES_SHIPPED[$q]}" "${T[$q]# }"
	done
done
echo "(ratio = median / the row-gathering median of the same query; wall clock on the client)"
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
