# plot.gp: the study's figures, from results/*.tsv into plots/*.png.
# Run by run.sh from test/study:  gnuplot plot.gp

set terminal pngcairo enhanced size 800,480 font "DejaVu Sans,10"
set datafile separator "\t"
set datafile missing "NaN"
set key top left box opaque
set grid
set logscale x
set format x "10^{%L}"
set xlabel "elements n (grown one at a time from capacity 1,000)"

# rows of one configuration in grow.tsv (synthetic keys); probed ones only
grow(l) = sprintf("< awk -F'\t' '$1 == \"%s\" && $2 == \"synthetic\"' results/grow.tsv", l)
probed(l) = sprintf("< awk -F'\t' '$1 == \"%s\" && $2 == \"synthetic\" && $9 > 0 && $11 > 0' results/grow.tsv", l)

# ---- 1. false-positive rate vs n ----
set output "plots/fpr_vs_n.png"
set title "Measured false-positive rate (100,000 absent keys per point), error rate 1%"
set ylabel "false-positive rate"
set logscale y
set format y "10^{%L}"
set yrange [1e-5:1.5]
set xrange [10:1.2e7]
set key bottom right
plot 0.01 with lines dt 2 lw 2 lc rgb "black" title "requested error rate 1%", \
	probed("fixed-bloom") using 8:11 with linespoints pt 6 lc rgb "#d62728" title "one Bloom filter sized for 1,000", \
	probed("seed000") using 8:11 with linespoints pt 4 lc rgb "#ff7f0e" title "seed 000: equal segments (growth 1, no tightening)", \
	probed("s2-r0.5") using 8:11 with linespoints pt 8 lc rgb "#9467bd" title "growth 2, tightening 0.5", \
	probed("defaults") using 8:11 with linespoints pt 7 lw 2 lc rgb "#1f77b4" title "sbf defaults", \
	grow("defaults") using 8:13 with lines dt 3 lc rgb "#1f77b4" title "sbf defaults: bound (sum of segment errors)"

# ---- 2. bytes per element vs n ----
set output "plots/bytes_per_element.png"
set title "Bytes per element over the Bloom optimum -ln(e)/ln^2(2) bits, error rate 1%"
set ylabel "bytes per element / Bloom optimum"
unset logscale y
set format y "%g"
set yrange [0:4.5]
set xrange [1000:1.2e7]
set terminal pngcairo enhanced size 800,560 font "DejaVu Sans,10"
set key outside below maxrows 4 box opaque
plot 1 with lines dt 2 lw 2 lc rgb "black" title "Bloom optimum (9.6 bits)", \
	log(2) with lines dt 3 lw 2 lc rgb "gray40" title "floor log2(1/e) (6.6 bits)", \
	1.6 with lines dt 4 lc rgb "gray60" title "target 1.6x", \
	grow("s2-r0.5") using 8:20 with lines lc rgb "#9467bd" title "growth 2, tightening 0.5", \
	grow("s4-r0.8") using 8:20 with lines lc rgb "#2ca02c" title "growth 4, tightening 0.8", \
	grow("defaults") using 8:20 with lines lw 2 lc rgb "#1f77b4" title "sbf defaults (grown by ||)", \
	"< awk -F'\t' '$1 == \"agg1e5\" && $8 >= 100000' results/grow.tsv" using 8:20 \
		with lines dt 2 lc rgb "#d62728" title "sbf\\_agg for 10^5, then grown by ||", \
	"< awk -F'\t' '$1 == \"sized-e0.01\" && $9 > 0 && $20 < 2' results/grow.tsv" using 8:20 \
		with points pt 7 ps 1.5 lc rgb "#d62728" title "right-sized by sbf\\_agg"

set terminal pngcairo enhanced size 800,480 font "DejaVu Sans,10"
set key inside maxrows auto

