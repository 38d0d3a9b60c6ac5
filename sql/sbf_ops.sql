-- sbf_ops: creating, adding, membership, hit counts, cardinality, union, info

-- sbf_empty() with its defaults
SELECT sbf_info(sbf_empty()) - 'segments' AS info;

-- the defaults are the documented ones
SELECT sbf_empty()::bytea = sbf_empty(1000, 0.01, 2, 0.9)::bytea AS defaults_ok;

-- named arguments
SELECT sbf_info(sbf_empty(error_rate => 0.001, growth => 4)) - 'segments' AS info;

-- sbf_info: top-level keys
SELECT jsonb_object_keys(sbf_info(sbf_empty())) AS key ORDER BY 1;

-- sbf_info: HyperLogLog keys and segment keys
SELECT jsonb_object_keys(sbf_info(sbf_empty())->'hll') AS key ORDER BY 1;
SELECT jsonb_object_keys(sbf_info(sbf_add(sbf_empty(),
	ARRAY(SELECT 'k' || i FROM generate_series(1, 1000) i)))->'segments'->0) AS key ORDER BY 1;
-- a first segment whose bloom data would pass 4 kB (here 3,000 at 0.1%) is
-- blocked, and has one more key, its lines
WITH f AS (SELECT sbf_add(sbf_empty(3000), ARRAY(SELECT 'k' || i FROM generate_series(1, 3001) i)) AS f)
SELECT sbf_info(f)->'segments'->0->>'kind' AS first_kind,
	   (SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys(sbf_info(f)->'segments'->0) k) AS keys
FROM f;

-- sbf_info: an empty filter is in the exact form, with no segments yet; its
-- first segment will have error e(1-r)
SELECT sbf_info(sbf_empty(100))->'segments' AS segments,
	   sbf_info(sbf_empty(100))->'first_segment' AS first_segment;

-- growth: capacity 10, growth 2, 100 elements -> segments of 10, 20, 40, 80,
-- each taking (1 - r) of the error budget still left: e(1-r)r^i
SELECT s->'capacity' AS capacity, s->'count' AS count,
	   s->'error_rate' AS error_rate
FROM jsonb_array_elements(sbf_info(sbf_add(sbf_empty(10),
	ARRAY(SELECT 'x' || i FROM generate_series(1, 100) i)))->'segments') s;

-- sbf_info: "version" is the value's format byte; every segment of formats
-- 1-2 is of kind "bloom" (1.0's sbf_agg of 'o1'..'o20', and the same bytes
-- as version 2); a filter grown by adds is version 4, its first segment bloom
-- while its data fits 4 kB (1.3 wrote it blocked) and segments at shares
-- below 1e-3 bloom; the aggregate's is fused
WITH f AS (SELECT sbf_add(sbf_empty(10), ARRAY(SELECT 'x' || i FROM generate_series(1, 100) i)) AS v4,
				  'sbf1:AQABCQIAAQBQAAAAexSuR+F6hD/NzMzMzMzsP+gDAAAAAAAAFAAAAAAAAAAUAAAAAAAAAMgAAAAAAAAAVjeXb9YIgT8HAAAAAAAAAKVJVQ+txbt9cO7qVCMzeWxBoalMC8sLnoAAAAAAAAAAAQAAAAEgAAADLwAAAWYAAAKVAAABzQAAA88AAAT1AAAFBAEAATABAAI5AQABOwEAAUsBAAOOAQABwAEAAskBAAHKAQADzAEABM8BAAHuAQA='::scalablebloom AS v1,
				  (SELECT sbf_agg('a' || i) FROM generate_series(1, 5000) i) AS agg)
SELECT sbf_info(v4)->'version' AS v4_version,
	   (SELECT array_agg(s->>'kind' ORDER BY ord) FROM jsonb_array_elements(sbf_info(v4)->'segments') WITH ORDINALITY AS x(s, ord)) AS v4_kinds,
	   sbf_info(agg)->'version' AS agg_version,
	   (SELECT array_agg(s->>'kind') FROM jsonb_array_elements(sbf_info(agg)->'segments') s) AS agg_kinds,
	   sbf_info(set_byte(v1::bytea, 0, 2)::scalablebloom)->'version' AS v2_version,
	   (SELECT array_agg(DISTINCT s->>'kind')
		FROM jsonb_array_elements(sbf_info(set_byte(v1::bytea, 0, 2)::scalablebloom)->'segments') s) AS v2_kinds,
	   sbf_info(v1)->'version' AS v1_version,
	   (SELECT array_agg(DISTINCT s->>'kind')
		FROM jsonb_array_elements(sbf_info(v1)->'segments') s) AS v1_kinds,
	   sbf_info(sbf_add(sbf_window_empty(), ARRAY['a'], timestamptz '2026-01-01'))->'version' AS v3_version,
	   sbf_info(sbf_add(sbf_window_empty(), ARRAY['a'], timestamptz '2026-01-01'))::text LIKE '%"kind"%' AS v3_has_kind
