#!/usr/bin/env bash
# The complete test suite, on every PostgreSQL major sbf supports: the core
# unit tests (ASan/UBSan) and fuzz smoke runs (pure C: no PostgreSQL inside,
# so they run once), and for each of 15, 17, 18 and 19 a -Werror build with
# that major's own toolchain, pg_regress and every TAP test on a real server
# of that major.  Installs what it needs first: Debian's PostgreSQL 15
# (test/setup.sh), PostgreSQL 18 built from ../shared/vendor
# (test/pg_build.sh), a Debian 13 root with 17 and an unstable root with
# experimental's 19 (test/root_build.sh; the suites run inside them with
# test/root_run.sh) and Citus (test/citus_setup.sh), all cached outside the
# clone in SBF_CACHE.  Every summary line names its major.
# Ends with one line "N passed, N failed, N skipped" over every suite and
# major (a skipped test or TAP file is never a pass); exits non-zero if
# anything failed.
#   SBF_PG             majors to run the server suites on (default "15 17 18 19")
#   SBF_FUZZ_SECONDS   seconds per fuzz target (default 15)
#   SBF_SKIP           space-separated suites to skip: unit fuzz meta regress tap arch docs python kit s390x
#   SBF_VENDOR         the vendored sources (default ../shared/vendor next to the
#                      clone, else /work/shared/vendor); without them, 18 and
#                      the Citus test are skipped
#   SBF_CACHE          cache for the builds and roots (default /var/cache/sbf)
set -uo pipefail
cd "$(dirname "$0")/.."

majors=${SBF_PG:-"15 17 18 19"}
# The system's PostgreSQL 15 is shared: its sbf.so is what every run on 15
# installs.  A run with 15 holds /var/lock/sbf-pg15.lock from here to its
# end (on fd 7, which the steps below inherit), so that no other run's
# install replaces the build its regress, TAP, Java and Python steps load;
# they take no lock of their own (SBF_PY_LOCK=0, SBF_JAVA_LOCK=0).
case " $majors " in
*" 15 "*)
	if [ "${SBF_PG15_LOCKED:-0}" != 1 ]; then
		exec 7> /var/lock/sbf-pg15.lock
		flock -n 7 || { echo "waiting for /var/lock/sbf-pg15.lock (another run on 15)"; flock 7; }
		export SBF_PG15_LOCKED=1
	fi ;;
esac
if [ -z "${SBF_VENDOR:-}" ]; then
	for d in ../shared/vendor /work/shared/vendor; do
		[ -d "$d" ] && { SBF_VENDOR=$(cd "$d" && pwd); break; }
	done
fi
vendor=${SBF_VENDOR:-}
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
	summary+=("$(printf '  %-14s %5d passed, %d failed, %d skipped' "$name" "$pass" "$fail" "$skipped")")
}

# True for a suite named in SBF_SKIP, which then counts as one skipped test.
skip() {
	local suite=$1 label=${2:-$1}
	[[ " ${SBF_SKIP:-} " == *" $suite "* ]] || return 1
	echo "== $label: skipped (SBF_SKIP)"
	tally "$label" 0 0 1
}

# A suite whose make failed counts at least one failure, whatever it printed
# before (a sanitizer report after the summary, a run that died halfway).
failed_at_least() {
	local rc=$1 fail=$2
	[ "$rc" -ne 0 ] && [ "$fail" -eq 0 ] && fail=1
	echo "$fail"
}

# The last "N passed, N failed" line of a log, tallied under a name.
tally_log() {
	local name=$1 rc=$2 log=$3 line
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -1)
	if [ -n "$line" ]; then
		tally "$name" "$(echo "$line" | cut -d' ' -f1)" \
			"$(failed_at_least "$rc" "$(echo "$line" | cut -d' ' -f3)")"
	else
		tally "$name" 0 1
	fi
}

