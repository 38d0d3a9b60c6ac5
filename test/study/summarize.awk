# summarize.awk: summaries of the study's raw rows (run by run.sh).
#   awk -f summarize.awk -v what=card   results/card.tsv
#   awk -f summarize.awk -v what=policy results/policy.tsv
#   awk -f summarize.awk -v what=key    results/grow.tsv
BEGIN { FS = OFS = "\t" }

function abs(x) { return x < 0 ? -x : x }

# card: relative error (estimate - n) / n over the seeds, per configuration and n
what == "card" && FNR > 1 {
	key = $1 OFS $2 OFS $4
	rel = ($5 - $4) / $4
	if ($3 == "words") {
		words[key] = rel
		wbytes[key] = $6
		next
	}
	if (!(key in cnt))
		order[++nk] = key
	cnt[key]++
	sabs[key] += abs(rel)
	ssq[key] += rel * rel
	sbias[key] += rel
	sbytes[key] += $6
	# all checkpoints from 1e4 to 1e6 pooled: steadier than one n
	if ($4 >= 10000 && $4 <= 1000000) {
		pk = $1 OFS $2 OFS "1e4..1e6"
		if (!(pk in pcnt))
			porder[++np] = pk
		pcnt[pk]++
		pabs[pk] += abs(rel)
		psq[pk] += rel * rel
		pbias[pk] += rel
		pbytes[pk] += $6
	}
}

# policy: FPR against its bound over the seeds
what == "policy" && FNR > 1 {
	key = $1 OFS $2 OFS $3 OFS $4 OFS $6 OFS $8
	if (!(key in cnt))
		order[++nk] = key
	cnt[key]++
	sfpr[key] += $12
	if ($12 > mfpr[key])
		mfpr[key] = $12
	sbound[key] += $13
	if ($14 > mratio[key])
		mratio[key] = $14
	sfill[key] += $16
	if ($16 > mfill[key])
		mfill[key] = $16
	sopt[key] += $18
	sseg[key] += $15
	if ($19 == 0)
		mismatch[key]++
}

# key: the rows at powers of ten, where the FPR was probed
what == "key" && NR == 1 {
	print "label", "keys", "growth", "tightening", "capacity", "error_rate", "n",
		"fpr", "fpr_bound", "nsegments", "bytes", "bits_per_elem",
		"x_bloom_opt", "x_floor", "hll_share"
}
what == "key" && FNR > 1 && $9 > 0 && $2 == "synthetic" &&
	($8 ~ /^10*$/ || $1 ~ /^sized/) {
	print $1, $2, $3, $4, $5, $6, $8, $11, $13, $14, $16, $19, $20, $21, $22
}
# the word list: its last row per label (all its elements inserted)
what == "key" && FNR > 1 && $9 > 0 && $2 == "words" {
	if (!($1 in wrow))
		worder[++nw] = $1
	wrow[$1] = $1 OFS $2 OFS $3 OFS $4 OFS $5 OFS $6 OFS $8 OFS $11 OFS $13 OFS \
		$14 OFS $16 OFS $19 OFS $20 OFS $21 OFS $22
}

END {
	for (i = 1; i <= nw; i++)
		print wrow[worder[i]]
	if (what == "card") {
		print "impl", "params", "n", "seeds", "mean_abs_err", "rms_err", "bias",
			"mean_bytes"
		for (i = 1; i <= nk; i++) {
			k = order[i]
			printf "%s\t%d\t%.5f\t%.5f\t%.5f\t%.0f\n", k, cnt[k], sabs[k] / cnt[k],
				sqrt(ssq[k] / cnt[k]), sbias[k] / cnt[k], sbytes[k] / cnt[k]
		}
		for (i = 1; i <= np; i++) {
			k = porder[i]
			printf "%s\t%d\t%.5f\t%.5f\t%.5f\t%.0f\n", k, pcnt[k], pabs[k] / pcnt[k],
				sqrt(psq[k] / pcnt[k]), pbias[k] / pcnt[k], pbytes[k] / pcnt[k]
		}
		for (k in words)
			printf "%s\twords\t%.5f\t%.5f\t%.5f\t%d\n", k, abs(words[k]),
				abs(words[k]), words[k], wbytes[k]
	}
	if (what == "policy") {
		print "policy", "workload", "growth", "tightening", "hll_p", "n", "seeds",
			"mean_fpr", "max_fpr", "mean_bound", "max_fpr_over_bound",
			"mean_max_fill", "max_fill", "mean_segments", "mean_x_bloom_opt",
			"core_mismatches"
		for (i = 1; i <= nk; i++) {
			k = order[i]
			printf "%s\t%d\t%.5f\t%.5f\t%.5f\t%.3f\t%.3f\t%.3f\t%.1f\t%.3f\t%d\n",
				k, cnt[k], sfpr[k] / cnt[k], mfpr[k], sbound[k] / cnt[k],
				mratio[k], sfill[k] / cnt[k], mfill[k], sseg[k] / cnt[k],
				sopt[k] / cnt[k], mismatch[k] + 0
		}
	}
}

# configs: one line per configuration, to choose the defaults from
what == "configs" && FNR > 1 && $2 == "synthetic" && $1 !~ /^(sized|e0)/ {
	l = $1
	if (!(l in seen)) {
		seen[l] = 1
		corder[++nc] = l
		par[l] = $3 OFS $4 OFS $5
		maxfpr[l] = 0
		maxover[l] = 0
	}
	if ($9 > 0 && $11 > maxfpr[l])
		maxfpr[l] = $11
	if ($9 > 0 && $11 / $6 > maxover[l])
		maxover[l] = $11 / $6
	if ($8 == 10)
		b10[l] = $16
	if ($8 == 1000)
		share1k[l] = $22
	if ($8 == 1000000) {
		x1m[l] = $20
		f1m[l] = $11
	}
	if ($8 >= 10000 && $8 <= 1000000) {
		la[l] += log($20)
		ln[l]++
		if ($20 > mx[l])
			mx[l] = $20
	}
}
END {
	if (what == "configs") {
		print "label", "growth", "tightening", "capacity", "bytes_at_10",
			"hll_share_at_1e3", "fpr_at_1e6", "max_fpr_over_e", "x_opt_at_1e6",
			"x_opt_geomean_1e4_1e6", "x_opt_max_1e4_1e6"
		for (i = 1; i <= nc; i++) {
			l = corder[i]
			printf "%s\t%s\t%s\t%s\t%s\t%.3f\t%s\t%.3f\t%.3f\n", l, par[l],
				b10[l], share1k[l], (l in f1m) ? f1m[l] : "-", maxover[l],
				(l in x1m) ? x1m[l] : "-", ln[l] ? exp(la[l] / ln[l]) : 0, mx[l]
		}
	}
}
