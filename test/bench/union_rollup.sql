-- The 1.0 rollup scenario under 1.1's union policy (README, "Merging"):
-- 30 per-day sbf_agg filters of 2,000 distinct objects each at error_rate
-- 0.01, then sbf_union_agg over them.  Run, with sbf installed in the
-- installation PG_CONFIG names, with
--   PG_CONFIG=/path/bin/pg_config bash test/pg_tmp.sh psql -f test/bench/union_rollup.sql
-- (or psql -f against any database with sbf 1.1 or later).
CREATE EXTENSION IF NOT EXISTS sbf;
CREATE TEMP TABLE days AS
SELECT d AS day, sbf_agg('obj:' || d || ':' || i) AS f
FROM generate_series(1, 30) d, generate_series(1, 2000) i GROUP BY d;

-- within the filters' own 1%: refused, with the error_rate that would fit
\set VERBOSITY verbose
SELECT sbf_union_agg(f) FROM days;
\set VERBOSITY default

-- with the budget the hint names: measured FPR over 200,000 absent probes
CREATE TEMP TABLE rollup AS SELECT sbf_union_agg(f, 0.25) AS u FROM days;
SELECT (sbf_info(u)->>'fpr_bound')::float8 AS fpr_bound,
	   (sbf_info(u)->>'error_rate')::float8 AS error_rate,
	   jsonb_array_length(sbf_info(u)->'segments') AS segments,
	   pg_column_size(u) AS bytes,
	   (SELECT count(*) FILTER (WHERE u @> ('absent:' || i))::float8 / 200000
		FROM generate_series(1, 200000) i) AS measured_fpr,
	   (SELECT count(*) FILTER (WHERE NOT u @> ('obj:' || d || ':' || i))
		FROM generate_series(1, 30) d, generate_series(1, 2000) i) AS false_negatives
FROM rollup;

-- the same bytes in any row order
SELECT count(DISTINCT md5(u::bytea)) AS distinct_results
FROM (SELECT sbf_union_agg(f, 0.25 ORDER BY day) AS u FROM days
	  UNION ALL SELECT sbf_union_agg(f, 0.25 ORDER BY day DESC) FROM days
	  UNION ALL SELECT sbf_union_agg(f, 0.25 ORDER BY md5(day::text)) FROM days) s;
