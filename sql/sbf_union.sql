-- sbf_union: the union policy (OR, append, refuse, explicit budget,
-- tightening 1), canonical bytes in any argument or row order, serial or
-- parallel, and no false negatives after any union

-- a filter of the elements prefix1 .. prefixN, built by adds
CREATE FUNCTION pg_temp.filled(f scalablebloom, prefix text, n int) RETURNS scalablebloom
LANGUAGE sql AS $$
	SELECT sbf_add(f, ARRAY(SELECT prefix || i FROM generate_series(1, n) i))
$$;

-- how many of prefix1 .. prefixN the filter misses (must be 0)
CREATE FUNCTION pg_temp.missing(f scalablebloom, prefix text, n int) RETURNS bigint
LANGUAGE sql AS $$
	SELECT count(*) FROM generate_series(1, n) i WHERE NOT f @> (prefix || i)
$$;

-- segments and fpr_bound of a filter
CREATE FUNCTION pg_temp.shape(f scalablebloom, OUT segments int, OUT fpr_bound float8,
							  OUT error_rate float8)
LANGUAGE sql AS $$
	SELECT jsonb_array_length(sbf_info(f)->'segments'),
		   round((sbf_info(f)->>'fpr_bound')::numeric, 6)::float8,
		   (sbf_info(f)->>'error_rate')::float8
$$;

CREATE TABLE pairs AS
SELECT pg_temp.filled(sbf_empty(1000), 'a', 300) AS a300,
	   pg_temp.filled(sbf_empty(1000), 'b', 300) AS b300,
	   pg_temp.filled(sbf_empty(1000), 'a', 800) AS a800,
	   pg_temp.filled(sbf_empty(1000), 'b', 2500) AS b2500,
	   (SELECT sbf_agg('c' || i) FROM generate_series(1, 2000) i) AS c2000,
	   (SELECT sbf_agg('d' || i) FROM generate_series(1, 2000) i) AS d2000,
	   (SELECT sbf_agg('e' || i, 0.05) FROM generate_series(1, 2000) i) AS e2000_05,
	   pg_temp.filled(sbf_empty(100, 0.01, 2, 1), 's', 1000) AS s_seed,
	   pg_temp.filled(sbf_empty(100, 0.01, 2, 1), 't', 1000) AS t_seed;

-- OR: two filters of one geometry whose OR stays within the design fill
-- become one segment; the bound is that segment's error
SELECT (pg_temp.shape(sbf_union(a300, b300))).*,
	   pg_temp.missing(sbf_union(a300, b300), 'a', 300) +
	   pg_temp.missing(sbf_union(a300, b300), 'b', 300) AS missing
FROM pairs;

-- the OR's count is estimated from its fill (about 600)
SELECT (sbf_info(sbf_union(a300, b300))->'segments'->0->>'count')::int BETWEEN 570 AND 630
	   AS count_estimated
FROM pairs;

-- a subset changes nothing but the canonical form: (f || f) || f = f || f
SELECT (a800 || a800)::bytea = ((a800 || a800) || a800)::bytea AS self_union_stable,
	   (sbf_union(a800, a300))::bytea = (a800 || a800)::bytea AS subset_absorbed
FROM pairs;

-- an empty filter adds nothing, not even an empty segment
SELECT (pg_temp.shape(sbf_union(a300, sbf_empty(10)))).*,
	   sbf_union(a300, sbf_empty(10))::bytea = (a300 || a300)::bytea AS same_as_alone,
	   (sbf_empty() || sbf_empty())::bytea = sbf_empty()::bytea AS empty_stays_empty
FROM pairs;

-- append: a full and a 800-element segment of one geometry do not fit one
-- segment, so both stay; the growth chain's bound stays within 0.01
SELECT (pg_temp.shape(a800 || b2500)).*,
	   pg_temp.missing(a800 || b2500, 'a', 800) +
	   pg_temp.missing(a800 || b2500, 'b', 2500) AS missing
FROM pairs;

