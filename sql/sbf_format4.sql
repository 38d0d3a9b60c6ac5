-- sbf_format4: plain format 4 as 1.3 writes it (docs/format4.md, sections
-- 2, 6, 7): the aggregate's one segment (fused or blocked) is the same bytes
-- in any row order and in a serial or a forced parallel plan; no false
-- negatives; measured false-positive rates within the stored bound; adds
-- relabel 1.0-1.2 values to version 4 and keep their answers; old values
-- answer as 1.2 did.

CREATE TABLE f4 (g int, x text);
INSERT INTO f4 SELECT g, 'e' || g || ':' || i
FROM generate_series(1, 4) g, generate_series(1, 30000 * g) i;
ALTER TABLE f4 SET (parallel_workers = 2);
ANALYZE f4;

-- the kind of each group's segment and its rate bound
SELECT g, sbf_info(f)->>'version' AS version,
	   (SELECT string_agg(s->>'kind', ',') FROM jsonb_array_elements(sbf_info(f)->'segments') s) AS kinds,
	   (sbf_info(f)->>'fpr_bound')::float8 <= 0.01 ^ 1.04 AS bound_within_share,
	   # f AS count
FROM (SELECT g, sbf_agg(x) AS f FROM f4 GROUP BY g) s ORDER BY g;

-- the same bytes whatever the row order
SELECT bool_and(a = b) AS order_independent
FROM (SELECT g, md5(sbf_agg(x ORDER BY x)::bytea) AS a, md5(sbf_agg(x ORDER BY x DESC)::bytea) AS b
	  FROM f4 GROUP BY g) s;

-- serial against a forced parallel plan (partial states combined)
SELECT md5(sbf_agg(x)::bytea) AS serial_bytes FROM f4 \gset
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT md5(sbf_agg(x)::bytea) = :'serial_bytes' AS parallel_same_bytes FROM f4;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- no false negatives; measured rate on 200,000 absent elements within the
-- stored bound plus 4 standard deviations
WITH f AS (SELECT sbf_agg(x) AS f FROM f4)
SELECT sbf_matches(f, ARRAY(SELECT x FROM f4)) = (SELECT count(*) FROM f4) AS all_found,
	   sbf_matches(f, ARRAY(SELECT 'absent:' || i FROM generate_series(1, 200000) i))::float8 / 200000
		   <= (sbf_info(f)->>'fpr_bound')::float8
			  + 4 * sqrt((sbf_info(f)->>'fpr_bound')::float8 / 200000) AS fpr_within_bound
FROM f;

-- growth by adds: the conversion's segment bloom while its data fits 4 kB
-- (capacity 1,000), blocked above (5,000), appended ones by the growth rule;
-- every element found; the bound and the measured rate within error_rate
WITH f AS (SELECT c, sbf_add(sbf_empty(c, 0.01, 2, 0.9),
							 ARRAY(SELECT 'a' || i FROM generate_series(1, 60000) i)) AS f
		   FROM (VALUES (1000), (5000)) v(c))
SELECT c AS capacity, sbf_info(f)->>'version' AS version,
	   (SELECT array_agg(s->>'kind' ORDER BY o)
		FROM jsonb_array_elements(sbf_info(f)->'segments') WITH ORDINALITY AS t(s, o)) AS kinds,
	   sbf_matches(f, ARRAY(SELECT 'a' || i FROM generate_series(1, 60000) i)) = 60000 AS all_found,
	   (sbf_info(f)->>'fpr_bound')::float8 <= 0.01 AS bound_ok,
	   sbf_matches(f, ARRAY(SELECT 'b' || i FROM generate_series(1, 100000) i)) < 1000 AS fpr_ok
FROM f ORDER BY c;

-- 1.0's value (sbf_agg of 'o1'..'o20', version 1) answers as in 1.2; an add
-- relabels it to version 4 with OVERLAP, every answer kept; so does a
-- version-2 value (the same bytes with byte 0 = 2)
CREATE TEMP TABLE old AS
SELECT 'sbf1:AQABCQIAAQBQAAAAexSuR+F6hD/NzMzMzMzsP+gDAAAAAAAAFAAAAAAAAAAUAAAAAAAAAMgAAAAAAAAAVjeXb9YIgT8HAAAAAAAAAKVJVQ+txbt9cO7qVCMzeWxBoalMC8sLnoAAAAAAAAAAAQAAAAEgAAADLwAAAWYAAAKVAAABzQAAA88AAAT1AAAFBAEAATABAAI5AQABOwEAAUsBAAOOAQABwAEAAskBAAHKAQADzAEABM8BAAHuAQA='::scalablebloom AS v1;
SELECT sbf_info(v1)->>'version' AS version, # v1 AS count,
	   sbf_matches(v1, ARRAY(SELECT 'o' || i FROM generate_series(1, 20) i)) AS found,
	   sbf_info(v1 || 'new')->>'version' AS after_add,
	   (sbf_info(v1 || 'new')->>'count_source') AS count_source,
	   sbf_matches(v1 || 'new', ARRAY(SELECT 'o' || i FROM generate_series(1, 20) i)) AS found_after,
	   sbf_info(set_byte(v1::bytea, 0, 2)::scalablebloom)->>'version' AS v2,
	   sbf_info(set_byte(v1::bytea, 0, 2)::scalablebloom || 'new')->>'version' AS v2_after_add,
	   (set_byte(v1::bytea, 0, 2)::scalablebloom || 'new') @> 'o7' AS v2_found_after
FROM old;

-- sbf_delta: an empty exact form (version 2) with CHAIN; its conversion's
-- first segment (the chain's next: 8,000 elements, past 4 kB of bloom data) is
-- blocked
WITH d AS (SELECT sbf_add(sbf_delta(sbf_add(sbf_empty(), ARRAY(SELECT 'k' || i FROM generate_series(1, 5000) i))),
						  ARRAY(SELECT 'd' || i FROM generate_series(1, 3000) i)) AS d)
SELECT sbf_info(d)->>'version' AS version, sbf_info(d)->'continues_chain' AS chain,
	   sbf_info(d)->'segments'->0->>'kind' AS first_kind,
	   sbf_matches(d, ARRAY(SELECT 'd' || i FROM generate_series(1, 3000) i)) AS found
FROM d;

DROP TABLE f4;
