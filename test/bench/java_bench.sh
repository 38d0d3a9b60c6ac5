#!/usr/bin/env bash
# The Java reader measured (never a test), both comparisons side by side in
# one run:
#  1. ns per probe by kind (bloom, blocked, fused, exact, windowed): the C
#     core (test/bench/java_kinds.c, -O2) builds one value of each kind from
#     the same 100,000 elements, times its own probes, writes the bytes; the
#     Java bench (clients/java/bench) reads the same bytes and times its
#     probes of the same hashes (thread CPU time, medians; the same counts
#     found, checked);
#  2. the 120-candidate request of test/bench/python_bench.py: in process
#     (Filter.matches) against the same request in SQL (a prepared
#     sbf_matches over JDBC) on a throwaway cluster of the PostgreSQL that
#     SBF_JAVA_PG_CONFIG names (default Debian's 15, installed and run under
#     /var/lock/sbf-pg15.lock), the answers checked equal.
#   usage: bash test/bench/java_bench.sh > test/bench/results/java_bench.txt
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
pg_config=${SBF_JAVA_PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
bash clients/java/build.sh > /dev/null
jdk=$(ls -d /usr/lib/jvm/java-17-openjdk-*/ | head -n 1)
work=$(mktemp -d /tmp/sbf-javabench.XXXXXX)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
cp="$root/clients/java/build/sbf.jar:$root/clients/java/build/sbf-jdbc.jar:/usr/share/java/postgresql.jar"
"${jdk}bin/javac" --release 17 -d "$work/cls" -cp "$cp" clients/java/bench/sbf/bench/JavaBench.java
cc -O2 -std=gnu11 -Wall -Wextra -Werror $(printf -- '-I%s ' src/core/*/) -o "$work/java_kinds" test/bench/java_kinds.c src/core/*/*.c -lm
echo "# bash test/bench/java_bench.sh at $(git rev-parse --short HEAD), $(date -u +%Y-%m-%dT%H:%MZ)," \
	"$(nproc) cores, $(uname -m), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $("${jdk}bin/java" -version 2>&1 | head -n 1), $(cc --version | head -n 1)"
echo
echo "## ns per probe by kind, C core against Java (100,000 elements at 1%; exact: 2,000 hashes)"
echo
echo "C: sbf_contains_hash / sbf_win_contains one call a hash, and batched (sbf_count_contained /"
echo "sbf_win_count_contained, 120 hashes a call, what sbf_matches runs); Java: Filter.containsHash"
echo "over the same hashes. probe+ members, probe- non-members; 10^6 probes, thread CPU time, median"
echo "of 5 (C) and 7 (Java) runs. The last column is the element hash alone in Java (Filter.hash of"
echo "cached ASCII strings of 5 to 8 characters: UTF-8 bytes and XXH3-64)."
echo
mkdir -p "$work/kinds"
nice "$work/java_kinds" "$work/kinds" 100000 1000000 5 > "$work/c_out.txt"
nice "${jdk}bin/java" -cp "$work/cls:$cp" sbf.bench.JavaBench kinds "$work/kinds" "$work/c_out.txt"
echo
echo "## the 120-candidate request"
echo
make -s -j2 PG_CONFIG="$pg_config" > /dev/null
export pg_config work cp jdk
run() {
	make -s PG_CONFIG="$pg_config" install > /dev/null
	SBF_PG_LISTEN=127.0.0.1 PG_CONFIG="$pg_config" bash test/pg_tmp.sh \
		nice "${jdk}bin/java" -cp "$work/cls:$cp" sbf.bench.JavaBench request
}
export -f run
if [ "$pg_config" = /usr/lib/postgresql/15/bin/pg_config ]; then
	flock /var/lock/sbf-pg15.lock bash -c run
else
	bash -c run
fi
