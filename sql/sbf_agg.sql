-- sbf_agg: the aggregates sbf_agg and sbf_union_agg

-- the one-by-one path: sbf_add row after row, starting from NULL (a default filter)
CREATE AGGREGATE pg_temp.add_one_by_one(text) (SFUNC = sbf_add, STYPE = scalablebloom);
-- the HyperLogLog's estimate of a value that carries one: a segmented value's
-- own, a compact value's that of its segmented form (what a union carries);
-- NULL in the exact form
CREATE FUNCTION pg_temp.hll_estimate(f scalablebloom) RETURNS jsonb LANGUAGE sql AS $$
	SELECT CASE sbf_info(f)->>'form'
		   WHEN 'segments' THEN sbf_info(f)->'hll'->'estimate'
		   WHEN 'compact' THEN sbf_info(sbf_union(f, sbf_empty(), 0.49))->'hll'->'estimate' END
$$;

-- an interaction log: 60 users over 3 days, user u has 5u rows a day drawn
-- from a pool of 10u + 5 objects (so with repeats), plus one NULL row each
CREATE TABLE agg_log AS
SELECT u AS user_id, d AS day,
	   (ARRAY['sku:', 'brand:', 'voucher:'])[1 + i % 3] ||
	   ((u * 7919 + d * 31 + i * 104729) % (10 * u + 5)) AS object
FROM generate_series(1, 60) u, generate_series(1, 3) d, generate_series(1, 5 * u) i
UNION ALL
SELECT u, 1, NULL FROM generate_series(1, 60) u;

-- aggregates exist for text, bigint and bytea, with and without error_rate;
-- all parallel safe with combine, serialize and deserialize, and a final
-- function that only reads the state
SELECT a.aggfnoid::regprocedure, a.aggkind, a.aggcombinefn, a.aggserialfn,
	   a.aggdeserialfn, a.aggfinalmodify, a.aggtransspace, p.proparallel
FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid
WHERE p.proname IN ('sbf_agg', 'sbf_union_agg')
ORDER BY a.aggfnoid::regprocedure::text COLLATE "C";

-- every aggregate has a comment
SELECT p.oid::regprocedure, obj_description(p.oid, 'pg_proc') IS NOT NULL AS has_comment
FROM pg_proc p WHERE p.proname IN ('sbf_agg', 'sbf_union_agg')
ORDER BY p.oid::regprocedure::text COLLATE "C";

-- zero rows give NULL, as PostgreSQL's own aggregates (other than count) do
SELECT sbf_agg(x::text) IS NULL AS text_null, sbf_agg(x::bigint) IS NULL AS bigint_null,
	   sbf_agg(x::text::bytea) IS NULL AS bytea_null,
	   sbf_agg(x::text, 0.001) IS NULL AS with_rate_null,
	   sbf_union_agg(NULL::scalablebloom) IS NULL AS union_null
FROM generate_series(1, 0) x;

-- so do rows whose elements are all NULL
SELECT sbf_agg(NULL::text) IS NULL AS text_null, sbf_agg(NULL::bigint) IS NULL AS bigint_null,
	   sbf_union_agg(NULL::scalablebloom) IS NULL AS union_null
FROM generate_series(1, 5);

-- coalesce turns the NULL into an empty filter
SELECT sbf_cardinality(coalesce(sbf_agg(x::text), sbf_empty())) AS n
FROM generate_series(1, 0) x;

-- NULL elements are skipped: the same bytes as without them
SELECT (SELECT sbf_agg(x)::bytea FROM unnest(ARRAY['a', NULL, 'b', NULL]) x) =
	   (SELECT sbf_agg(x)::bytea FROM unnest(ARRAY['a', 'b']) x) AS nulls_skipped;

-- a NULL error_rate means the default 0.01
SELECT (SELECT sbf_agg(x, NULL)::bytea FROM unnest(ARRAY['a', 'b']) x) =
	   (SELECT sbf_agg(x)::bytea FROM unnest(ARRAY['a', 'b']) x) AS null_rate_default;