# Majors that run in a cached Debian root (test/root_build.sh) rather than
# on this Debian 12 machine: 17 (Debian 13) and 19 (unstable + experimental).
in_root() { case $1 in 17|19) return 0 ;; esac; return 1; }

# The pg_config of a major on this machine: Debian's for 15, a build from
# the vendored source for 18.  Prints nothing when the major cannot be had
# here (17 and 19 run only inside their roots, see major_setup).
pg_config_of() {
	case $1 in
	15) echo /usr/lib/postgresql/15/bin/pg_config ;;
	18)
		[ -n "$vendor" ] && [ -f "$vendor/postgresql-18_18.6.orig.tar.bz2" ] || return 0
		PG_SRC=$vendor/postgresql-18_18.6.orig.tar.bz2 bash test/pg_build.sh ;;
	esac
}

# The Citus release for a major (13.2.2 for 15 with its patch and for 17,
# 14.0.1 for 18; none for 19); sets CITUS_SRC and CITUS_PATCH, or unsets them.
citus_for() {
	unset CITUS_SRC CITUS_PATCH
	[ -n "$vendor" ] || return 0
	case $1 in
	15) [ -f "$vendor/citus-13.2.2.tar.gz" ] || return 0
		export CITUS_SRC=$vendor/citus-13.2.2.tar.gz
		export CITUS_PATCH=$vendor/citus-13.2.2-pg15.14.patch ;;
	17) [ -f "$vendor/citus-13.2.2.tar.gz" ] || return 0
		export CITUS_SRC=$vendor/citus-13.2.2.tar.gz ;;
	18) [ -f "$vendor/citus-14.0.1.tar.gz" ] || return 0
		export CITUS_SRC=$vendor/citus-14.0.1.tar.gz ;;
	esac
}

# Runs a command for the major under test ($major) in its copy of the
# sources ($work): here, or inside the major's root.
on_major() {
	if in_root "$major"; then
		bash test/root_run.sh "$major" "$work" "$@"
	else
		(cd "$work" && "$@")
	fi
}

# Builds (-Werror) and installs sbf into the major under test and fills
# $work with a copy of the sources holding that build; sets pg_config.
# Returns 2 when the major cannot be had here (a skip), 1 on failure.
major_setup() {
	local log=$logdir/setup$major.log
	if in_root "$major"; then
		bash test/root_build.sh "$major" > "$log" 2>&1 ||
			{ cat "$logdir/root$major.log" "$log" 2>/dev/null; return 1; }
		pg_config=/usr/lib/postgresql/$major/bin/pg_config
		cp -a Makefile sbf.control src sql expected test "$work"/
		rm -rf "$work/test/log"
		on_major sh -c "make -s clean PG_CONFIG=$pg_config >/dev/null &&
			make -s WERROR=1 PG_CONFIG=$pg_config >/dev/null &&
			make -s install PG_CONFIG=$pg_config >/dev/null &&
			echo \"setup: sbf built (-Werror) with \$(gcc --version | head -1) and installed into \$($pg_config --version)\"" \
			>> "$log" 2>&1
		local rc=$?
		grep -E '^setup: ' "$log"
		[ "$rc" -eq 0 ] || { tail -30 "$log"; return 1; }
		# Citus, built inside the root (cached there) from the vendored
		# source, which the root sees at /vendor
		citus_for "$major"
		[ -n "${CITUS_SRC:-}" ] || return 0
		SBF_ROOT_BIND="$vendor:/vendor" on_major env PG_CONFIG="$pg_config" \
			CITUS_SRC="/vendor/${CITUS_SRC##*/}" CITUS_PATCH="${CITUS_PATCH:+/vendor/${CITUS_PATCH##*/}}" \
			bash test/citus_setup.sh >> "$log" 2>&1
		rc=$?
		grep -E '^citus_setup: ' "$log"
		return "$rc"
	fi
	pg_config=$(pg_config_of "$major")
	[ -n "$pg_config" ] || return 2
	citus_for "$major"
	PG_CONFIG=$pg_config bash test/setup.sh 2>&1 | tee "$log" || return 1
	cp -a Makefile sbf.control src sql expected test "$work"/
	rm -rf "$work/test/log"
}