-- refuse: two right-sized aggregates each spend up to e^1.04 = 0.0083 of 0.01
-- (these, compact: 2,000 / 2^18 = 0.0076)
\x on
SELECT * FROM sbf_regress.try($$SELECT c2000 || d2000 FROM pairs$$);
SELECT * FROM sbf_regress.try($$SELECT sbf_union(c2000, d2000) FROM pairs$$);
-- an explicit budget below the filter's own bound is refused too
SELECT * FROM sbf_regress.try($$SELECT sbf_union(c2000, NULL, 0.005) FROM pairs$$);
-- no error_rate below 0.5 fits 85 such filters (400 elements each: compact,
-- not exact, 400 / 2^16 = 0.0061 each)
SELECT * FROM sbf_regress.try($$
	SELECT sbf_union_agg(f, 0.4)
	FROM (SELECT sbf_agg(i::text || ':' || g) AS f
		  FROM generate_series(1, 85) g, generate_series(1, 400) i GROUP BY g) s$$);
-- filters of different error_rate need an explicit budget
SELECT * FROM sbf_regress.try($$SELECT sbf_union(c2000, e2000_05) FROM pairs$$);
-- growth, tightening and hash must match even then
SELECT * FROM sbf_regress.try($$SELECT sbf_union(c2000, sbf_empty(growth => 4), 0.3) FROM pairs$$);
-- the explicit error_rate is checked like any other
SELECT * FROM sbf_regress.try($$SELECT sbf_union(c2000, d2000, 0.5) FROM pairs$$);
\x off