# ---- 3. cardinality error vs n ----
card(impl, params) = sprintf("< awk -F'\t' '$1 == \"%s\" && $2 == \"%s\" && $4 != \"words\" && $3 !~ /\\.\\./' results/card_summary.tsv", impl, params)
set output "plots/cardinality_error.png"
set title "Cardinality: rms relative error over 20 seeds (HyperLogLogs: 3 at n = 10^7)"
set xlabel "distinct elements n"
set ylabel "rms relative error (%)"
set xrange [10:1.2e7]
set yrange [0:8]
set format y "%g"
set key top left
plot 1.04 / sqrt(512) * 100 with lines dt 2 lc rgb "black" title "1.04/sqrt(512)", \
	card("sbf", "p=9") using 3:($6 * 100) with linespoints pt 7 lw 2 lc rgb "#1f77b4" title "sbf p=9 (384 B, default)", \
	card("sbf-200seeds", "p=9") using 3:($6 * 100) with lines lw 2 dt 3 lc rgb "#1f77b4" title "sbf p=9, 200 seeds", \
	card("sbf", "p=11") using 3:($6 * 100) with linespoints pt 5 lc rgb "#17becf" title "sbf p=11 (1,536 B)", \
	card("hll", "log2m=9,regwidth=5") using 3:($6 * 100) with linespoints pt 6 lc rgb "#d62728" title "postgresql-hll 9/5 (320 B)", \
	card("hll", "log2m=10,regwidth=5") using 3:($6 * 100) with linespoints pt 4 lc rgb "#ff7f0e" title "postgresql-hll 10/5 (640 B)", \
	card("hll", "log2m=11,regwidth=5") using 3:($6 * 100) with linespoints pt 8 lc rgb "#9467bd" title "postgresql-hll defaults 11/5 (1,280 B)", \
	"< awk -F'\t' '$1 == \"grown\"' results/count_summary.tsv" using 2:($5 * 100) with linespoints pt 9 lw 2 lc rgb "#2ca02c" title "# f since 1.1, grown by || (exact, then directory)", \
	"< awk -F'\t' '$1 == \"agg\"' results/count_summary.tsv" using 2:($5 * 100) with linespoints pt 11 lc rgb "#8c564b" title "# f since 1.1, sbf\\_agg (directory)"

# ---- 4. the two "segment full" rules ----
pol(policy, workload, p) = sprintf("< awk -F'\t' '$1 == \"%s\" && $2 == \"%s\" && $3 == 2 && $5 == %d' results/policy_summary.tsv", policy, workload, p)
set output "plots/segment_full_policy.png"
set terminal pngcairo enhanced size 960,440 font "DejaVu Sans,10"
set multiplot layout 1,2 title "When is a segment full? Distinct-insert count (sbf) vs HyperLogLog estimate (seed 000); growth 2, tightening 0.9, 10 seeds"
set xlabel "distinct elements n"
set xrange [1000:1.2e6]
set logscale y
set format y "%g"
set key center right
set title "fullest segment / its capacity (max over seeds)"
set ylabel "fill"
set yrange [0.9:3]
set ytics (1, 1.1, 1.2, 1.5, 2, 3)
plot pol("count", "distinct", 9) using 6:13 with linespoints pt 7 lw 2 lc rgb "#1f77b4" title "count (sbf)", \
	pol("count", "repeats", 9) using 6:13 with linespoints pt 5 lc rgb "#17becf" title "count, half the adds repeated", \
	pol("hll", "distinct", 9) using 6:13 with linespoints pt 6 lc rgb "#ff7f0e" title "HyperLogLog p=9", \
	pol("hll", "distinct", 14) using 6:13 with linespoints pt 4 lc rgb "#2ca02c" title "HyperLogLog p=14", \
	pol("hll", "repeats", 9) using 6:13 with linespoints pt 8 lc rgb "#d62728" title "HyperLogLog p=9, half the adds repeated"
unset key
set title "false-positive rate / its bound (max over seeds)"
set ylabel "FPR / sum of segment errors"
set yrange [0.5:20]
set ytics (0.5, 1, 1.2, 2, 5, 10, 20)
plot 1 with lines dt 2 lc rgb "black" notitle, \
	pol("count", "distinct", 9) using 6:11 with linespoints pt 7 lw 2 lc rgb "#1f77b4" notitle, \
	pol("count", "repeats", 9) using 6:11 with linespoints pt 5 lc rgb "#17becf" notitle, \
	pol("hll", "distinct", 9) using 6:11 with linespoints pt 6 lc rgb "#ff7f0e" notitle, \
	pol("hll", "distinct", 14) using 6:11 with linespoints pt 4 lc rgb "#2ca02c" notitle, \
	pol("hll", "repeats", 9) using 6:11 with linespoints pt 8 lc rgb "#d62728" notitle
unset multiplot