-- duplicates do not count: the same bytes as the distinct elements
SELECT (SELECT sbf_agg(x)::bytea FROM unnest(ARRAY['a', 'b', 'a', 'a', 'b']) x) =
	   (SELECT sbf_agg(x)::bytea FROM unnest(ARRAY['b', 'a']) x) AS order_and_duplicates_ignored;

-- one element: the compact form at 63 fingerprint bits, no segment: 27
-- bytes (1.3 wrote 64 in the exact form)
SELECT i->>'bytes' AS bytes, i->'segments'->0->>'capacity' AS capacity,
	   i->'segments'->0->>'bits' AS bits, i->'segments'->0->>'count' AS count,
	   i->>'error_rate' AS error_rate, i->>'cardinality' AS cardinality
FROM (SELECT sbf_info(sbf_agg('sku:1'::text)) AS i) s;

-- the error_rate argument is the filter's error_rate
SELECT sbf_info(sbf_agg(x::text, 0.001))->>'error_rate' AS error_rate
FROM generate_series(1, 100) x;

-- integers hash as the equal bigint: int4 and int8 columns give the same filter
SELECT (SELECT sbf_agg(x)::bytea FROM generate_series(1, 500) x) =
	   (SELECT sbf_agg(x::bigint)::bytea FROM generate_series(1, 500) x) AS int4_is_int8;

-- bigint and bytea elements are found
SELECT bool_and(sbf_contains(f, x)) AS all_bigints_found
FROM (SELECT sbf_agg(x) AS f FROM generate_series(-1000, 1000) x) s,
	 generate_series(-1000, 1000) x;
SELECT bool_and(sbf_contains(f, ('\x' || lpad(to_hex(x), 6, '0'))::bytea)) AS all_byteas_found
FROM (SELECT sbf_agg(('\x' || lpad(to_hex(x), 6, '0'))::bytea) AS f
	  FROM generate_series(0, 999) x) s,
	 generate_series(0, 999) x;

-- GROUP BY: zero false negatives for every logged (user, object)
WITH f AS (SELECT user_id, sbf_agg(object) AS seen FROM agg_log GROUP BY user_id)
SELECT count(*) AS rows_checked,
	   count(*) FILTER (WHERE NOT sbf_contains(f.seen, l.object)) AS false_negatives
FROM agg_log l JOIN f USING (user_id)
WHERE l.object IS NOT NULL;

-- and few false positives: 10000 absent objects against the largest user
SELECT count(*) FILTER (WHERE sbf_contains(f, 'absent:' || x::text)) < 100 AS fpr_below_1_percent
FROM (SELECT sbf_agg(object) AS f FROM agg_log WHERE user_id = 60) s,
	 generate_series(1, 10000) x;

