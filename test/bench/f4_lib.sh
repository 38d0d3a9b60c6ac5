# shellcheck shell=bash
# Functions shared by the f4_*.sh benchmarks (sourced; see f4_pair.sh).
# Build names are "12" and "13" (the two clusters of f4_pair.sh) or "15"
# (a cluster whose PGHOST/PGPORT are H15/P15).

# psql on build $1, unaligned, tuples only, stop on error
q() {
	local b=$1 h p
	shift
	eval "h=\$H$b p=\$P$b"
	PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning" psql -X -q -At -v ON_ERROR_STOP=1 -h "$h" -p "$p" -U postgres -d postgres "$@"
}

# the backend's own CPU time so far, in clock ticks (utime + stime of
# /proc/self/stat, read by the server: superuser)
CPU_SQL="SELECT (SELECT sum(x::bigint) FROM unnest((string_to_array(split_part(pg_read_file('/proc/self/stat'), ') ', 2), ' '))[12:13]) x)"
TICK_MS=$(awk -v t="$(getconf CLK_TCK)" 'BEGIN {print 1000 / t}')

# one run of query $2 on build $1 in a new session after the statement $3
# (settings): prints "milliseconds value cpu-milliseconds": the time from
# psql's \timing (the query's round trip; its result is one short row), the
# result, and the backend's CPU time for the query (clock-tick resolution)
timed() {
	q "$1" -c "${3:-SELECT 1}" -c "$CPU_SQL" -c '\timing on' -c "$2" -c '\timing off' -c "$CPU_SQL" |
		awk -v tick="$TICK_MS" '/^Time: / {t = $2; next} /^Timing is/ {next}
			{l[++n] = $0} END {print t, l[2], (l[n] - l[1]) * tick}'
}

# the median of the arguments
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# a / b with 2 decimals (3 with a third argument 3)
ratio() { awk -v a="$1" -v b="$2" -v d="${3:-2}" 'BEGIN {printf "%.*f", d, (b > 0) ? a / b : 0}'; }

# the header every table carries: date, commit, command, machine load
f4_header() {
	echo "# $1"
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) CPUs; load at start $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "sbf commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- ../../src ../../sql 2>/dev/null || echo ' with local changes'); ${LB:-1.2} = commit ${BASE:-232b1eb}"
	echo "command: $F4_COMMAND"
	echo "The machine has 2 vCPUs shared with other work: absolute times are noisy; ratios within one run count."
	f4_formats
}

# the on-disk format each running build writes (sbf_info's version of an
# sbf_agg of 100,000 bigints): 1.2 writes format 2, 1.3 format 4
f4_formats() {
	local b h line=""
	for b in 12 13 15; do
		eval "h=\${H$b:-}"
		[ -n "$h" ] || continue
		line+="${line:+, }build $b writes format $(q "$b" -c "SELECT sbf_info(sbf_agg(x))->>'version' FROM generate_series(1, 100000) x")"
	done
	[ -z "$line" ] || echo "on-disk format (sbf_info version of an sbf_agg): $line"
}

# bits per element: $1 bytes for $2 elements, 2 decimals
bits() { awk -v a="$1" -v n="$2" 'BEGIN {printf "%.2f", (n > 0) ? a * 8 / n : 0}'; }

# the line under every table's title: date, commit, command
f4_stamp() {
	echo "[$(date -u '+%Y-%m-%d %H:%M UTC'); sbf commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown); $F4_COMMAND]"
}
