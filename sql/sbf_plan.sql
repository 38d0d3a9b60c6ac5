-- sbf_plan: a stored value's header and directory are decoded into a lookup
-- plan once per value per query (src/core/plan/sbf_plan.c), not once per call:
-- every lookup entry point reads its plan from the call site's memo or the
-- session cache.  sbf_debug_plan_builds() counts the plans this backend has
-- built; each query below says how many it built, and that its answers agree
-- with the other entry points and forms.

-- the plans one query builds (every column of every row is read)
CREATE FUNCTION pg_temp.builds(q text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	b0 bigint := sbf_debug_plan_builds();
	n bigint;
BEGIN
	EXECUTE 'SELECT count(*) FROM (' || q || ') s WHERE length(s::text) > 0' INTO n;
	RETURN sbf_debug_plan_builds() - b0;
END $$;

-- 120 candidate objects, a user whose filters hold the even ones; plain and
-- windowed (30 buckets of a day), in line and out of line
CREATE TABLE plan_c AS
SELECT i AS id, 'o' || i AS obj, i::bigint AS num, ('o' || i)::bytea AS raw,
	   ARRAY['o' || i, 'o' || (i + 1000)] AS objs, ARRAY[i::bigint, i + 1000] AS nums
FROM generate_series(1, 120) i;
CREATE TABLE plan_u (id int PRIMARY KEY, plain scalablebloom, w scalablebloom,
					 nums scalablebloom, big scalablebloom, bigw scalablebloom);
ALTER TABLE plan_u ALTER big SET STORAGE external, ALTER bigw SET STORAGE external;
INSERT INTO plan_u
SELECT 1,
	   (SELECT sbf_agg('o' || i) FROM generate_series(2, 120, 2) i),
	   (SELECT sbf_window_agg('o' || i, timestamptz '2026-03-01' + (i % 30) * interval '1 day')
		FROM generate_series(2, 120, 2) i),
	   (SELECT sbf_agg(i::bigint) FROM generate_series(2, 120, 2) i),
	   (SELECT sbf_agg(x) FROM (SELECT 'o' || i FROM generate_series(2, 120, 2) i
								UNION ALL SELECT 'x' || i FROM generate_series(1, 20000) i) v(x)),
	   (SELECT sbf_window_agg(x, timestamptz '2026-03-01' + (i % 30) * interval '1 day')
		FROM generate_series(1, 20000) i,
			 LATERAL (VALUES (CASE WHEN i <= 120 AND i % 2 = 0 THEN 'o' || i ELSE 'x' || i END)) v(x));
SELECT pg_column_size(plain) < 2000 AS plain_in_line, pg_column_size(w) < 2000 AS w_in_line,
	   sbf_info(plain)->>'form' AS plain_form, sbf_info(w)->>'version' AS w_version,
	   octet_length(big::bytea) > 10000 AS big_out_of_line,
	   octet_length(bigw::bytea) > 10000 AS bigw_out_of_line,
	   (SELECT string_agg(DISTINCT k->>'kind', ',') FROM jsonb_array_elements(sbf_info(big)->'segments') k) AS big_kinds
FROM plan_u;

-- Once per value per query, at every entry point: 120 calls, one plan.
SET sbf.cache_size = 0;
SELECT
  pg_temp.builds('SELECT u.plain @> c.obj FROM plan_u u, plan_c c') AS contains_text,
  pg_temp.builds('SELECT c.obj <@ u.plain FROM plan_u u, plan_c c') AS contained_text,
  pg_temp.builds('SELECT sbf_contains(u.nums, c.num) FROM plan_u u, plan_c c') AS contains_int8,
  pg_temp.builds('SELECT u.plain @> c.raw FROM plan_u u, plan_c c') AS contains_bytea,
  pg_temp.builds('SELECT sbf_matches(u.plain, c.objs) FROM plan_u u, plan_c c') AS matches_text,
  pg_temp.builds('SELECT sbf_matches(u.nums, c.nums) FROM plan_u u, plan_c c') AS matches_int8,
  pg_temp.builds('SELECT u.plain @> ANY (c.objs) FROM plan_u u, plan_c c') AS any_text;
SELECT
  pg_temp.builds('SELECT u.w @> c.obj FROM plan_u u, plan_c c') AS w_contains,
  pg_temp.builds($$SELECT sbf_contains(u.w, c.obj, timestamptz '2026-03-20') FROM plan_u u, plan_c c$$) AS w_since,
  pg_temp.builds('SELECT sbf_matches(u.w, c.objs) FROM plan_u u, plan_c c') AS w_matches,
  pg_temp.builds($$SELECT sbf_matches(u.w, c.objs, timestamptz '2026-03-20') FROM plan_u u, plan_c c$$) AS w_matches_since,
  pg_temp.builds('SELECT u.big @> c.obj FROM plan_u u, plan_c c') AS toasted,
  pg_temp.builds('SELECT u.bigw @> c.obj FROM plan_u u, plan_c c') AS toasted_w;
-- one plan per call site: two lookups on one value in one query are two
SELECT pg_temp.builds('SELECT u.plain @> c.obj, sbf_matches(u.plain, c.objs) FROM plan_u u, plan_c c') AS two_sites;

-- The session cache keeps a value's plan with its copy: the value was read
-- once above, so the first query keeps it for the session (one plan) and the
-- next ones plan nothing.
SET sbf.cache_size = '64MB';
SELECT pg_temp.builds('SELECT u.big @> c.obj FROM plan_u u, plan_c c') AS first,
	   pg_temp.builds('SELECT u.big @> c.obj FROM plan_u u, plan_c c') AS second,
	   pg_temp.builds('SELECT u.big @> c.obj FROM plan_u u, plan_c c') AS third;
RESET sbf.cache_size;

-- Answers: no false negatives, and every entry point and form agrees with
-- the others (the same filter in line, out of line, as text round trip).
SELECT count(*) FILTER (WHERE c.id % 2 = 0 AND NOT u.plain @> c.obj) AS missed_plain,
	   count(*) FILTER (WHERE c.id % 2 = 0 AND NOT u.w @> c.obj) AS missed_w,
	   count(*) FILTER (WHERE c.id % 2 = 0 AND NOT u.big @> c.obj) AS missed_big,
	   count(*) FILTER (WHERE c.id % 2 = 0 AND NOT u.bigw @> c.obj) AS missed_bigw,
	   count(*) FILTER (WHERE c.id % 2 = 0 AND NOT sbf_contains(u.nums, c.num)) AS missed_int8,
	   count(*) FILTER (WHERE (u.plain @> c.obj) IS DISTINCT FROM (c.obj <@ u.plain)
						OR (u.plain @> c.obj) IS DISTINCT FROM (u.plain @> c.raw)
						OR (u.plain @> c.obj) IS DISTINCT FROM (u.plain::text::scalablebloom @> c.obj)
						OR sbf_matches(u.plain, c.objs) IS DISTINCT FROM
						   ((u.plain @> c.objs[1])::int + (u.plain @> c.objs[2])::int)
						OR (u.plain @> ANY (c.objs)) IS DISTINCT FROM (sbf_matches(u.plain, c.objs) > 0)
						OR sbf_matches(u.w, c.objs) IS DISTINCT FROM
						   ((u.w @> c.objs[1])::int + (u.w @> c.objs[2])::int)
						OR sbf_matches(u.w, c.objs, '-infinity') IS DISTINCT FROM sbf_matches(u.w, c.objs)
						OR (u.bigw @> c.obj) IS DISTINCT FROM (u.bigw::bytea::scalablebloom @> c.obj)
						OR sbf_matches(u.nums, c.nums) IS DISTINCT FROM
						   ((u.nums @> c.nums[1])::int + (u.nums @> c.nums[2])::int)) AS disagree
FROM plan_u u, plan_c c;

-- since: an element added on day d is found since any time up to day d's
-- end and, if it is in no later bucket, never after (pairs and segments)
SELECT count(*) FILTER (WHERE NOT sbf_contains(u.w, c.obj, timestamptz '2026-03-01' + (c.id % 30) * interval '1 day')) AS missed_w,
	   count(*) FILTER (WHERE NOT sbf_contains(u.bigw, c.obj, timestamptz '2026-03-01' + (c.id % 30) * interval '1 day')) AS missed_bigw,
	   count(*) FILTER (WHERE sbf_contains(u.w, c.obj, timestamptz '2026-03-01' + (c.id % 30 + 1) * interval '1 day')) AS w_later
FROM plan_u u, plan_c c WHERE c.id % 2 = 0;

-- A plan depends on a value's length and header and directory bytes only:
-- 50 users' exact filters of 10 elements each have the same header, so one
-- plan serves them all, and each row still answers from its own hashes (the
-- exact form has no false positives).
CREATE TABLE plan_many AS
SELECT g AS uid, sbf_add(sbf_empty(1000, 0.01, 2, 0.9),
						 ARRAY(SELECT 'u' || g || ':' || i FROM generate_series(1, 10) i)) AS f
FROM generate_series(1, 50) g;
SELECT count(DISTINCT sbf_info(f)->>'form') AS forms, count(DISTINCT octet_length(f::bytea)) AS lengths
FROM plan_many;
SELECT pg_temp.builds($$SELECT m.f @> ('u' || o.uid || ':' || i) FROM plan_many m, plan_many o, generate_series(1, 10) i$$) AS builds;
SELECT count(*) FILTER (WHERE m.uid = o.uid) AS own, count(*) FILTER (WHERE m.uid <> o.uid) AS others
FROM plan_many m, plan_many o, generate_series(1, 10) i
WHERE m.f @> ('u' || o.uid || ':' || i);

DROP TABLE plan_c, plan_u, plan_many;