# pg_regress (every file of sql/) against a throwaway cluster of the major.
major_regress() {
	local log=$logdir/regress$major.log rc pass fail
	echo "== pg_regress on PostgreSQL $major"
	on_major env PG_CONFIG="$pg_config" bash test/pg_tmp.sh make -s installcheck TAP_TESTS= PG_CONFIG="$pg_config" 2>&1 |
		tee "$log" | grep -E '\.\.\. |^(not )?ok [0-9]+|tests (passed|failed)|^ERROR|FATAL'
	rc=${PIPESTATUS[0]}
	# pg_regress prints "test x ... ok" up to 15 and TAP lines
	# ("ok 3 - x", "not ok 3 - x") from 16 on
	pass=$(grep -cE '\.\.\. ok|^ok [0-9]+' "$log")
	fail=$(grep -cE '\.\.\. FAILED|\.\.\. failed|^not ok [0-9]+' "$log")
	[ "$pass" -eq 0 ] && [ "$fail" -eq 0 ] && fail=1
	tally "regress pg$major" "$pass" "$(failed_at_least "$rc" "$fail")"
	[ -f "$work/regression.diffs" ] && cp "$work/regression.diffs" "$logdir/regression$major.diffs"
}

# Every TAP test of test/t on the major, run as user postgres (initdb
# refuses root) in the copy, which postgres then owns.
major_tap() {
	local tlog=$logdir/tap$major.log pass fail skipped notrun upgrade_from=
	echo "== TAP on PostgreSQL $major (PostgreSQL::Test::Cluster, run as user postgres)"
	# test/t/030_major_upgrade.pl moves data from 15 to this major when 15
	# was set up by this run
	[ "$major" != 15 ] && [ -n "${set_up_15:-}" ] && upgrade_from=$(upgrade_from_15)
	on_major chown -R postgres: .
	on_major runuser -u postgres -- env SBF_UPGRADE_FROM="$upgrade_from" \
		make -s prove_installcheck PG_CONFIG="$pg_config" PROVE_FLAGS=-v 2>&1 |
		tee "$tlog" | grep -E '^(ok|not ok|t/|test/|Result|Files=)'
	# a test skipped inside a file prints "ok N # skip reason", a file
	# skipped as a whole (plan skip_all) "test/t/x.pl .. skipped: reason":
	# skips, not passes
	pass=$(grep -E '^ok [0-9]+' "$tlog" | grep -cviE '^ok [0-9]+[^#]*# skip')
	fail=$(grep -cE '^not ok [0-9]+' "$tlog")
	skipped=$(( $(grep -ciE '^ok [0-9]+[^#]*# skip' "$tlog") +
		$(grep -cE '^\S+\.pl \.+ skipped: ' "$tlog") ))
	# a file that died midway: every planned assertion that did not run
	# is a failure
	notrun=$(sed -nE 's/^# Looks like you planned ([0-9]+) tests? but ran ([0-9]+)\.$/\1 \2/p' "$tlog" |
		awk '{ s += $1 - $2 } END { print s + 0 }')
	fail=$((fail + notrun))
	grep -qE '^Result: PASS' "$tlog" ||
		{ grep -qE '^Result: NOTESTS' "$tlog" && [ "$skipped" -gt 0 ]; } ||
		[ "$fail" -gt 0 ] || fail=1
	tally "tap pg$major" "$pass" "$fail" "$skipped"
	cp -a "$work"/tmp_check/log "$logdir/tap${major}_server_logs" 2>/dev/null
}

