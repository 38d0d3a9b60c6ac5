-- sbf_sizing: fixed-seed guards of the accuracy and sizing study
-- (test/study/run.sh).  The keys are the study driver's: inserted 'k1:<i>',
-- absent probes 'a1:<j>', so every filter here is byte for byte the one the
-- study measured (results/grow.tsv).  The hash is fixed, so the counts are
-- deterministic; only booleans and segment counts and capacities are printed.

-- filters grown one element at a time (an array adds its elements in order,
-- exactly like repeated ||), explicit parameters so a change of the defaults
-- does not move these guards
CREATE TEMP TABLE grown AS
SELECT label, growth, tightening, n,
	   sbf_add(sbf_empty(1000, 0.01, growth, tightening),
			   ARRAY(SELECT 'k1:' || i FROM generate_series(1, n) i)) AS f
FROM (VALUES ('s2-r0.9', 2, 0.9::float8), ('s2-r0.85', 2, 0.85),
			 ('s4-r0.8', 4, 0.8), ('seed000', 1, 1)) c(label, growth, tightening),
	 unnest(ARRAY[1000, 10000, 100000]) n;

INSERT INTO grown
SELECT 's2-r0.9', 2, 0.9, 1000000,
	   sbf_add(sbf_empty(1000, 0.01, 2, 0.9),
			   ARRAY(SELECT 'k1:' || i FROM generate_series(1, 1000000) i));

-- 100,000 absent probes per filter
CREATE TEMP TABLE measured AS
SELECT label, growth, tightening, n,
	   sbf_matches(f, ARRAY(SELECT 'a1:' || j FROM generate_series(1, 100000) j))
		   / 100000.0 AS fpr,
	   (sbf_info(f)->>'fpr_bound')::float8 AS bound,
	   (sbf_info(f)->>'bytes')::float8 AS bytes,
	   (sbf_info(f)->'hll'->>'bytes')::float8 AS hll_bytes,
	   sbf_cardinality(f) AS card,
	   jsonb_array_length(sbf_info(f)->'segments') AS segments
FROM grown;

-- tightened filters: measured FPR under the requested 1% at every size, and
-- within 15% of their bound (sum of the segment errors)
SELECT label, n, segments, fpr <= 0.01 AS fpr_under_e, fpr <= 1.15 * bound AS fpr_near_bound
FROM measured WHERE tightening < 1 ORDER BY label, n;

-- seed 000's equal segments: every segment at 1% adds up, 10 segments give
-- about 9%; the contrast that tightening exists for
SELECT n, segments, fpr > 0.05 AS fpr_over_5pct
FROM measured WHERE label = 'seed000' AND n = 10000;

-- bytes per element against the Bloom optimum -ln(0.01)/ln^2(2) bits at
-- 100x growth (n = 1e5, the last segment 79% full): growth 2 stays within
-- 2.1x, and never beats the optimum
SELECT label, n,
	   bytes * 8 / n / (-ln(0.01) / ln(2) ^ 2) <= 2.1 AS within_target,
	   bytes * 8 / n / (-ln(0.01) / ln(2) ^ 2) >= 1.0 AS not_below_optimum
FROM measured WHERE growth = 2 AND n = 100000 ORDER BY label;

-- at 1000x growth (n = 1e6) the defaults' growth and tightening give 1.72x
SELECT bytes * 8 / n / (-ln(0.01) / ln(2) ^ 2) BETWEEN 1.70 AND 1.75 AS x_opt_at_1000x
FROM measured WHERE label = 's2-r0.9' AND n = 1000000;

-- the HyperLogLog is at most a quarter of a filter from 1,000 elements on
-- (p = 9: 384 bytes), and its estimate within 3 standard errors (1.04/sqrt(512))
SELECT label, n, hll_bytes / bytes <= 0.25 AS hll_share_ok,
	   abs(card - n) / n <= 3 * 1.04 / sqrt(512) AS cardinality_ok
FROM measured WHERE label IN ('s2-r0.9', 's2-r0.85') ORDER BY label, n;

-- the default filter meets the same guards (whatever tightening is chosen
-- from the study, 0.85 or 0.9)
WITH d AS (
	SELECT sbf_add(sbf_empty(), ARRAY(SELECT 'k1:' || i FROM generate_series(1, 100000) i)) AS f
)
SELECT sbf_matches(f, ARRAY(SELECT 'a1:' || j FROM generate_series(1, 100000) j))
		   <= 0.01 * 100000 AS fpr_under_e,
	   (sbf_info(f)->>'bytes')::float8 * 8 / 100000 / (-ln(0.01) / ln(2) ^ 2) <= 2.1
		   AS within_target,
	   (sbf_info(f)->'hll'->>'bytes')::float8 / (sbf_info(f)->>'bytes')::float8 <= 0.25
		   AS hll_share_ok
FROM d;

-- a filter built by sbf_agg: one segment right-sized for its 100,000 distinct
-- elements at error e^1.04, which costs 4% more bits than the Bloom optimum
-- at e (1.044x with the header and the HyperLogLog) and leaves e - e^1.04 of
-- the error budget; then grown by || past that size, which appends a segment
-- at (1 - r) of the budget left
CREATE TEMP TABLE agg AS
SELECT 'agg' AS label, 100000 AS n, sbf_agg('k1:' || i) AS f
FROM generate_series(1, 100000) i;

INSERT INTO agg
SELECT 'agg-grown', 101000,
	   sbf_add(f, ARRAY(SELECT 'k1:' || i FROM generate_series(100001, 101000) i))
FROM agg;

SELECT label, jsonb_array_length(sbf_info(f)->'segments') AS segments,
	   sbf_info(f)->'segments'->0->>'kind' AS first_kind,
	   -- a fused segment stores its rate 2^-f, at most the share e^1.04
	   (sbf_info(f)->'segments'->0->>'error_rate')::float8 =
		   2 ^ -(sbf_info(f)->'segments'->0->>'fingerprint_bits')::int AND
	   (sbf_info(f)->'segments'->0->>'error_rate')::float8 <= 0.01 ^ 1.04
		   AS first_error_2_f_within_e_1_04,
	   (sbf_info(f)->>'fpr_bound')::float8 < 0.01 AS bound_under_e,
	   sbf_matches(f, ARRAY(SELECT 'a1:' || j FROM generate_series(1, 100000) j))
		   <= 0.01 * 100000 AS fpr_under_e
FROM agg ORDER BY label;

-- format 4: the fused segment (8.3 bits an element at 100,000, f = 7) takes
-- 0.85-0.90x the standard Bloom optimum at e, header and HyperLogLog
-- included (1.2's bloom segment took 1.04-1.05x)
SELECT (sbf_info(f)->>'bytes')::float8 * 8 / n / (-ln(0.01) / ln(2) ^ 2)
		   BETWEEN 0.85 AND 0.90 AS x_opt_0_87
FROM agg WHERE label = 'agg';

-- the segment the first growing || appends: its error is (1 - r) of the
-- budget left, and its capacity is min(largest * s, c * s^1) with c the
-- header's capacity, which sbf_agg leaves at the default 1,000: growth after
-- an aggregate restarts from c instead of doubling the right-sized segment
SELECT (s->>'capacity')::int8 AS capacity,
	   abs((s->>'error_rate')::float8 - 0.1 * (0.01 - 2 ^ -7)) < 1e-12
		   AS error_tenth_of_budget_left
FROM agg, jsonb_array_elements(sbf_info(f)->'segments') WITH ORDINALITY e(s, i)
WHERE label = 'agg-grown' AND i = 2;

DROP TABLE grown, measured, agg;