-- explicit budget: the hint's error_rate fits, and the result carries it
-- (two compact values: one compact value, no segments, its bound the
-- distinct fingerprints')
SELECT (pg_temp.shape(sbf_union(c2000, d2000, 0.017))).*,
	   pg_temp.missing(sbf_union(c2000, d2000, 0.017), 'c', 2000) +
	   pg_temp.missing(sbf_union(c2000, d2000, 0.017), 'd', 2000) AS missing
FROM pairs;

-- ... and unites filters of different error_rate
SELECT (pg_temp.shape(sbf_union(c2000, e2000_05, 0.1))).*,
	   pg_temp.missing(sbf_union(c2000, e2000_05, 0.1), 'c', 2000) +
	   pg_temp.missing(sbf_union(c2000, e2000_05, 0.1), 'e', 2000) AS missing
FROM pairs;

-- a NULL filter is the empty set; a NULL error_rate is the filters' own
SELECT sbf_union(c2000, NULL, NULL)::bytea = c2000::bytea AS null_rate_is_own,
	   sbf_union(NULL, NULL, 0.1) IS NULL AS both_null,
	   (pg_temp.shape(sbf_union(NULL, c2000, 0.1))).error_rate AS rebudgeted
FROM pairs;

-- tightening 1 (seed 000's equal-error segments) promises no compound bound:
-- unions append as before, however far past the error_rate
SELECT (pg_temp.shape(s_seed || t_seed)).*,
	   pg_temp.missing(s_seed || t_seed, 's', 1000) +
	   pg_temp.missing(s_seed || t_seed, 't', 1000) AS missing
FROM pairs;

-- canonical bytes: argument order does not matter
SELECT sbf_union(a300, b300)::bytea = sbf_union(b300, a300)::bytea AS or_commutes,
	   sbf_union(a800, b2500)::bytea = sbf_union(b2500, a800)::bytea AS append_commutes,
	   sbf_union(c2000, d2000, 0.02)::bytea = sbf_union(d2000, c2000, 0.02)::bytea
		   AS budget_commutes,
	   sbf_union(c2000, e2000_05, 0.1)::bytea = sbf_union(e2000_05, c2000, 0.1)::bytea
		   AS rates_commute,
	   (s_seed || t_seed)::bytea = (t_seed || s_seed)::bytea AS seed_commutes
FROM pairs;

-- the 1.0 scenario, smaller: 30 per-day sbf_agg filters at 1% (200 objects a
-- day) are refused with the error_rate that fits; with it, nothing is missed
CREATE TABLE days AS
SELECT d AS day, sbf_agg('day' || d || ':' || i) AS f
FROM generate_series(1, 30) d, generate_series(1, 200) i GROUP BY d;
\x on
SELECT * FROM sbf_regress.try($$SELECT sbf_union_agg(f) FROM days$$);
\x off
SELECT (pg_temp.shape(sbf_union_agg(f, 0.25))).* FROM days;
SELECT count(*) AS checked, count(*) FILTER (WHERE NOT u @> ('day' || d || ':' || i)) AS missing
FROM (SELECT sbf_union_agg(f, 0.25) AS u FROM days) s,
	 generate_series(1, 30) d, generate_series(1, 200) i;

-- union_agg gives the same bytes in any row order
SELECT count(DISTINCT md5(u::bytea)) AS distinct_results
FROM (SELECT sbf_union_agg(f, 0.25 ORDER BY day) AS u FROM days
	  UNION ALL SELECT sbf_union_agg(f, 0.25 ORDER BY day DESC) FROM days
	  UNION ALL SELECT sbf_union_agg(f, 0.25 ORDER BY md5(day::text)) FROM days
	  UNION ALL SELECT sbf_union_agg(f, 0.25 ORDER BY day % 7, day) FROM days) s;

-- OR inside the aggregate: 40 small filters of one geometry are one segment,
-- in any row order
CREATE TABLE small AS
SELECT g, pg_temp.filled(sbf_empty(1000), 'g' || g || ':', 10) AS f
FROM generate_series(1, 40) g;
SELECT (pg_temp.shape(sbf_union_agg(f))).* FROM small;
SELECT count(DISTINCT md5(u::bytea)) AS distinct_results
FROM (SELECT sbf_union_agg(f ORDER BY g) AS u FROM small
	  UNION ALL SELECT sbf_union_agg(f ORDER BY g DESC) FROM small
	  UNION ALL SELECT sbf_union_agg(f ORDER BY md5(g::text)) FROM small) s;
SELECT count(*) FILTER (WHERE NOT u @> ('g' || g || ':' || i)) AS missing
FROM (SELECT sbf_union_agg(f) AS u FROM small) s, generate_series(1, 40) g,
	 generate_series(1, 10) i;

-- NULLs are skipped; zero rows give NULL; a NULL error_rate is the filters' own
SELECT sbf_union_agg(f) IS NULL AS zero_rows FROM small WHERE false;
SELECT (SELECT sbf_union_agg(f) FROM (VALUES (NULL::scalablebloom), (a300), (NULL), (b300)) v(f))::bytea =
	   sbf_union(a300, b300)::bytea AS nulls_skipped
FROM pairs;
SELECT sbf_union_agg(f, NULL)::bytea = sbf_union_agg(f)::bytea AS null_rate_is_own FROM small;

-- with an error_rate, filters of different error_rate unite, as sbf_union does
SELECT (SELECT sbf_union_agg(f, 0.1) FROM (VALUES (c2000), (e2000_05)) v(f))::bytea =
	   sbf_union(c2000, e2000_05, 0.1)::bytea AS same_as_sbf_union
FROM pairs;

-- the error_rate of sbf_union_agg must be the same in every row
\x on
SELECT * FROM sbf_regress.try($$SELECT sbf_union_agg(f, 0.2 + g / 1000.0) FROM small$$);
SELECT * FROM sbf_regress.try($$SELECT sbf_union_agg(f) FROM (SELECT c2000 FROM pairs UNION ALL SELECT e2000_05 FROM pairs) s(f)$$);
\x off

-- a window aggregate calls the final function more than once
SELECT g, (pg_temp.shape(sbf_union_agg(f) OVER (ORDER BY g))).segments
FROM small WHERE g <= 3;

-- forced parallel plan: partial aggregates on the workers, the same bytes
CREATE FUNCTION pg_temp.parallel_plan(query text, OUT partial boolean, OUT workers_launched boolean)
LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	partial := false;
	workers_launched := false;
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || query
	LOOP
		IF line ~ 'Partial Aggregate' THEN
			partial := true;
		END IF;
		IF line ~ 'Workers Launched: [1-9]' THEN
			workers_launched := true;
		END IF;
	END LOOP;
END $$;

-- 300 small filters that OR together and 20 aggregates that append
CREATE TABLE many (g int, f scalablebloom);
INSERT INTO many SELECT g, pg_temp.filled(sbf_empty(1000), 'n' || g || ':', 5)
FROM generate_series(1, 300) g;
INSERT INTO many SELECT g, sbf_agg('m' || g || ':' || i)
FROM generate_series(1, 20) g, generate_series(1, 100) i GROUP BY g;
ALTER TABLE many SET (parallel_workers = 2);
ANALYZE many;

SELECT md5(sbf_union_agg(f, 0.49 ORDER BY g, f::bytea)::bytea) AS serial_bytes FROM many \gset
SELECT (pg_temp.shape(sbf_union_agg(f, 0.49))).* FROM many;

SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT * FROM pg_temp.parallel_plan('SELECT sbf_union_agg(f, 0.49) FROM many');
SELECT md5(sbf_union_agg(f, 0.49)::bytea) = :'serial_bytes' AS parallel_same_bytes FROM many;
SELECT count(*) FILTER (WHERE NOT u @> ('n' || g || ':' || i)) AS missing_or,
	   count(*) FILTER (WHERE g <= 20 AND NOT u @> ('m' || g || ':' || (i * 20))) AS missing_appended
FROM (SELECT sbf_union_agg(f, 0.49) AS u FROM many) s, generate_series(1, 300) g,
	 generate_series(1, 5) i;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- format 4 (issue 27): every union of values of versions up to 4 writes
-- version 4 (byte 0), whatever its inputs' versions (5,000 elements: sbf_agg
-- writes a fused segment, not the compact form of version 5); f || g = g || f
-- byte for byte; sbf_union_agg gives those
-- bytes too, in any row order, serially and in a forced parallel plan; no
-- key is lost; a fused segment is never OR-ed: equal ones are one, others
-- are appended
CREATE TABLE u4 (p int, agg scalablebloom, grown scalablebloom);
INSERT INTO u4
SELECT p, sbf_agg('v' || (i % 5003) || ':' || (p % 3)),
	   pg_temp.filled(sbf_empty(400, 0.01, 2, 1), 'w' || (p % 4) || '_', 1500)
FROM generate_series(1, 12) p, generate_series(1, 5000) i GROUP BY p;
ALTER TABLE u4 SET (parallel_workers = 2);
ANALYZE u4;

SELECT count(*) AS pairs,
	   bool_and(get_byte((a.grown || b.grown)::bytea, 0) = 4) AS version_4,
	   bool_and((a.grown || b.grown)::bytea = (b.grown || a.grown)::bytea) AS commutes,
	   bool_and((a.grown || b.grown)::bytea =
				(SELECT sbf_union_agg(f ORDER BY o)::bytea
				 FROM (VALUES (b.grown, 1), (a.grown, 2)) v(f, o))) AS same_as_agg,
	   sum(pg_temp.missing(a.grown || b.grown, 'w' || (a.p % 4) || '_', 1500) +
		   pg_temp.missing(a.grown || b.grown, 'w' || (b.p % 4) || '_', 1500)) AS missing
FROM u4 a, u4 b WHERE a.p < b.p AND a.p <= 4 AND b.p <= 6;
SELECT bool_and(sbf_union(a.agg, b.agg, 0.3)::bytea = sbf_union(b.agg, a.agg, 0.3)::bytea)
	   AS agg_pairs_commute
FROM u4 a, u4 b WHERE a.p < b.p AND a.p <= 3;

-- three distinct sets in twelve rows: their segments, each once
SELECT md5(sbf_union_agg(agg, 0.3 ORDER BY p)::bytea) AS u4_serial FROM u4 \gset
SELECT get_byte(u::bytea, 0) AS version,
	   (SELECT string_agg(s->>'kind', ',') FROM jsonb_array_elements(sbf_info(u)->'segments') s)
	   AS kinds,
	   md5(u::bytea) = :'u4_serial' AS same_bytes
FROM (SELECT sbf_union_agg(agg, 0.3 ORDER BY p DESC) AS u FROM u4) s;
SELECT md5(sbf_union_agg(agg, 0.3 ORDER BY md5(p::text))::bytea) = :'u4_serial' AS any_order
FROM u4;
SELECT count(*) FILTER (WHERE NOT u @> ('v' || i || ':' || r)) AS missing
FROM (SELECT sbf_union_agg(agg, 0.3) AS u FROM u4) s, generate_series(1, 5000) i,
	 generate_series(0, 2) r;
SELECT md5(sbf_union_agg(grown ORDER BY p)::bytea) AS u4_grown FROM u4 \gset

SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT * FROM pg_temp.parallel_plan('SELECT sbf_union_agg(agg, 0.3) FROM u4');
SELECT md5(sbf_union_agg(agg, 0.3)::bytea) = :'u4_serial' AS parallel_same_bytes,
	   md5(sbf_union_agg(grown)::bytea) = :'u4_grown' AS parallel_same_bytes_grown
FROM u4;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

DROP TABLE pairs, days, small, many, u4;
