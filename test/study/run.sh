#!/bin/sh
# test/study/run.sh: the accuracy and sizing study of sbf, in one command.
#
#   test/study/run.sh            # about 6 minutes on 2 cores
#
# Builds the C driver against src/core (no server needed), runs the sweeps
# with fixed seeds, asks postgresql-hll for its estimates on the same keys in
# a throwaway cluster (pg_virtualenv), then writes
#   test/study/results/*.tsv   raw rows and summaries
#   test/study/plots/*.png     the figures shown in the README
# Every number in the README's "Sizing and accuracy" section comes from here.
# Needs: cc, gnuplot-nox, postgresql-15-hll, postgresql-common
# (pg_virtualenv), wamerican-huge.  SKIP_HLL=1 skips the postgresql-hll part.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
core=$here/../../src/core
out=$here/results
plots=$here/plots
build=$here/build
WORDS=${WORDS:-/usr/share/dict/american-english-huge}
CC=${CC:-cc}
mkdir -p "$out" "$plots" "$build"

step() { printf '%s  %s\n' "$(date +%T)" "$*" >&2; }

step "build driver"
$CC -O2 -std=c11 -Wall -Wextra $(printf -- '-I%s ' "$core"/*/) -o "$build/sbf_study" \
	"$here/sbf_study.c" "$core"/*/*.c -lm
S=$build/sbf_study

# 1. FPR and bytes of filters grown one element at a time (synthetic keys,
#    seed 1, 100,000 absent probes per point).  Growth 1 stops at 1e5-1e6:
#    a thousand segments of 1,000 is already seed 000's regime.
step "grow: FPR and bytes/element"
# bytes at 40 points per decade, the FPR probed at every 4th (10 per decade)
fine="grid=40 every=4"
{
	$S grow header=1 label=defaults nmax=1e7 $fine
	$S fixed label=fixed-bloom nmax=1e7
	$S grow label=seed000 s=1 r=1 nmax=1e6 grid=10 every=10
	for r in 0.5 0.9; do
		$S grow label=s1-r$r s=1 r=$r nmax=1e5 grid=10 every=10
	done
	# the two candidate tightenings, explicitly, up to 1e7
	for r in 0.85 0.9; do
		$S grow label=s2-r$r s=2 r=$r nmax=1e7 $fine
	done
	for r in 0.5 0.7 0.8 0.95; do
		$S grow label=s2-r$r s=2 r=$r nmax=1e6 $fine
	done
	for r in 0.8 0.85; do
		$S grow label=s3-r$r s=3 r=$r nmax=1e6 $fine
	done
	for r in 0.5 0.7 0.8 0.9; do
		$S grow label=s4-r$r s=4 r=$r nmax=1e6 $fine
	done
	for c in 100 10000; do
		$S grow label=c$c c=$c nmax=1e6 $fine
	done
	# built by the aggregate (first segment right-sized for 1e5, header
	# capacity 1e5 as sbf_agg sets it), then grown by ||; and the same with a
	# header capacity of 1000, where growth restarts from 2,000
	$S grow label=agg1e5 sized=100000 nmax=1e6 $fine
	# the sizing table: other error rates, grown and right-sized
	for e in 0.001 0.05; do
		$S grow label=e$e e=$e nmax=1e7 grid=1
	done
	for e in 0.001 0.01 0.05; do
		for n in 10000 100000 1000000 10000000; do
			$S grow label=sized-e$e e=$e sized=$n nmax=$n grid=1
		done
	done
} > "$out/grow.tsv"

# 2. the same on a real word list: insert the even lines, probe the odd ones
step "grow: word list"
{
	$S grow header=1 label=defaults words="$WORDS"
	$S fixed label=fixed-bloom words="$WORDS"
	$S grow label=seed000 s=1 r=1 grid=10 every=10 words="$WORDS"
	$S grow label=s2-r0.5 r=0.5 words="$WORDS"
	$S grow label=s2-r0.85 r=0.85 words="$WORDS"
	$S grow label=agg s=2 sized=174227 words="$WORDS"
} > "$out/words.tsv"

# 3. the two "segment full" rules, simulated side by side
step "policy: distinct-insert count vs HyperLogLog estimate"
{
	$S policy header=1 policy=count verify=3 seeds=10
	$S policy policy=hll seeds=10
	$S policy policy=hll seeds=10 p=14
	$S policy policy=count workload=repeats seeds=10
	$S policy policy=hll workload=repeats seeds=10
	$S policy policy=count s=1 r=1 nmax=1e5 seeds=5
	$S policy policy=hll s=1 r=1 nmax=1e5 seeds=5
} > "$out/policy.tsv"

# 4. cardinality: sbf's HyperLogLog at several precisions, then
#    postgresql-hll on the same keys ('u<seed>:<i>'), 20 seeds up to 1e6 and
#    3 of them up to 1e7
step "cardinality: sbf"
{
	printf 'impl\tparams\tseed\tn\testimate\tbytes\n'
	for p in 8 9 10 11; do
		$S card p=$p seeds=20 bigseeds=3 nmax=1e6 bignmax=1e7
	done
	# the default precision against its theory, 200 seeds
	$S card tag=sbf-200seeds p=9 seeds=200 bigseeds=0 nmax=1e6
	awk -F'\t' 'NR > 1 && $1 == "defaults" { n = $8; est = $23; hb = $18 }
		END { printf "sbf\tp=9\twords\t%d\t%.3f\t%d\n", n, est, hb }' "$out/words.tsv"
} > "$out/card.tsv"

if [ "${SKIP_HLL:-0}" != 1 ]; then
	step "cardinality: postgresql-hll (pg_virtualenv)"
	pg_virtualenv -t -v 15 psql -X -q -v seeds=20 -v bigseeds=3 -v nmax=1000000 \
		-v bignmax=10000000 -v words="$WORDS" -f "$here/hll_card.sql" |
		grep '^hll	' >> "$out/card.tsv"
	# a failed cluster leaves no rows; sh has no pipefail
	if ! grep -q '^hll	' "$out/card.tsv"; then
		echo "run.sh: no postgresql-hll rows (pg_virtualenv failed?)" >&2
		exit 1
	fi
fi

# 4b. the count # f gives in format 2 (exact form, then the directory's
#     distinct inserts corrected for false-positive skips), grown one add at
#     a time and built as sbf_agg builds them, 20 seeds up to 1e6
step "count: directory estimate"
$S count header=1 seeds=20 nmax=1e6 > "$out/count.tsv"
awk -F'\t' 'NR > 1 { k = $1 "\t" $3; n[k] = $3; c[k]++; e = ($5 - $3) / $3; he = ($6 - $3) / $3;
		s[k] += e; q[k] += e * e; if (e < 0) e = -e; if (e > m[k]) m[k] = e;
		hq[k] += he * he; src[k] = $4 }
	END { for (k in c) printf "%s\t%s\t%.6f\t%.6f\t%.6f\t%.6f\n", k, src[k], s[k] / c[k],
			sqrt(q[k] / c[k]), m[k], sqrt(hq[k] / c[k]) }' \
	"$out/count.tsv" | sort -t'	' -k1,1 -k2,2n |
	{ printf 'path\tn\tsource\tmean_error\trms_error\tmax_abs_error\thll_rms_error\n'; cat; } \
	> "$out/count_summary.tsv"

# 5. the sizing formulas alone, over (growth, tightening)
step "analytic"
$S analytic > "$out/analytic.tsv"

step "summaries"
awk -f "$here/summarize.awk" -v what=card "$out/card.tsv" > "$out/card_summary.tsv"
awk -f "$here/summarize.awk" -v what=policy "$out/policy.tsv" > "$out/policy_summary.tsv"
awk -f "$here/summarize.awk" -v what=key "$out/grow.tsv" "$out/words.tsv" > "$out/key_numbers.tsv"
awk -f "$here/summarize.awk" -v what=configs "$out/grow.tsv" > "$out/configs.tsv"

step "plots"
(cd "$here" && gnuplot plot.gp)
step "done: $out, $plots"
cat "$out/key_numbers.tsv"
