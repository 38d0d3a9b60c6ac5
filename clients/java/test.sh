#!/usr/bin/env bash
# The Java reader's whole check: build (build.sh), the JUnit 5 suites (Debian's
# junit5 console launcher) over the cross-language kit (test/kit: every value,
# answer, malformed value and hash), XXH3 against the core's vectors (a small C
# program over src/core/common/sbf_hash.c, when gcc is here), randomized corruption,
# and sbf.jdbc against a throwaway PostgreSQL cluster (test/pg_tmp.sh on
# 127.0.0.1) with sbf installed; skipped when there is no server.  Last line:
#   java: N passed, N failed, N skipped
# (test/run_all.sh tallies it).  Exits non-zero when something failed.
#   SBF_JAVA_KIT        the kit directory (default test/kit of this tree)
#   SBF_JAVA_PG_CONFIG  the PostgreSQL for the JDBC tests (default Debian's 15;
#                       installing into it takes /var/lock/sbf-pg15.lock)
#   SBF_JAVA_LOCK=0     do not take the lock (the caller holds it)
#   SBF_JAVA_JDBC=0     skip the JDBC tests (counted as skipped)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$here/build
kit=${SBF_JAVA_KIT:-$root/test/kit}
pg_config=${SBF_JAVA_PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}

bash "$here/build.sh" || { echo "java: 0 passed, 1 failed, 0 skipped"; exit 1; }
jdk=$(ls -d /usr/lib/jvm/java-17-openjdk-*/ | head -n 1)
java=${jdk}bin/java
junit=/usr/share/java/junit-platform-console-standalone.jar
api=/usr/share/java/junit-jupiter-api.jar:/usr/share/java/apiguardian-api.jar:/usr/share/java/opentest4j.jar
mkdir -p "$build/test-classes/main" "$build/test-classes/jdbc"
"${jdk}bin/javac" --release 17 -encoding UTF-8 -d "$build/test-classes/main" \
	-cp "$build/classes/main:$api" $(find "$here/src/test/java" -name '*.java' | sort) &&
"${jdk}bin/javac" --release 17 -encoding UTF-8 -d "$build/test-classes/jdbc" \
	-cp "$build/sbf.jar:$build/sbf-jdbc.jar:$api" $(find "$here/jdbc/src/test/java" -name '*.java' | sort) ||
	{ echo "java: 0 passed, 1 failed, 0 skipped"; exit 1; }

# the core's XXH3 vectors
vectors=$build/xxh3_vectors.txt
rm -f "$vectors"
if command -v gcc > /dev/null && [ -f /usr/include/xxhash.h ]; then
	gcc -O1 -I "$root/src/core/common" -o "$build/xxh3_vectors" "$here/src/test/c/xxh3_vectors.c" \
		"$root/src/core/common/sbf_hash.c" && "$build/xxh3_vectors" > "$vectors" || rm -f "$vectors"
fi

passed=0 failed=0 skipped=0
# Adds the counts of a JUnit console log $1 whose run exited with $2.
tally_junit() {
	local log=$1 rc=$2 n
	count() { sed -nE "s/^\[ *([0-9]+) tests $1 *\]$/\1/p" "$log" 2>/dev/null | tail -n 1; }
	n=$(count successful); passed=$((passed + ${n:-0}))
	n=$(count failed); n=${n:-0}; [ "$rc" -ne 0 ] && [ "$n" -eq 0 ] && n=1
	failed=$((failed + n))
	n=$(count aborted); skipped=$((skipped + ${n:-0}))
	n=$(count skipped); skipped=$((skipped + ${n:-0}))
	[ "$rc" -eq 0 ] || { echo "---- $log (exit status $rc):"; grep -v '^\s*$' "$log" 2>/dev/null | head -n 80; }
	grep -E '^\[ *[0-9]+ tests (successful|failed|aborted|skipped)' "$log" 2>/dev/null | tr -s ' ' | tr '\n' ' '
	echo
}
# Runs JUnit over the test classes in $1 with the class path $2 into log $3.
run_junit() {
	"$java" -Dsbf.kit="$kit" -Dsbf.xxh3="$vectors" -jar "$junit" --disable-banner \
		--details=summary --fail-if-no-tests --class-path "$1:$2" --scan-class-path "$1" > "$3" 2>&1
	tally_junit "$3" $?
}

echo "== java: reader suites (kit $kit)"
run_junit "$build/test-classes/main" "$build/classes/main:$junit" "$build/junit-main.log"

jdbc_tests() {
	run_junit "$build/test-classes/jdbc" "$build/sbf.jar:$build/sbf-jdbc.jar:/usr/share/java/postgresql.jar:$junit" \
		"$build/junit-jdbc.log"
}
echo "== java: sbf.jdbc"
if [ "${SBF_JAVA_JDBC:-1}" = 0 ]; then
	echo "java: JDBC tests skipped (SBF_JAVA_JDBC=0)"
	skipped=$((skipped + 1))
elif [ ! -x "$pg_config" ]; then
	echo "java: no PostgreSQL at $pg_config: the JDBC tests skip"
	unset PGPORT
	jdbc_tests
else
	work=$(mktemp -d /tmp/sbf-java.XXXXXX)
	trap 'rm -rf "$work"' EXIT
	# the tree may hold objects of another major: build clean (outside the lock)
	if ! (cd "$root" && make -s clean PG_CONFIG="$pg_config" && make -s -j2 PG_CONFIG="$pg_config") > "$work/build.log" 2>&1; then
		cat "$work/build.log"; echo "java: the extension did not build"; failed=$((failed + 1))
	else
		# the JUnit run inside the cluster writes its counts for this shell
		cat > "$work/in_cluster.sh" <<INNER
cd "$root" && make -s PG_CONFIG="$pg_config" install > "$work/install.log" 2>&1 || { cat "$work/install.log"; exit 1; }
SBF_PG_LISTEN=127.0.0.1 PG_CONFIG="$pg_config" bash test/pg_tmp.sh "$java" -Dsbf.kit="$kit" -jar "$junit" --disable-banner \
	--details=summary --fail-if-no-tests --class-path "$build/test-classes/jdbc:$build/sbf.jar:$build/sbf-jdbc.jar:/usr/share/java/postgresql.jar" \
	--scan-class-path "$build/test-classes/jdbc" > "$build/junit-jdbc.log" 2>&1
INNER
		if [ "$pg_config" = /usr/lib/postgresql/15/bin/pg_config ] && [ "${SBF_JAVA_LOCK:-1}" != 0 ]; then
			flock /var/lock/sbf-pg15.lock bash "$work/in_cluster.sh"
		else
			bash "$work/in_cluster.sh"
		fi
		tally_junit "$build/junit-jdbc.log" $?
	fi
fi
echo "java: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