-- aggregate vs one-by-one ||: both contain every inserted element; their
-- counts agree within 1% (exact in the exact form, else the directory's
-- distinct inserts corrected for false-positive skips, which depend on the
-- order of the adds), and where neither is exact (the aggregate compact or
-- segmented, the adds segmented) their HyperLogLogs agree
WITH a AS (
	SELECT user_id, sbf_agg(object) AS agg, pg_temp.add_one_by_one(object) AS one
	FROM agg_log GROUP BY user_id
)
SELECT count(*) AS users,
	   count(*) FILTER (WHERE abs(sbf_cardinality(agg) - sbf_cardinality(one)) <=
						greatest(1, 0.01 * sbf_cardinality(one))) AS same_cardinality,
	   count(*) FILTER (WHERE abs(sbf_cardinality(agg) - # one) <=
						greatest(1, 0.01 * # one)) AS same_via_operator,
	   count(*) FILTER (WHERE sbf_info(agg)->>'form' <> 'exact' AND
						sbf_info(one)->>'form' <> 'exact') AS neither_exact,
	   count(*) FILTER (WHERE pg_temp.hll_estimate(agg) = pg_temp.hll_estimate(one))
		 AS hyperloglogs_agree
FROM a;
WITH a AS (
	SELECT user_id, sbf_agg(object) AS agg, pg_temp.add_one_by_one(object) AS one
	FROM agg_log GROUP BY user_id
)
SELECT count(*) FILTER (WHERE NOT sbf_contains(agg, object)) AS agg_misses,
	   count(*) FILTER (WHERE NOT sbf_contains(one, object)) AS one_by_one_misses
FROM a JOIN agg_log l USING (user_id)
WHERE l.object IS NOT NULL;

-- the aggregate's filter keeps growing with || and still finds everything
WITH f AS (SELECT sbf_agg(x::text) AS f FROM generate_series(1, 100) x),
	 g AS (SELECT f || ARRAY(SELECT 'more:' || x::text FROM generate_series(1, 1000) x) AS g FROM f)
SELECT jsonb_array_length(sbf_info(g)->'segments') > 1 AS grew,
	   (sbf_info(g)->>'fpr_bound')::float8 <= 0.01 AS fpr_bound_kept,
	   (SELECT bool_and(sbf_contains(g, x::text)) FROM generate_series(1, 100) x) AND
	   (SELECT bool_and(sbf_contains(g, 'more:' || x::text)) FROM generate_series(1, 1000) x)
		   AS all_found
FROM g;

-- right-sized: for n distinct elements one format-4 segment (fused or
-- blocked, whichever is smaller) at p = error_rate^1.04, no larger than
-- 1.2's standard Bloom segment m = ceil(-n ln p / ln^2 2) plus one 512-bit
-- line, within 5% of the Bloom optimum at error_rate itself; groups up to
-- 4,096 take the compact form (sbf_compact.sql; up to 8 elements at 63
-- fingerprint bits, as exact as 1.3's exact form)
SELECT n, i->>'form' AS form, jsonb_array_length(i->'segments') AS segments,
	   i->'segments'->0->>'kind' AS kind,
	   (i->'segments'->0->>'capacity')::bigint = n AS capacity_is_n,
	   (i->'segments'->0->>'bits')::float8 <=
		   ceil(-n * ln((i->>'error_rate')::float8 ^ 1.04) / ln(2)^2) + 512
		   AS bits_within_1_2,
	   (i->'segments'->0->>'bits')::float8 <=
		   1.05 * -n * ln((i->>'error_rate')::float8) / ln(2)^2
		   AS within_5_percent
FROM (SELECT n, (SELECT sbf_info(sbf_agg(x)) FROM generate_series(1, n) x) AS i
	  FROM unnest(ARRAY[1, 10, 1000, 5000, 100000]) n) s
ORDER BY n;

-- as a window aggregate the final function runs once per row on the same state
SELECT x, sbf_cardinality(sbf_agg(x::text) OVER (ORDER BY x)) AS running,
	   sbf_contains(sbf_agg(x::text) OVER (ORDER BY x), '3') AS has_3
FROM generate_series(1, 5) x;

-- sbf_union_agg of per-day filters contains every element of every day (the
-- days' segments are appended: within 1% they would be refused, so the union
-- gets a budget of its own; see sbf_union.sql)
WITH per_day AS (SELECT user_id, day, sbf_agg(object) AS f FROM agg_log GROUP BY user_id, day),
	 u AS (SELECT user_id, sbf_union_agg(f, 0.05) AS f FROM per_day GROUP BY user_id)
SELECT count(*) AS rows_checked,
	   count(*) FILTER (WHERE NOT sbf_contains(u.f, l.object)) AS false_negatives
FROM agg_log l JOIN u USING (user_id)
WHERE l.object IS NOT NULL;

-- its HyperLogLog is the union's: where neither is exact, the same
-- HyperLogLog as one sbf_agg over all days; the count (exact, directory or,
-- after a union of segmented filters, the HyperLogLog's) within 3 standard
-- errors of the HyperLogLog (1.04/sqrt(512))
WITH per_day AS (SELECT user_id, day, sbf_agg(object) AS f FROM agg_log GROUP BY user_id, day),
	 u AS (SELECT user_id, sbf_union_agg(f, 0.05) AS f FROM per_day GROUP BY user_id),
	 a AS (SELECT user_id, sbf_agg(object) AS f FROM agg_log GROUP BY user_id)
SELECT count(*) FILTER (WHERE abs(sbf_cardinality(u.f) - sbf_cardinality(a.f)) <=
						greatest(1, 3 * 1.04 / sqrt(512) * sbf_cardinality(a.f))) AS same_cardinality,
	   count(*) FILTER (WHERE sbf_info(u.f)->>'form' <> 'exact' AND
						sbf_info(a.f)->>'form' <> 'exact') AS neither_exact,
	   count(*) FILTER (WHERE pg_temp.hll_estimate(u.f) = pg_temp.hll_estimate(a.f))
		 AS hyperloglogs_agree
FROM u JOIN a USING (user_id);

-- sbf_union_agg skips NULL filters: the same bytes as the others alone, in
-- another order
SELECT (SELECT sbf_union_agg(f)::bytea
		FROM (VALUES (NULL::scalablebloom), (sbf_empty() || 'a'), (NULL), (sbf_empty() || 'b')) v(f)) =
	   (SELECT sbf_union_agg(f)::bytea
		FROM (VALUES (sbf_empty() || 'b'), (sbf_empty() || 'a')) v(f)) AS same_without_nulls;

-- errors: error_rate must be in (0, 0.5)
SELECT * FROM sbf_regress.try($$SELECT sbf_agg(x::text, 'NaN') FROM generate_series(1, 3) x$$);
SELECT * FROM sbf_regress.try($$SELECT sbf_agg(x::text, 0) FROM generate_series(1, 3) x$$);
SELECT * FROM sbf_regress.try($$SELECT sbf_agg(x, 0.5) FROM generate_series(1, 3) x$$);
SELECT * FROM sbf_regress.try($$SELECT sbf_agg(x::text::bytea, -1) FROM generate_series(1, 3) x$$);

-- errors: the error_rate must be the same in every row
SELECT * FROM sbf_regress.try($$SELECT sbf_agg(x, 0.01 * x) FROM generate_series(1, 3) x$$);

-- errors: sbf_union_agg of filters with different parameters
SELECT * FROM sbf_regress.try($$
	SELECT sbf_union_agg(f) FROM (
		SELECT sbf_agg(x::text, 0.01) FROM generate_series(1, 10) x
		UNION ALL
		SELECT sbf_agg(x::text, 0.001) FROM generate_series(1, 10) x) s(f)$$);
SELECT * FROM sbf_regress.try($$
	SELECT sbf_union_agg(f) FROM (VALUES (sbf_empty()), (sbf_empty(growth => 4))) v(f)$$);

-- a forced parallel plan: 200,000 rows, two workers
CREATE TABLE agg_big AS
SELECT i AS id, i % 10 AS g, 'sku:' || ((i * 7) % 50021)::text AS object
FROM generate_series(1, 200000) i;
ALTER TABLE agg_big SET (parallel_workers = 2);
ANALYZE agg_big;

-- shows whether a plan has a partial aggregate and launched workers
CREATE FUNCTION pg_temp.parallel_plan(query text, OUT partial boolean, OUT workers_launched boolean)
LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	partial := false;
	workers_launched := false;
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || query
	LOOP
		IF line ~ 'Partial (Hash|Group)?Aggregate' THEN
			partial := true;
		END IF;
		IF line ~ 'Workers Launched: [1-9]' THEN
			workers_launched := true;
		END IF;
	END LOOP;
END $$;

SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;

EXPLAIN (COSTS OFF) SELECT sbf_agg(object) FROM agg_big;
SELECT * FROM pg_temp.parallel_plan('SELECT sbf_agg(object) FROM agg_big');
SELECT * FROM pg_temp.parallel_plan('SELECT g, sbf_agg(object) FROM agg_big GROUP BY g');
SELECT * FROM pg_temp.parallel_plan('SELECT sbf_agg(id) FROM agg_big');

SELECT md5(sbf_agg(object)::bytea) AS par_all FROM agg_big \gset
SELECT md5(string_agg(md5(f::bytea), ',' ORDER BY g)) AS par_grouped
FROM (SELECT g, sbf_agg(object) AS f FROM agg_big GROUP BY g) s \gset
SELECT md5(sbf_agg(id, 0.001)::bytea) AS par_ids FROM agg_big \gset

-- the parallel result equals the serial one byte for byte (the combine is an
-- exact union of hash sets)
SET max_parallel_workers_per_gather = 0;
SELECT * FROM pg_temp.parallel_plan('SELECT sbf_agg(object) FROM agg_big');
SELECT md5(sbf_agg(object)::bytea) = :'par_all' AS same_bytes FROM agg_big;
SELECT md5(string_agg(md5(f::bytea), ',' ORDER BY g)) = :'par_grouped' AS same_bytes_grouped
FROM (SELECT g, sbf_agg(object) AS f FROM agg_big GROUP BY g) s;
SELECT md5(sbf_agg(id, 0.001)::bytea) = :'par_ids' AS same_bytes_bigint FROM agg_big;

-- and has no false negatives and one right-sized segment
SELECT (SELECT bool_and(sbf_contains(f, object)) FROM agg_big) AS all_found,
	   jsonb_array_length(sbf_info(f)->'segments') AS segments,
	   (sbf_info(f)->'segments'->0->>'capacity')::bigint =
		   (SELECT count(DISTINCT object) FROM agg_big) AS capacity_is_distinct_count
FROM (SELECT sbf_agg(object) AS f FROM agg_big) s;

-- sbf_union_agg in parallel: 20 per-group filters, the same bytes as serial
-- (20 appended segments need a budget of their own)
CREATE TABLE agg_filters AS
SELECT id % 20 AS part, sbf_agg(object) AS f FROM agg_big GROUP BY id % 20;
ALTER TABLE agg_filters SET (parallel_workers = 2);
ANALYZE agg_filters;
SET max_parallel_workers_per_gather = 2;
SELECT * FROM pg_temp.parallel_plan('SELECT sbf_union_agg(f, 0.2) FROM agg_filters');
SELECT md5(u::bytea) AS par_union,
	   (SELECT bool_and(sbf_contains(u, object)) FROM agg_big) AS all_found
FROM (SELECT sbf_union_agg(f, 0.2) AS u FROM agg_filters) s \gset
SELECT :'all_found' AS all_found_parallel;
SET max_parallel_workers_per_gather = 0;
SELECT * FROM pg_temp.parallel_plan('SELECT sbf_union_agg(f, 0.2) FROM agg_filters');
SELECT md5(u::bytea) = :'par_union' AS same_bytes,
	   (SELECT bool_and(sbf_contains(u, object)) FROM agg_big) AS all_found
FROM (SELECT sbf_union_agg(f, 0.2) AS u FROM agg_filters) s;

RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

DROP TABLE agg_log, agg_big, agg_filters;

-- grouping sets: one call site serves several aggregate contexts (sorted
-- sets, hashed sets), each group's filter equals sbf_agg over its rows
CREATE TABLE agg_sets AS
SELECT i % 7 AS a, i % 3 AS b, 'x' || (i % 500) AS x FROM generate_series(1, 20000) i;
SELECT count(*) AS groups, bool_and(f = g) AS same_bytes
FROM (SELECT a, b, sbf_agg(x)::bytea AS f FROM agg_sets GROUP BY ROLLUP (a, b)) r,
	 LATERAL (SELECT sbf_agg(x)::bytea AS g FROM agg_sets
			  WHERE (r.a IS NULL OR a = r.a) AND (r.b IS NULL OR b = r.b)) s;
SELECT count(*) AS groups, bool_and(f = g) AS same_bytes
FROM (SELECT a, b, sbf_agg(x)::bytea AS f FROM agg_sets GROUP BY GROUPING SETS ((a), (b), ())) r,
	 LATERAL (SELECT sbf_agg(x)::bytea AS g FROM agg_sets
			  WHERE (r.a IS NULL OR a = r.a) AND (r.b IS NULL OR b = r.b)) s;
DROP TABLE agg_sets;