# Where the TAP suite of the major under test finds the PostgreSQL 15 that
# test/t/030_major_upgrade.pl upgrades from: Debian's on this machine, or in
# a root a copy of it that runs there (test/root_host15.sh) in the sources'
# copy, which the root sees at /sbf.
upgrade_from_15() {
	if ! in_root "$major"; then
		echo /usr/lib/postgresql/15
	elif bash test/root_host15.sh "$work/.pg15" >> "$logdir/setup$major.log" 2>&1; then
		echo /sbf/.pg15/lib/postgresql/15
	fi
}

echo "== setup (Debian packages)"
if ! SBF_PACKAGES_ONLY=1 bash test/setup.sh; then
	echo "setup failed"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi

# The Debian roots of 17 and 19 (test/root_build.sh) are made or found in
# the background while the suites before them run: mostly downloads and
# unpacking, little CPU.  A major's setup waits for its root (flock).
. test/packages.sh
root_jobs=()
for m in $majors; do
	in_root "$m" || continue
	need_packages run_all debootstrap patchelf || break
	bash test/root_build.sh "$m" > "$logdir/root$m.log" 2>&1 &
	root_jobs+=($!)
done

# The big-endian suite (test/s390x.sh, below) runs the core under qemu:
# minutes of one CPU and no server, so it starts now, in the background, and
# is collected before the summary.
s390x_job=
if [[ " ${SBF_SKIP:-} " != *" s390x "* ]]; then
	bash test/s390x.sh > "$logdir/s390x.log" 2>&1 &
	s390x_job=$!
fi

if ! skip unit "unit (core)"; then
	echo "== core unit tests (ASan + UBSan; pure C, the same on every major)"
	make -s -C test/unit check 2>&1 | tee "$logdir/unit.log"
	rc=${PIPESTATUS[0]}
	# one "N passed, N failed" line per test program and build: sum them
	pass=$(awk '/^[0-9]+ passed, [0-9]+ failed$/ { s += $1 } END { print s + 0 }' "$logdir/unit.log")
	fail=$(awk '/^[0-9]+ passed, [0-9]+ failed$/ { s += $3 } END { print s + 0 }' "$logdir/unit.log")
	[ "$pass" -eq 0 ] && [ "$fail" -eq 0 ] && fail=1
	tally "unit (core)" "$pass" "$(failed_at_least "$rc" "$fail")"
fi

if ! skip fuzz "fuzz (core)"; then
	echo "== fuzz smoke runs (${SBF_FUZZ_SECONDS:-15} s per target; pure C)"
	make -s -C test/fuzz smoke SMOKE_TIME="${SBF_FUZZ_SECONDS:-15}" > "$logdir/fuzz.log" 2>&1
	rc=$?
	grep -E '^fuzz_[a-z]+: ' "$logdir/fuzz.log"
	pass=$(grep -cE '^fuzz_[a-z]+: .*exit status 0$' "$logdir/fuzz.log")
	fail=$(grep -cE '^fuzz_[a-z]+: .*exit status [1-9]' "$logdir/fuzz.log")
	[ "$pass" -eq 0 ] && [ "$fail" -eq 0 ] && fail=1
	tally "fuzz (core)" "$pass" "$(failed_at_least "$rc" "$fail")"
fi

if ! skip meta "meta"; then
	echo "== META.json against the PGXN Meta Spec 1.0.0"
	python3 test/meta_check.py > "$logdir/meta.log" 2>&1
	rc=$?
	grep -E '^meta: ' "$logdir/meta.log"
	tally_log "meta" "$rc" "$logdir/meta.log"
fi

for major in $majors; do
	echo "== PostgreSQL $major"
	major_start=$SECONDS
	work=$(mktemp -d /tmp/sbf-pg$major.XXXXXX)
	major_setup
	rc=$?
	if [ "$rc" -eq 2 ]; then
		echo "== PostgreSQL $major: skipped (no $major here: see SBF_VENDOR)"
		tally "pg$major" 0 0 1
	elif [ "$rc" -ne 0 ]; then
		echo "== PostgreSQL $major: setup failed"
		tally "pg$major setup" 0 1
	else
		[ "$major" = 15 ] && set_up_15=1
		skip regress "regress pg$major" || major_regress
		skip tap "tap pg$major" || major_tap
	fi
	rm -rf "$work"
	echo "== PostgreSQL $major: $((SECONDS - major_start)) s (set-up included)"
