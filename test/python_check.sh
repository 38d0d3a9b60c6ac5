#!/usr/bin/env bash
# The Python package's whole check from a fresh machine: Debian packages,
# a virtual environment with the package built from clients/python (the
# README's install command), the extension installed into PostgreSQL, a
# throwaway cluster (test/pg_tmp.sh), and pytest over clients/python/tests
# against it; then every suite again (the malformed-input campaign among
# them) with the package built under AddressSanitizer and UBSan (LD_PRELOAD
# of libasan into Debian's python3).  Ends with pytest's summary lines and one line
#   python: N passed, N failed, N skipped
# (test/run_all.sh tallies it).  Exits non-zero if anything failed, and when
# pytest collected no test (its exit status 5).
#   SBF_PY_PG_CONFIG  the PostgreSQL to test against (default Debian's 15;
#                     installing into it takes /var/lock/sbf-pg15.lock)
#   SBF_PY_LOCK=0     do not take the lock (the caller holds it: test/run_all.sh)
#   SBF_PY_ASAN=0     skip the sanitizer pass
#   SBF_PY_PYTEST     extra pytest arguments (e.g. "-x -k window")
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
. test/packages.sh

py=/usr/bin/python3			# Debian's: its dist-packages hold psycopg and pytest
pg_config=${SBF_PY_PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
need_packages python_check python3-dev python3-setuptools python3-wheel \
	python3-psycopg python3-pytest python3-venv python3-xxhash libxxhash-dev \
	make gcc || exit 1
if [ "$pg_config" = /usr/lib/postgresql/15/bin/pg_config ] && [ ! -x "$pg_config" ]; then
	SBF_PACKAGES_ONLY=1 bash test/setup.sh >&2 || exit 1
fi

work=$(mktemp -d /tmp/sbf-py.XXXXXX)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
log=$work/log

# Builds the package into a new venv $1 (extra C flags $2, link flags $3).
make_venv() {
	local venv=$1
	"$py" -m venv --system-site-packages "$venv" || return 1
	rm -rf clients/python/build
	SBF_PY_CFLAGS=${2:-} SBF_PY_LDFLAGS=${3:-} \
		PIP_DISABLE_PIP_VERSION_CHECK=1 "$venv/bin/pip" install -q --no-index --no-build-isolation --no-cache-dir ./clients/python \
		> "$work/pip.log" 2>&1 || { cat "$work/pip.log" >&2; return 1; }
	rm -rf clients/python/build
}

echo "== python: building the package (venv $work/venv)"
make_venv "$work/venv" || { echo "python: 0 passed, 1 failed, 0 skipped"; exit 1; }
asan=${SBF_PY_ASAN:-1}
libasan=$(gcc -print-file-name=libasan.so)
if [ "$asan" = 1 ] && [ -e "$libasan" ]; then
	echo "== python: building the package under ASan/UBSan"
	make_venv "$work/venv-asan" "-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g -O1" \
		"-fsanitize=address,undefined" || asan=failed
else
	[ "$asan" = 1 ] && asan=missing
fi

# pytest in the cluster: the suites, then the same under the sanitizers
run_tests() {
	cd "$root/clients/python/tests" || return 1
	export SBF_PY_NEED_SERVER=1
	# shellcheck disable=SC2086
	"$work/venv/bin/python" -m pytest -p no:cacheprovider -q ${SBF_PY_PYTEST:-} . \
		> "$work/main.out" 2>&1
	echo $? > "$work/main.rc"
	if [ -d "$work/venv-asan" ]; then
		ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 LD_PRELOAD=$libasan \
			"$work/venv-asan/bin/python" -m pytest -p no:cacheprovider -q \
			. > "$work/asan.out" 2>&1
		echo $? > "$work/asan.rc"
	fi
}
export -f run_tests
export root work libasan

# the tree may hold objects of another major: build clean (outside the lock)
echo "== python: building the extension for $("$pg_config" --version)"
{ make -s clean PG_CONFIG="$pg_config" && make -s -j2 PG_CONFIG="$pg_config"; } > "$work/build.log" 2>&1 ||
	{ cat "$work/build.log" >&2; echo "python: 0 passed, 1 failed, 0 skipped"; exit 1; }
install_and_test() {
	make -s PG_CONFIG="$pg_config" install > "$work/install.log" 2>&1 ||
		{ cat "$work/install.log" >&2; return 1; }
	PG_CONFIG="$pg_config" bash test/pg_tmp.sh bash -c run_tests
}
export -f install_and_test
export pg_config
echo "== python: installing sbf into $("$pg_config" --bindir | sed 's,/bin$,,') and running pytest"
if [ "$pg_config" = /usr/lib/postgresql/15/bin/pg_config ] && [ "${SBF_PY_LOCK:-1}" != 0 ]; then
	flock /var/lock/sbf-pg15.lock bash -c install_and_test
else
	bash -c install_and_test
fi

passed=0 failed=0 skipped=0
# Adds the counts of one pytest run: its last line and its exit status.
count() {
	local out=$1 rc=$2 line p f s
	line=$(tail -n 1 "$out" 2>/dev/null)
	echo "$line"
	read -r p f s < <(awk '{ for (i = 2; i <= NF; i++) { w = $i; gsub(/[^a-z]/, "", w); n = $(i - 1) + 0;
		if (w == "passed") p += n; else if (w == "failed" || w == "error" || w == "errors") f += n;
		else if (w == "skipped") s += n } } END { print p + 0, f + 0, s + 0 }' <<<"$line")
	# no tests collected (5), an interrupted run or a crash count as a failure
	[ "$rc" != 0 ] && [ "$f" -eq 0 ] && f=1
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
}
for pass in main asan; do
	[ -f "$work/$pass.out" ] || continue
	rc=$(cat "$work/$pass.rc" 2>/dev/null || echo 1)
	[ "$rc" = 0 ] || { echo "---- pytest ($pass) output, exit status $rc:"; tail -n 60 "$work/$pass.out"; }
	echo -n "pytest ($pass): "
	count "$work/$pass.out" "$rc"
done
[ -f "$work/main.out" ] || { echo "python: pytest did not run"; failed=$((failed + 1)); }
case $asan in
	1) ;;
	failed) echo "python: the ASan build failed"; failed=$((failed + 1)) ;;
	missing) echo "python: libasan not found: the suites ran without ASan"; skipped=$((skipped + 1)) ;;
	*) echo "python: ASan pass skipped (SBF_PY_ASAN=$asan)"; skipped=$((skipped + 1)) ;;
esac
echo "python: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
