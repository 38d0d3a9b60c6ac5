#!/usr/bin/env bash
# The complete test suite: core unit tests (ASan/UBSan), fuzz smoke runs,
# pg_regress and TAP tests.  Installs what it needs first (test/setup.sh).
# Ends with one line "N passed, N failed, N skipped" over every suite (a skipped
# test or TAP file is never a pass); exits non-zero if anything failed.
#   SBF_FUZZ_SECONDS   seconds per fuzz target (default 15)
#   SBF_SKIP           space-separated suites to skip: unit fuzz regress tap
#   CITUS_SRC, CITUS_PATCH  Citus source tarball and patch for test/t/020_citus.pl
#                      (test/citus_setup.sh); by default the release kept in
#                      ../shared/vendor next to the clone, else /work/shared/vendor;
#                      without a source and without an installed Citus that
#                      test is skipped
set -uo pipefail
cd "$(dirname "$0")/.."

if [ -z "${CITUS_SRC:-}" ]; then
	for vendor in ../shared/vendor /work/shared/vendor; do
		if [ -f "$vendor/citus-13.2.2.tar.gz" ]; then
			vendor=$(cd "$vendor" && pwd)
			export CITUS_SRC=$vendor/citus-13.2.2.tar.gz
			export CITUS_PATCH=${CITUS_PATCH:-$vendor/citus-13.2.2-pg15.14.patch}
			break
		fi
	done
fi
root=$(pwd)
logdir=$root/test/log
rm -rf "$logdir"; mkdir -p "$logdir"

total_pass=0
total_fail=0
total_skip=0
summary=()

# Adds one suite's counts to the totals.
tally() {
	local name=$1 pass=$2 fail=$3 skipped=${4:-0}
	total_pass=$((total_pass + pass))
	total_fail=$((total_fail + fail))
	total_skip=$((total_skip + skipped))
	summary+=("$(printf '  %-10s %5d passed, %d failed, %d skipped' "$name" "$pass" "$fail" "$skipped")")
}

# True for a suite named in SBF_SKIP, which then counts as one skipped test.
skip() {
	[[ " ${SBF_SKIP:-} " == *" $1 "* ]] || return 1
	echo "== $1: skipped (SBF_SKIP)"
	tally "$1" 0 0 1
}

# A suite whose make failed counts at least one failure, whatever it printed
# before (a sanitizer report after the summary, a run that died halfway).
failed_at_least() {
	local rc=$1 fail=$2
	[ "$rc" -ne 0 ] && [ "$fail" -eq 0 ] && fail=1
	echo "$fail"
}

echo "== setup"
if ! bash test/setup.sh; then
	echo "setup failed"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi

if ! skip unit; then
	echo "== core unit tests (ASan + UBSan)"
	make -s -C test/unit check 2>&1 | tee "$logdir/unit.log"
	rc=${PIPESTATUS[0]}
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$logdir/unit.log" | tail -1)
	if [ -n "$line" ]; then
		tally unit "$(echo "$line" | cut -d' ' -f1)" \
			"$(failed_at_least "$rc" "$(echo "$line" | cut -d' ' -f3)")"
	else
		tally unit 0 1
	fi
fi

if ! skip fuzz; then
	echo "== fuzz smoke runs (${SBF_FUZZ_SECONDS:-15} s per target)"
	make -s -C test/fuzz smoke SMOKE_TIME="${SBF_FUZZ_SECONDS:-15}" > "$logdir/fuzz.log" 2>&1
	rc=$?
	grep -E '^fuzz_[a-z]+: ' "$logdir/fuzz.log"
	pass=$(grep -cE '^fuzz_[a-z]+: .*exit status 0$' "$logdir/fuzz.log")
	fail=$(grep -cE '^fuzz_[a-z]+: .*exit status [1-9]' "$logdir/fuzz.log")
	[ "$pass" -eq 0 ] && [ "$fail" -eq 0 ] && fail=1
	tally fuzz "$pass" "$(failed_at_least "$rc" "$fail")"
fi

if ! skip regress; then
	echo "== pg_regress"
	pg_virtualenv -t -v 15 make -s installcheck TAP_TESTS= 2>&1 | tee "$logdir/regress.log" |
		grep -E '\.\.\. |tests (passed|failed)|^ERROR|FATAL'
	rc=${PIPESTATUS[0]}
	pass=$(grep -cE '\.\.\. ok' "$logdir/regress.log")
	fail=$(grep -cE '\.\.\. FAILED|\.\.\. failed' "$logdir/regress.log")
	[ "$pass" -eq 0 ] && [ "$fail" -eq 0 ] && fail=1
	tally regress "$pass" "$(failed_at_least "$rc" "$fail")"
	[ -f regression.diffs ] && cp regression.diffs "$logdir/"
fi

if ! skip tap; then
	echo "== TAP (PostgreSQL::Test::Cluster, run as user postgres)"
	# initdb refuses to run as root: run the TAP suite from a copy owned by postgres
	tapdir=$(mktemp -d /tmp/sbf-tap.XXXXXX)
	cp -a Makefile sbf.control src sql expected test "$tapdir"/
	rm -rf "$tapdir/test/log"
	chown -R postgres: "$tapdir"
	runuser -u postgres -- make -s -C "$tapdir" prove_installcheck \
		PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config PROVE_FLAGS=-v 2>&1 |
		tee "$logdir/tap.log" | grep -E '^(ok|not ok|t/|test/|Result|Files=)'
	# a test skipped inside a file prints "ok N # skip reason", a file
	# skipped as a whole (plan skip_all) "test/t/x.pl .. skipped: reason":
	# skips, not passes
	pass=$(grep -E '^ok [0-9]+' "$logdir/tap.log" | grep -cviE '^ok [0-9]+[^#]*# skip')
	fail=$(grep -cE '^not ok [0-9]+' "$logdir/tap.log")
	skipped=$(( $(grep -ciE '^ok [0-9]+[^#]*# skip' "$logdir/tap.log") +
		$(grep -cE '^\S+\.pl \.+ skipped: ' "$logdir/tap.log") ))
	grep -qE '^Result: PASS' "$logdir/tap.log" ||
		{ grep -qE '^Result: NOTESTS' "$logdir/tap.log" && [ "$skipped" -gt 0 ]; } ||
		[ "$fail" -gt 0 ] || fail=1
	tally tap "$pass" "$fail" "$skipped"
	cp -a "$tapdir"/tmp_check/log "$logdir/tap_server_logs" 2>/dev/null
	rm -rf "$tapdir"
fi

echo "== summary"
printf '%s\n' "${summary[@]}"
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ]
