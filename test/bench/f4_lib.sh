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

# one run of query $2 on build $1 in a new session after the statement $3
# (settings): prints "milliseconds value", the time from psql's \timing (the
# query's round trip; its result is one short row) and the result's last row
timed() {
	q "$1" -c "${3:-SELECT 1}" -c '\timing on' -c "$2" |
		awk '/^Time: / {t = $2; next} /^Timing is/ {next} {v = $0} END {print t, v}'
}

# the median of the arguments
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# a / b with 2 decimals (3 with a third argument 3)
ratio() { awk -v a="$1" -v b="$2" -v d="${3:-2}" 'BEGIN {printf "%.*f", d, (b > 0) ? a / b : 0}'; }

# the header every table carries: date, commit, command, machine load
f4_header() {
	echo "# $1"
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) CPUs; load at start $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "sbf commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- ../../src ../../sql 2>/dev/null || echo ' with local changes'); 1.2 = commit 232b1eb"
	echo "command: $F4_COMMAND"
	echo "The machine has 2 vCPUs shared with other work: absolute times are noisy; ratios within one run count."
}

# bits per element: $1 bytes for $2 elements, 2 decimals
bits() { awk -v a="$1" -v n="$2" 'BEGIN {printf "%.2f", (n > 0) ? a * 8 / n : 0}'; }