done

# The shape of src/ (test/arch/check.sh): no circles between files, layers
# read top-down, no long file or function, kind constants only in the kinds;
# each limit is one test.  It compiles the glue, so it needs server headers.
if ! skip arch "arch"; then
	echo "== arch (test/arch/check.sh)"
	arch_pg=$(ls -d /usr/lib/postgresql/*/bin/pg_config 2>/dev/null | sort -V | tail -n 1)
	PG_CONFIG=${arch_pg:-pg_config} bash test/arch/check.sh > "$logdir/arch.log" 2>&1
	rc=$?
	if [ "$rc" -eq 2 ]; then
		echo "arch: no PostgreSQL server headers here"
		tally "arch" 0 0 1
	else
		grep -E '^(circles|upward|kind-constant|long|files in no|broken bench)' "$logdir/arch.log"
		pass=$(grep -cE '  ok$' "$logdir/arch.log")
		fail=$(grep -cE 'FAILED \(' "$logdir/arch.log")
		[ "$rc" -ne 0 ] && [ "$fail" -eq 0 ] && fail=1
		tally "arch" "$pass" "$fail"
	fi
fi

# The documentation's SQL examples (test/doc_check.sh), once, on the first
# major set up above (sbf is installed there); SBF_SKIP=docs skips them.
if ! skip docs "docs"; then
	doc_pg=
	for major in $majors; do
		doc_pg=$(pg_config_of "$major")
		[ -n "$doc_pg" ] && [ -x "$("$doc_pg" --bindir)/psql" ] && break
		doc_pg=
	done
	if [ -z "$doc_pg" ]; then
		echo "== docs: skipped (no PostgreSQL set up in this run)"
		tally "docs" 0 0 1
	else
		echo "== documentation examples (README.md, docs/*.md) on $("$doc_pg" --version)"
		PG_CONFIG=$doc_pg bash test/doc_check.sh > "$logdir/docs.log" 2>&1
		rc=$?
		grep -E '^(ok|FAIL|skip) ' "$logdir/docs.log"
		line=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$logdir/docs.log" | tail -1)
		if [ -n "$line" ]; then
			read -r dpass _ dfail _ dskip _ <<< "$line"
			tally "docs" "$dpass" "$(failed_at_least "$rc" "$dfail")" "$dskip"
		else
			tally "docs" 0 1
		fi
	fi
fi

# The Java reader (clients/java): its build, the JUnit suites over the kit
# (test/kit), XXH3 against the core's vectors, randomized corruption, and
# sbf.jdbc against a throwaway cluster of the first major in SBF_PG
# (clients/java/test.sh, whose last line is "java: N passed, N failed, N
# skipped").  It takes no lock of its own (a run on 15 holds
# /var/lock/sbf-pg15.lock: see the top); SBF_SKIP=java skips it.
if ! skip java; then
	jmajor=${majors%% *}
	echo "== java (pg$jmajor)"
	jcfg=$(pg_config_of "$jmajor")
	SBF_JAVA_PG_CONFIG=${jcfg:-/nonexistent} SBF_JAVA_LOCK=0 bash clients/java/test.sh > "$logdir/java.log" 2>&1
	jrc=$?
	grep -E '^(java|\[)' "$logdir/java.log"
	jline=$(sed -nE 's/^java: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3/p' \
		"$logdir/java.log" | tail -n 1)
	read -r jpass jfail jskip <<<"${jline:-0 1 0}"
	tally "java" "$jpass" "$(failed_at_least "$jrc" "$jfail")" "$jskip"
fi

# The Python package (clients/python): its pytest suites against a throwaway
# cluster of the first major in SBF_PG, and the malformed-input campaign
# under ASan (test/python_check.sh, whose last line is "python: N passed, N
# failed, N skipped").  It takes no lock of its own: a run on 15 holds
# /var/lock/sbf-pg15.lock from the top.
if ! skip python; then
	pymajor=${majors%% *}
	echo "== python (pg$pymajor)"
	pycfg=$(pg_config_of "$pymajor")
	if [ -z "$pycfg" ]; then
		echo "python: no PostgreSQL $pymajor here"
		tally "python" 0 0 1
	else
		SBF_PY_PG_CONFIG=$pycfg SBF_PY_LOCK=0 bash test/python_check.sh > "$logdir/python.log" 2>&1
		pyrc=$?
		grep -E '^(pytest|python)' "$logdir/python.log"
		pyline=$(sed -nE 's/^python: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3/p' \
			"$logdir/python.log" | tail -n 1)
		read -r pypass pyfail pyskip <<<"${pyline:-0 1 0}"
		tally "python" "$pypass" "$(failed_at_least "$pyrc" "$pyfail")" "$pyskip"
	fi
fi

# The cross-language test kit (test/kit/README.md): its C runner reads
# every committed value, answer and malformed value with the core (pure C,
# ASan/UBSan), and test/kit/generate.sh remakes the kit from the PostgreSQL
# 15 set up above and fails on any difference with the committed files
# (skipped, and counted so, when this run did not set up 15).
if ! skip kit; then
	echo "== test kit (test/kit: the core's C runner; the kit regenerated from PostgreSQL 15)"
	make -s -C test/kit clean check \
		CFLAGS="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -Wall -Wextra -Werror" \
		> "$logdir/kit.log" 2>&1
	rc=$?
	grep -E '^(kit_core|FAIL)' "$logdir/kit.log"
	kline=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$logdir/kit.log" | tail -1)
	read -r kpass _ kfail _ <<<"${kline:-0 passed, 1 failed}"
	kfail=$(failed_at_least "$rc" "$kfail")
	kskip=0
	if [ -n "${set_up_15:-}" ]; then
		PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config bash test/kit/generate.sh > "$logdir/kit_generate.log" 2>&1
		rc=$?
		grep -E '^(ok|FAIL) ' "$logdir/kit_generate.log"
		gline=$(sed -nE 's/^kit: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3/p' \
			"$logdir/kit_generate.log" | tail -n 1)
		read -r gpass gfail gskip <<<"${gline:-0 1 0}"
		kpass=$((kpass + gpass))
		kfail=$((kfail + $(failed_at_least "$rc" "$gfail")))
		kskip=$((kskip + gskip))
	else
		echo "kit: generator check skipped (PostgreSQL 15 was not set up in this run: SBF_PG)"
		kskip=1
	fi
	tally "kit" "$kpass" "$kfail" "$kskip"
fi

# Big-endian: the core's unit tests and the kit's C runner built for s390x
# and run under qemu-user (test/s390x.sh: values built there must be the
# kit's bytes, written on x86-64).  Where the cross compiler or qemu cannot
# be installed it says so and counts as skipped.
if ! skip s390x; then
	echo "== big-endian: the core's unit tests and the kit on s390x (qemu-user; started at the beginning)"
	wait "$s390x_job"
	rc=$?
	grep -E '^s390x: ' "$logdir/s390x.log" | grep -vE '^s390x: [0-9]+ passed'
	sline=$(sed -nE 's/^s390x: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3/p' \
		"$logdir/s390x.log" | tail -n 1)
	read -r spass sfail sskip <<<"${sline:-0 1 0}"
	tally "s390x" "$spass" "$(failed_at_least "$rc" "$sfail")" "$sskip"
fi

[ ${#root_jobs[@]} -eq 0 ] || wait "${root_jobs[@]}"
echo "== summary"
printf '%s\n' "${summary[@]}"
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ]
