# Shared by the benchmarks that compare two builds of the core in one run
# (core_driver_ab.sh, grown_small_ab.sh, the *_ab.sh beside them); sourced,
# run from the repository's top.  core_ab_build BASE PROGRAM.c [cc flags...]
# compiles PROGRAM.c (-O2) against commit BASE's src/core (any folder layout)
# and against the working tree's, into $work/base/run and $work/new/run
# ($work: a temporary directory, removed on exit), and prints the header
# line naming both.
core_ab_build() {
	local base=$1 prog=$2 v incs srcs
	shift 2
	work=$(mktemp -d /var/tmp/sbf-ab.XXXXXX)
	trap 'rm -rf "$work"' EXIT
	mkdir -p "$work/base" "$work/new"
	git archive "$base" src/core | tar -x -C "$work/base"
	cp -a src "$work/new/"
	echo "# $(date -u +%Y-%m-%dT%H:%MZ), base $(git rev-parse --short "$base"), new $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src || echo '+changes')"
	for v in base new; do
		mapfile -t incs < <(find "$work/$v/src/core" -type d | sed 's/^/-I/')
		mapfile -t srcs < <(find "$work/$v/src/core" -name '[a-z]*.c' | sort)
		cc -O2 "${incs[@]}" "$@" -o "$work/$v/run" "$prog" "${srcs[@]}" -lm
	done
}

# core_ab_rounds [args...] runs $work/base/run and $work/new/run with args,
# alternating, ROUNDS times (default 3), each line printed with its build's
# name first and kept in $work/all.
core_ab_rounds() {
	local round v
	echo "# ${ROUNDS:-3} rounds; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
	for round in $(seq "${ROUNDS:-3}"); do
		for v in base new; do
			nice "$work/$v/run" "$@" | sed "s/^/$v /" | tee -a "$work/all"
		done
	done
}
