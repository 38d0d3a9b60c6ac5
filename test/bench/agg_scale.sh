#!/usr/bin/env bash
# How sbf_agg scales with the size of one group (never a pass/fail test).
#
# In a throwaway cluster (pg_virtualenv, default work_mem 4MB, jit off) it
# aggregates one group of N distinct bigints from generate_series (in the
# target list, so nothing is materialised) with count(x), sbf_agg(x),
# sbf_hashset_agg(x) and, when postgresql-15-hll is installed,
# hll_add_agg(hll_hash_bigint(x)), all in the same run, and prints for each
# N: the median wall time of REPS runs, its ratio to count(x), the per-row
# cost against the 1M group's, the filter's bits per element, the temporary
# bytes the query wrote (log_temp_files) and the backend's peak private
# memory above idle (RssAnon sampled every 10 ms).
#
# Run as root from a machine where sbf is built and installed, into the
# installation of BIN (default the system's PostgreSQL 15; a private copy,
# e.g. one that make install DESTDIR=... filled, keeps a shared machine's
# other builds out of the measurement).  Output goes to stdout and to
# test/bench/results/agg_scale.txt.
#   BIN       bin directory of the PostgreSQL 15 to run
#   SIZES     group sizes (default "1000000 10000000 20000000 40000000")
#   BIG=1     also 200,000,000 (one run each; about 10 minutes)
#   REPS      timed runs per query and size (default 3, 1 for 200M)
#   WORK_MEM  work_mem of the runs (default 4MB, PostgreSQL's default)
#   OUT       file name under results/ (default agg_scale.txt)
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p results
export SIZES=${SIZES:-"1000000 10000000 20000000 40000000"}
[ "${BIG:-0}" = 1 ] && SIZES="$SIZES 200000000"
export REPS=${REPS:-3} WORK_MEM=${WORK_MEM:-4MB}
BIN=${BIN:-/usr/lib/postgresql/15/bin}
D=$(mktemp -d /tmp/aggscale.XXXXXX)
chown postgres: "$D"
PORT=$(( 20000 + RANDOM % 20000 ))
runuser -u postgres -- "$BIN/initdb" -D "$D/data" -A trust -U postgres >/dev/null
runuser -u postgres -- "$BIN/pg_ctl" -D "$D/data" -l "$D/log" -w start -o \
	"-p $PORT -k $D -c listen_addresses='' -c shared_buffers=256MB -c jit=off -c max_parallel_workers_per_gather=0 -c log_temp_files=0" >/dev/null
trap 'runuser -u postgres -- "$BIN/pg_ctl" -D "$D/data" -m immediate stop >/dev/null; rm -rf "$D"' EXIT
export PGHOST=$D PGPORT=$PORT PGUSER=postgres PGDATABASE=postgres PATH="$BIN:$PATH"
bash ./agg_scale_run.sh 2>&1 | tee "results/${OUT:-agg_scale.txt}"

# the plot: nanoseconds per row against the group's size, one line per aggregate
res="results/${OUT:-agg_scale.txt}"
if ! command -v gnuplot >/dev/null; then
	echo "plot: skipped, gnuplot is not installed"
	exit 0
fi
tsv=$(mktemp)
awk -F'|' '$2 ~ /^ *[0-9]+ *$/ { n = $2 + 0; a = $3; gsub(/ /, "", a); t[a] = t[a] n "\t" ($4 * 1e9 / n) "\n" }
	END { for (a in t) printf "%s %s\n%s\n\n", a, a, t[a] }' "$res" > "$tsv"
mkdir -p plots
gnuplot <<GP
set terminal pngcairo noenhanced size 900,540 font ",10"
set output "plots/$(basename "$res" .txt).png"
set title "One group of N distinct bigints, work_mem $WORK_MEM, $(nproc) CPUs: cost per row (median of $REPS)"
set logscale x
set xlabel "distinct elements in the group"
set ylabel "nanoseconds per row"
set yrange [0:*]
set grid
set key top left
set format x "%.0s%c"
plot for [i=0:3] "$tsv" index i using 1:2 with linespoints title columnheader(1)
GP
rm -f "$tsv"
echo "plot: test/bench/plots/$(basename "$res" .txt).png"