FROM f;

-- growth 1, tightening 1: equal segments at the requested error (the seed's design)
SELECT s->'capacity' AS capacity, s->'count' AS count, s->'bits' AS bits,
	   s->'hashes' AS hashes, s->'error_rate' AS error_rate
FROM jsonb_array_elements(sbf_info(sbf_add(sbf_empty(10, 0.01, 1, 1),
	ARRAY(SELECT 'x' || i FROM generate_series(1, 250) i)))->'segments') s;

-- the fpr bound never exceeds error_rate when tightening < 1; the estimate
-- from the fill is near it (a full segment's fill^k scatters around its p:
-- the small first segments of sbf_empty(10) scatter most)
SELECT (sbf_info(f)->>'fpr_bound')::float8 <= 0.01 AS bound_ok,
	   (sbf_info(f)->>'fpr_estimate')::float8 <= 2 * (sbf_info(f)->>'fpr_bound')::float8 AS estimate_ok
FROM (SELECT sbf_add(sbf_empty(10),
		ARRAY(SELECT 'x' || i FROM generate_series(1, 1000) i)) f) s;

-- the HyperLogLog turns dense after enough distinct elements
SELECT n, sbf_info(sbf_add(sbf_empty(),
		ARRAY(SELECT 'h' || i FROM generate_series(1, n) i)))->'hll' AS hll
FROM (VALUES (0), (1), (50), (1000)) v(n);

-- the operator forms: an unknown literal is text, 42 is an integer
CREATE TEMP TABLE f (seen scalablebloom);
INSERT INTO f VALUES (sbf_empty());
SELECT (seen || 'sku:42') @> 'sku:42' AS text_literal,
	   (seen || 42) @> 42 AS int_literal,
	   (seen || 42::bigint) @> 42::bigint AS bigint,
	   (seen || 42::smallint) @> 42 AS smallint,
	   (seen || '\x2a'::bytea) @> '\x2a'::bytea AS bytea,
	   (seen || ARRAY['a', 'b']) @> 'b' AS text_array,
	   (seen || 'v'::varchar) @> 'v' AS varchar,
	   (seen || ARRAY[5, 6]) @> 6 AS int_array,
	   (seen || ARRAY[5, 6]::bigint[]) @> 6 AS bigint_array,
	   (seen || ARRAY[5, 6]::smallint[]) @> 6 AS smallint_array,
	   (seen || ARRAY['w']::varchar[]) @> 'w' AS varchar_array
FROM f;

-- arrays of integers add like their elements one by one
SELECT sbf_add(sbf_empty(), ARRAY[1, NULL, 2]::bigint[])::bytea
		   = (sbf_empty() || 1 || 2)::bytea AS bigint_array,
	   sbf_add(sbf_empty(), ARRAY[1, 2])::bytea
		   = (sbf_empty() || 1 || 2)::bytea AS int_array_via_bigint,
	   (sbf_empty() || ARRAY[[1, 2], [3, NULL]]::smallint[])::bytea
		   = (sbf_empty() || 1 || 2 || 3)::bytea AS smallint_2d,
	   (sbf_empty() || 'x' || NULL::int[])::bytea = (sbf_empty() || 'x')::bytea AS null_int_array;

-- the extension changes no expression without a scalablebloom in it
SELECT 'sku:' || 42 AS int, 'sku:' || 42::bigint AS bigint,
	   'sku:' || 42::smallint AS smallint, 'sku:' || 1.5 AS numeric,
	   (NULL || 42) IS NULL AS null_int, '{a}' || ARRAY['b'] AS array,
	   'k' || '\x00'::bytea AS bytea, 'k' || 'x' AS text;

-- f || g is the union
SELECT (a || b) @> 'in a' AND (a || b) @> 'in b' AS union_op,
	   (a || b)::bytea = sbf_union(a, b)::bytea AS same_as_sbf_union
FROM (SELECT sbf_empty() || 'in a' AS a, sbf_empty() || 'in b' AS b) s;

-- UPDATE ... SET seen = seen || 'sku:42' (the product's example)
UPDATE f SET seen = seen || 'sku:42';
UPDATE f SET seen = seen || 7;
SELECT # seen AS distinct_objects, seen @> 'sku:42' AS has_sku, seen @> 7 AS has_7,
	   seen @> 'sku:43' AS has_other
FROM f;

-- integer, smallint and bigint elements hash alike (8 bytes little-endian)
SELECT (sbf_empty() || 5)::bytea = (sbf_empty() || 5::bigint)::bytea AS int4_as_int8,
	   (sbf_empty() || 5::smallint)::bytea = (sbf_empty() || 5::bigint)::bytea AS int2_as_int8,
	   sbf_add(sbf_empty(), 5)::bytea = (sbf_empty() || 5::bigint)::bytea AS sbf_add_int;

-- text '42' and bigint 42 are different elements
SELECT (sbf_empty() || '42') @> 42 AS text_vs_bigint,
	   (sbf_empty() || 42) @> '42' AS bigint_vs_text;

-- a text element and the bytea of its bytes are the same element
SELECT (sbf_empty() || 'abc') @> 'abc'::bytea AS text_as_bytea;

-- chained adds
SELECT sbf_matches(sbf_empty() || 'a' || 'b' || 'c', ARRAY['a', 'b', 'c', 'd']) AS hits;

-- sbf_contains and both operator directions
SELECT sbf_contains(f, 'a') AS c_text, sbf_contains(f, 1::bigint) AS c_int8,
	   sbf_contains(f, '\x01'::bytea) AS c_bytea,
	   f @> 'a' AS op_text, f @> 1 AS op_int, f @> '\x01'::bytea AS op_bytea,
	   'a' <@ f AS rop_text, 1 <@ f AS rop_int, '\x01'::bytea <@ f AS rop_bytea,
	   f @> 'z' AS absent_text, f @> 2 AS absent_int, f @> '\x02'::bytea AS absent_bytea
FROM (SELECT sbf_empty() || 'a' || 1 || '\x01'::bytea AS f) s;

-- the operators: <@ is the commutator of @>; = and <> (1.3) compare bytes
SELECT o.oprname, o.oprleft::regtype, o.oprright::regtype, o.oprcode,
	   c.oprname AS commutator, o.oprrest, o.oprjoin
FROM pg_operator o LEFT JOIN pg_operator c ON c.oid = o.oprcom
WHERE o.oprleft = 'scalablebloom'::regtype OR o.oprright = 'scalablebloom'::regtype
ORDER BY 1, o.oprleft::regtype::text, o.oprright::regtype::text;

-- sbf_matches: NULL elements are skipped, duplicates count each time
SELECT sbf_matches(f, ARRAY['a', 'b', NULL, 'a', 'zz']) AS text_hits,
	   sbf_matches(f, ARRAY[1, 2, NULL, 1]::bigint[]) AS bigint_hits,
	   sbf_matches(f, ARRAY[]::text[]) AS empty_text,
	   sbf_matches(f, ARRAY[]::bigint[]) AS empty_bigint,
	   sbf_matches(f, ARRAY[NULL]::text[]) AS only_null,
	   sbf_matches(f, ARRAY[['a', 'b'], ['zz', 'a']]) AS two_dims,
	   sbf_matches(f, ARRAY[1, 3]) AS int_array
FROM (SELECT sbf_empty() || 'a' || 'b' || 1::bigint AS f) s;

-- sbf_matches on an array slice with a lower bound other than 1
SELECT sbf_matches(sbf_empty() || 'b', ('[5:7]={a,b,c}'::text[])[6:7]) AS slice_hits;

-- NULL rules: a NULL filter starts a default one
SELECT (NULL::scalablebloom || 'x')::bytea = (sbf_empty() || 'x')::bytea AS null_filter_text,
	   (NULL::scalablebloom || 7)::bytea = (sbf_empty() || 7)::bytea AS null_filter_int,
	   sbf_add(NULL, 'x'::text)::bytea = (sbf_empty() || 'x')::bytea AS sbf_add_null_filter,
	   (NULL::scalablebloom || ARRAY['x'])::bytea = (sbf_empty() || 'x')::bytea AS null_filter_array;

-- NULL rules: a NULL element leaves the filter unchanged, byte for byte
SELECT (f || NULL::text)::bytea = f::bytea AS null_text,
	   (f || NULL::bigint)::bytea = f::bytea AS null_bigint,
	   (f || NULL::integer)::bytea = f::bytea AS null_integer,
	   (f || NULL::bytea)::bytea = f::bytea AS null_bytea,
	   (f || NULL::text[])::bytea = f::bytea AS null_array,
	   (f || NULL)::bytea = f::bytea AS null_literal
FROM (SELECT sbf_empty() || 'kept' AS f) s;

-- NULL rules: NULL filter and NULL element give an empty default filter
SELECT sbf_add(NULL, NULL::text)::bytea = sbf_empty()::bytea AS add_null_null,
	   (NULL::scalablebloom || NULL::bigint)::bytea = sbf_empty()::bytea AS op_null_null,
	   sbf_add(NULL, NULL::text[])::bytea = sbf_empty()::bytea AS array_null_null,
	   sbf_add(NULL, NULL::bigint[])::bytea = sbf_empty()::bytea AS bigint_array_null_null;

-- NULL rules: NULL array elements are skipped
SELECT (sbf_empty() || ARRAY['a', NULL, 'b'])::bytea = (sbf_empty() || 'a' || 'b')::bytea AS nulls_skipped,
	   (sbf_empty() || ARRAY[NULL, NULL]::text[])::bytea = sbf_empty()::bytea AS all_null,
	   (sbf_empty() || ARRAY[]::text[])::bytea = sbf_empty()::bytea AS empty_array;

-- NULL rules: lookups are strict
SELECT sbf_contains(NULL, 'x'::text) IS NULL AS contains_null_filter,
	   (sbf_empty() @> NULL::text) IS NULL AS contains_null_element,
	   sbf_matches(NULL, ARRAY['x']) IS NULL AS matches_null,
	   sbf_cardinality(NULL) IS NULL AS cardinality_null,
	   sbf_info(NULL) IS NULL AS info_null,
	   sbf_empty(NULL) IS NULL AS empty_null;

-- NULL rules: the union with NULL is the other filter, two NULLs are NULL
SELECT sbf_union(NULL, f)::bytea = f::bytea AS null_left,
	   sbf_union(f, NULL)::bytea = f::bytea AS null_right,
	   sbf_union(NULL, NULL) IS NULL AS both_null,
	   (f || NULL::scalablebloom)::bytea = f::bytea AS op_null_right,
	   (NULL::scalablebloom || f)::bytea = f::bytea AS op_null_left,
	   (NULL::scalablebloom || NULL::scalablebloom) IS NULL AS op_both_null
FROM (SELECT sbf_empty() || 'u' AS f) s;

-- the input datum is never modified: f before, f || 'x', f after
WITH t AS MATERIALIZED (SELECT sbf_add(sbf_empty(), ARRAY['a', 'b', 'c']) AS f)
SELECT # f AS before, # (f || 'x') AS added, # f AS after,
	   f @> 'x' AS f_has_x
FROM t;

-- the input datum is never modified: full info and bytes compared in one query.
-- Each LATERAL step depends on the one before (its WHERE) and OFFSET 0 keeps
-- it a step of its own, so the readings run first, then the writers, then the
-- readings again; md5 keeps the bytes read before, not a pointer to them.
-- The filters are over 126 bytes: a 4-byte header, so writers get a pointer
-- to the stored datum itself, not a copy made to widen a short header.
WITH t AS MATERIALIZED (SELECT sbf_add(sbf_empty(100), ARRAY(SELECT 'a' || i FROM generate_series(1, 20) i)) AS f)
SELECT r1.info = r3.info AS info_unchanged, w.info <> r1.info AS info_changed_in_result,
	   r1.bytes = r3.bytes AS bytes_unchanged, octet_length(r1.f::bytea) > 126 AS long_header
FROM t,
	LATERAL (SELECT t.f, sbf_info(t.f) AS info, md5(t.f::bytea) AS bytes OFFSET 0) r1,
	LATERAL (SELECT sbf_info(sbf_union(t.f, t.f || 'y') || 'x' || ARRAY['z']) AS info
			 WHERE r1.bytes IS NOT NULL OFFSET 0) w,
	LATERAL (SELECT sbf_info(t.f) AS info, md5(t.f::bytea) AS bytes
			 WHERE w.info IS NOT NULL OFFSET 0) r3;

-- the input datum is never modified: a stored value after reading it through
-- every writer; each writer's result is used, so none is planned away
CREATE TEMP TABLE keep (f scalablebloom);
INSERT INTO keep VALUES (sbf_add(sbf_empty(100), ARRAY(SELECT 'k' || i FROM generate_series(1, 20) i)));
CREATE TEMP TABLE before AS SELECT f::bytea AS b FROM keep;
SELECT s.a @> 'x' AND s.a @> 'k1' AS add_text, s.b @> 1 AS add_int8,
	   s.c @> '\x01'::bytea AS add_bytea, s.d @> 'y' AS add_array,
	   s.e @> 'k1' AS union_self, s.g @> 'k1' AS concat_self, s.h @> 'z' AS sbf_add
FROM keep,
	LATERAL (SELECT f || 'x' AS a, f || 1 AS b, f || '\x01'::bytea AS c, f || ARRAY['y'] AS d,
					sbf_union(f, f) AS e, f || f AS g, sbf_add(f, 'z'::text) AS h) s;
SELECT keep.f::bytea = before.b AS stored_unchanged, keep.f @> 'x' AS stored_has_x
FROM keep, before;

-- cardinality: small sets are counted exactly (sparse HyperLogLog)
SELECT # sbf_empty() AS zero,
	   # (sbf_empty() || 'a') AS one,
	   # (sbf_empty() || 'a' || 'a' || 'a') AS still_one,
	   sbf_cardinality(sbf_add(sbf_empty(),
		   ARRAY(SELECT 'c' || i FROM generate_series(1, 100) i))) AS hundred;

-- cardinality keeps counting past the first segment and through duplicates
SELECT abs((# f) - 5000) < 5000 * 0.1 AS within_10_percent
FROM (SELECT sbf_add(sbf_empty(100),
		ARRAY(SELECT 'c' || (i % 5000) FROM generate_series(1, 20000) i)) f) s;

-- union: contains every element of both, counts the union
SELECT sbf_matches(u, ARRAY(SELECT 'a' || i FROM generate_series(1, 500) i)) AS from_a,
	   sbf_matches(u, ARRAY(SELECT 'b' || i FROM generate_series(1, 2000) i)) AS from_b,
	   abs((# u) - 2500) < 250 AS count_ok
FROM (SELECT sbf_union(
		sbf_add(sbf_empty(100), ARRAY(SELECT 'a' || i FROM generate_series(1, 500) i)),
		sbf_add(sbf_empty(100), ARRAY(SELECT 'b' || i FROM generate_series(1, 2000) i))) u) s;

-- union: filters of different capacity (same error_rate, growth, tightening)
-- unite; exact operands give an exact union, segmented ones keep both segments
SELECT u @> 'small' AND u @> 'large' AS both_present,
	   sbf_info(u)->>'form' AS form,
	   jsonb_array_length(sbf_info(u)->'segments') AS segments
FROM (SELECT sbf_union(sbf_empty(10) || 'small', sbf_empty(100000) || 'large') u) s;
SELECT u @> 'small:1' AND u @> 'large:1' AS both_present,
	   sbf_info(u)->>'form' AS form,
	   jsonb_array_length(sbf_info(u)->'segments') AS segments
FROM (SELECT sbf_union(
		sbf_empty(10) || ARRAY(SELECT 'small:' || i FROM generate_series(1, 100) i),
		sbf_empty(100000) || ARRAY(SELECT 'large:' || i FROM generate_series(1, 20000) i)) u) s;

-- union: with itself keeps every element and the count
SELECT sbf_matches(sbf_union(f, f), ARRAY(SELECT 'x' || i FROM generate_series(1, 300) i)) AS hits,
	   # sbf_union(f, f) = # f AS same_count
FROM (SELECT sbf_add(sbf_empty(50), ARRAY(SELECT 'x' || i FROM generate_series(1, 300) i)) f) s;

-- union: an empty filter is the identity for membership
SELECT sbf_matches(sbf_union(sbf_empty(), f), ARRAY['p', 'q', 'r']) AS hits
FROM (SELECT sbf_empty() || 'p' || 'q' || 'r' AS f) s;

-- the functions are immutable, parallel safe; only adds and union take NULLs
SELECT p.oid::regprocedure AS function, p.provolatile, p.proparallel, p.proisstrict
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'sbf'
WHERE p.prokind = 'f'
  AND p.proname IN ('scalablebloom_in', 'scalablebloom_out', 'scalablebloom_recv',
					'scalablebloom_send', 'scalablebloom', 'bytea', 'sbf_empty',
					'sbf_add', 'sbf_union', 'sbf_concat', 'sbf_contains',
					'sbf_contained', 'sbf_matches', 'sbf_cardinality', 'sbf_info')
ORDER BY p.oid::regprocedure::text COLLATE "C";

-- every object of the extension has a comment (but the array types that
-- PostgreSQL 17 and later record as members too: they follow their element
-- type and take no comment of their own)
SELECT pg_describe_object(d.classid, d.objid, 0) AS object
FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'sbf'
WHERE d.deptype = 'e'
  AND obj_description(d.objid, (SELECT relname FROM pg_class WHERE oid = d.classid)) IS NULL
  AND NOT (d.classid = 'pg_type'::regclass
		   AND EXISTS (SELECT 1 FROM pg_type t WHERE t.typarray = d.objid))
ORDER BY 1;
