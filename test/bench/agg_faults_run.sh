#!/usr/bin/env bash
# One group of N distinct bigints, count(*) and sbf_agg, each in a fresh
# session on both clusters of f4_pair.sh (never a pass/fail test): the
# backend's minor page faults and CPU ms for the query (/proc/self/stat,
# clock-tick resolution).  A page fault costs ~15 us on this machine, so
# new memory touched is a large part of a 1M build.
#   BASE=7ce5f56 B13=/var/tmp/pg18-X bash test/bench/f4_pair.sh "work_mem=4MB" \
#     bash test/bench/agg_faults_run.sh 1000000 5      (as root)
n=$1 reps=${2:-3}
ST="SELECT 'S '||split_part(pg_read_file('/proc/self/stat'), ') ', 2)"
tick=$(awk -v t="$(getconf CLK_TCK)" 'BEGIN {print 1000 / t}')
one() {
  local b=$1 qq=$2 h p
  eval "h=\$H$b p=\$P$b"
  PGOPTIONS="-c client_min_messages=warning" psql -X -q -At -h "$h" -p "$p" -U postgres -d postgres \
   -c "CREATE EXTENSION IF NOT EXISTS sbf" -c "SET work_mem='4MB'" -c "SET jit=off" -c "$ST" -c "$qq" -c "$ST" | grep '^S ' | awk -v tick="$tick" '
   NR==1{split($0,a," ")} NR==2{split($0,b," "); printf "%d %d\n", b[9]-a[9], ((b[13]+b[14])-(a[13]+a[14]))*tick}'
}
for _ in $(seq "$reps"); do
 for b in 12 13; do
  c=$(one $b "SELECT count(*) FROM (SELECT generate_series(1, $n::bigint) AS x) s")
  s=$(one $b "SELECT octet_length(sbf_agg(x)::bytea) FROM (SELECT generate_series(1, $n::bigint) AS x) s")
  echo "n=$n build=$b count(faults cpu_ms)=$c sbf(faults cpu_ms)=$s"
 done
done
