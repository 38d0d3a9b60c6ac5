#!/usr/bin/env bash
# Big-endian: the core's unit tests and the test kit's C runner
# (test/kit/kit_core.c) built for s390x with Debian's cross compiler and run
# under qemu-user.  kit_core reads every kit value (written by the server on
# x86-64) with the core, answers every record as the server did, and builds
# the sbf_agg and sbf_window_agg values again from their elements: their
# bytes must equal the kit's, so values written on the big-endian machine
# are the same bytes as on x86-64.  No sanitizers (not available cross).
# Installs gcc-s390x-linux-gnu, libc6-dev-s390x-cross and qemu-user-static
# (test/packages.sh); where they cannot be installed (not root, no
# network) the run is skipped with a line saying so and counted as skipped.
# Ends with one line "s390x: N passed, N failed, N skipped".
#   SBF_S390X_UNIT=0   only the kit (skip the unit tests); SBF_S390X_UNIT="test_bloom
#                      test_app" only those unit test programs
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
. test/packages.sh

skip_all() {
	echo "s390x: skipped: $1"
	echo "s390x: 0 passed, 0 failed, 1 skipped"
	exit 0
}
need_packages s390x gcc-s390x-linux-gnu libc6-dev-s390x-cross qemu-user-static libxxhash-dev make ||
	skip_all "gcc-s390x-linux-gnu, libc6-dev-s390x-cross or qemu-user-static cannot be installed here"
qemu=$(command -v qemu-s390x-static || command -v qemu-s390x) || skip_all "no qemu-s390x"
cc=s390x-linux-gnu-gcc
command -v "$cc" > /dev/null || skip_all "no $cc"
[ -f /usr/include/xxhash.h ] || skip_all "no /usr/include/xxhash.h (libxxhash-dev)"

# a copy of the sources (the host's objects stay where they are); the
# header-only xxhash.h alone, so the cross compiler sees no host header
work=$(mktemp -d /tmp/sbf-s390x.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src" "$work/test" "$work/inc"
cp -a src/core "$work/src/"
cp -a test/unit test/fuzz test/kit "$work/test/"
cp /usr/include/xxhash.h "$work/inc/"
make -s -C "$work/test/unit" clean > /dev/null 2>&1
make -s -C "$work/test/kit" clean > /dev/null 2>&1
cflags="-O2 -g -static -Wall -Wextra -Werror -I$work/inc"

passed=0 failed=0
echo "s390x: $($cc --version | head -1); $("$qemu" --version | head -1)"

# the kit's runner: every value, answer, rebuilt value, malformed value and hash
if make -s -C "$work/test/kit" kit_core CC="$cc" CFLAGS="$cflags" > "$work/kit_build.log" 2>&1; then
	# byte 5 of the ELF header: 2 = big-endian
	[ "$(od -An -tx1 -j5 -N1 "$work/test/kit/kit_core" | tr -d ' ')" = 02 ] ||
		{ echo "s390x: kit_core is not a big-endian binary"; failed=$((failed + 1)); }
	(cd "$work/test/kit" && "$qemu" ./kit_core kit.txt malformed.txt hashes.txt) > "$work/kit.log" 2>&1
	rc=$?
	sed 's/^/s390x: /' "$work/kit.log" | grep -E 'kit_core|FAIL' | head -n 40
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$work/kit.log" | tail -1)
	read -r p _ f _ <<<"${line:-0 passed, 1 failed}"
	[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
	passed=$((passed + p)); failed=$((failed + f))
else
	cat "$work/kit_build.log"
	echo "s390x: building kit_core failed"
	failed=$((failed + 1))
fi

# the kit's version-5 values written on s390x: the same bytes as the committed file
if make -s -C "$work/test/kit" kit_v5 CC="$cc" CFLAGS="$cflags" > "$work/kit_v5_build.log" 2>&1 &&
	(cd "$work/test/kit" && "$qemu" ./kit_v5 | cmp - format5_values.tsv); then
	echo "s390x: kit_v5: format5_values.tsv written the same"
	passed=$((passed + 1))
else
	cat "$work/kit_v5_build.log"
	echo "s390x: FAIL kit_v5: format5_values.tsv not written the same"
	failed=$((failed + 1))
fi

# the core's unit tests (the host build of test/unit: on s390x the core
# takes its portable little-endian loads by itself)
if [ "${SBF_S390X_UNIT:-1}" != 0 ]; then
	tests=$(make -s -C "$work/test/unit" -f Makefile -f - print-tests <<'MK'
print-tests:
	@echo $(CORE_TESTS) $(OTHER_TESTS)
MK
)
	case ${SBF_S390X_UNIT:-1} in 1) ;; *) tests=$SBF_S390X_UNIT ;; esac
	# shellcheck disable=SC2086
	if make -s -j2 -C "$work/test/unit" CC="$cc" CFLAGS="$cflags" $tests > "$work/unit_build.log" 2>&1; then
		for t in $tests; do
			(cd "$work/test/unit" && "$qemu" "./$t") > "$work/$t.log" 2>&1
			rc=$?
			line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$work/$t.log" | tail -1)
			read -r p _ f _ <<<"${line:-0 passed, 1 failed}"
			[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
			[ "$f" -eq 0 ] || tail -n 30 "$work/$t.log"
			echo "s390x: unit $t: $p passed, $f failed"
			passed=$((passed + p)); failed=$((failed + f))
		done
	else
		tail -n 30 "$work/unit_build.log"
		echo "s390x: building the unit tests failed"
		failed=$((failed + 1))
	fi
fi
echo "s390x: $passed passed, $failed failed, 0 skipped"
[ "$failed" -eq 0 ]
