-- sbf_window: windowed filters ("seen in the last 30 days"), case by case:
-- no false negatives on every path, the error bound for any since, forgetting,
-- sizes, order-free aggregation, unions, NULL rules and errors.

SET TimeZone = 'UTC';

-- the workload: 3 bursty users over 45 days ending 2026-02-14.  Most days
-- 0-50 interactions, gaps of weeks, some days thousands; items repeat.
CREATE TEMP TABLE rows AS
SELECT u AS uid, d AS day, 'sku:' || ((u * 7919 + d * 104729 + i * 31) % 60000) AS item,
	   timestamptz '2026-01-01' + d * interval '1 day' + (i % 86400) * interval '1 second' AS at
FROM generate_series(1, 3) u, generate_series(0, 44) d,
	 LATERAL generate_series(1, CASE
		WHEN u = 1 AND d IN (20, 38) THEN 3000          -- heavy days
		WHEN u = 2 AND d BETWEEN 10 AND 30 THEN 0       -- a three-week gap
		WHEN u = 3 AND d = 44 THEN 1500
		ELSE (u * 13 + d * 7) % 51 END) i;
SELECT uid, count(*) AS rows, count(DISTINCT item) AS items FROM rows GROUP BY uid ORDER BY uid;

-- the filter of each user by live adds, one add per row in time order
CREATE TEMP TABLE live (uid int PRIMARY KEY, f scalablebloom);
DO $$
DECLARE r record;
BEGIN
	FOR r IN SELECT uid, item, at FROM rows ORDER BY at, item LOOP
		INSERT INTO live VALUES (r.uid, sbf_add(sbf_window_empty(), r.item, r.at))
		ON CONFLICT (uid) DO UPDATE SET f = sbf_add(live.f, r.item, r.at);
	END LOOP;
END $$;

-- the same from the aggregate
CREATE TEMP TABLE agg AS
SELECT uid, sbf_window_agg(item, at) AS f FROM rows GROUP BY uid;

-- 1. no false negatives: every (item, day) of the last 30 days is found with
--    @>, with since at the start of its day, and with since inside its day
SELECT 'live' AS path, count(*) AS checked,
	   count(*) FILTER (WHERE NOT l.f @> r.item) AS missed_all,
	   count(*) FILTER (WHERE NOT sbf_contains(l.f, r.item, timestamptz '2026-01-01' + r.day * interval '1 day')) AS missed_since_start,
	   count(*) FILTER (WHERE NOT sbf_contains(l.f, r.item, r.at)) AS missed_since_at
FROM rows r JOIN live l USING (uid) WHERE r.day >= 15
UNION ALL
SELECT 'aggregate', count(*),
	   count(*) FILTER (WHERE NOT a.f @> r.item),
	   count(*) FILTER (WHERE NOT sbf_contains(a.f, r.item, timestamptz '2026-01-01' + r.day * interval '1 day')),
	   count(*) FILTER (WHERE NOT sbf_contains(a.f, r.item, r.at))
FROM rows r JOIN agg a USING (uid) WHERE r.day >= 15;

-- sbf_matches counts alike: every item of a user's last 30 days, in one array
SELECT uid, sbf_matches(l.f, items) = cardinality(items) AS live_all,
	   sbf_matches(a.f, items, timestamptz '2026-01-16') = cardinality(items) AS agg_since
FROM (SELECT uid, array_agg(DISTINCT item) AS items FROM rows WHERE day >= 15 GROUP BY uid) r
	 JOIN live l USING (uid) JOIN agg a USING (uid) ORDER BY uid;

-- 2. the error bound for windows of 1, 7 and 30 buckets: probes never added,
--    and items whose last add is older than the window
CREATE TEMP TABLE probes AS SELECT 'never:' || g AS item FROM generate_series(1, 20000) g;
SELECT w.days, p.path,
	   avg(sbf_contains(p.f, pr.item, timestamptz '2026-02-14' - (w.days - 1) * interval '1 day')::int) <= 0.01 AS never_added_within_bound
FROM (VALUES (1), (7), (30)) w(days),
	 (SELECT 'live' AS path, f FROM live WHERE uid = 1 UNION ALL SELECT 'aggregate', f FROM agg WHERE uid = 1) p,
	 probes pr
GROUP BY w.days, p.path ORDER BY w.days, p.path;

-- items last added before the window answer like items never added
WITH old AS (
	SELECT uid, item FROM rows GROUP BY uid, item HAVING max(day) < 14
)
SELECT count(*) > 100 AS enough,
	   avg((l.f @> o.item)::int) <= 0.01 AS live_old_within_bound,
	   avg((a.f @> o.item)::int) <= 0.01 AS agg_old_within_bound
FROM old o JOIN live l USING (uid) JOIN agg a USING (uid);

-- since later than the newest bucket: nothing counts
SELECT bool_or(sbf_contains(f, item, timestamptz '2026-02-15')) AS found_after_newest
FROM rows JOIN live USING (uid) WHERE day = 44;

-- 3. forgetting: 31 days after the last add a window is empty and small
SELECT uid, # f AS before,
	   (SELECT count(DISTINCT item) FROM rows r WHERE r.uid = live.uid AND r.day >= 15) AS exact_before,
	   # sbf_expire(f, timestamptz '2026-03-17') AS after,
	   pg_column_size(sbf_expire(f, timestamptz '2026-03-17')) AS bytes_after,
	   pg_column_size(sbf_expire(f, timestamptz '2026-02-20')) < pg_column_size(f) AS expire_frees
FROM live ORDER BY uid;

-- # counts each element once, in its newest bucket: 1,000 elements on day 1,
-- compacted (by sbf_expire, or by an add on day 2), then the same 1,000
-- again on day 3, are 1,000 (not 2,000)
CREATE TEMP TABLE twice AS
SELECT f1, sbf_add(sbf_expire(f1, timestamptz '2026-01-02'), items, timestamptz '2026-01-03') AS by_expire,
	   sbf_add(sbf_add(f1, 'other', timestamptz '2026-01-02'), items, timestamptz '2026-01-03') AS by_add,
	   sbf_add(sbf_window_empty(), items, timestamptz '2026-01-03') AS day3_only
FROM (SELECT items, sbf_add(sbf_window_empty(), items, timestamptz '2026-01-01') AS f1
	  FROM (SELECT array_agg('r:' || g) AS items FROM generate_series(1, 1000) g) a) s;
SELECT # f1 AS day1, # by_expire AS by_expire, # by_expire BETWEEN 970 AND 1000 AS by_expire_ok,
	   # by_add AS by_add, # by_add BETWEEN 971 AND 1001 AS by_add_ok,
	   (SELECT count(*) FROM jsonb_array_elements(sbf_info(by_expire)->'window') b
		WHERE (b->>'segments')::int > 0) AS compacted_buckets
FROM twice;
-- the counts by bucket: day 1's segment counts (almost) none of them now
SELECT b->>'start' AS bucket, b->>'count' AS count, b->>'pairs' AS pairs, b->>'segments' AS segments
FROM twice, jsonb_array_elements(sbf_info(by_expire)->'window') b ORDER BY 1;
-- unions count them once too (and stay symmetric); the aggregate is exact
SELECT # (f1c || day3_only) BETWEEN 970 AND 1000 AS union_ok,
	   (f1c || day3_only)::bytea = (day3_only || f1c)::bytea AS symmetric,
	   (f1c || by_expire)::bytea = by_expire::bytea AS with_own_descendant,
	   (SELECT # sbf_window_agg(item, at) FROM (
			SELECT 'r:' || g AS item, d AS at FROM generate_series(1, 1000) g,
				(VALUES (timestamptz '2026-01-01'), (timestamptz '2026-01-03')) v(d)) r) AS aggregate
FROM (SELECT *, sbf_expire(f1, timestamptz '2026-01-02') AS f1c FROM twice) t;

-- an add at a newer time frees the buckets that fall out as sbf_expire does
SELECT sbf_add(f, 'x', timestamptz '2026-03-17')::bytea
	 = sbf_add(sbf_expire(f, timestamptz '2026-03-17'), 'x', timestamptz '2026-03-17')::bytea AS same
FROM live WHERE uid = 1;

-- an add older than the window changes nothing
SELECT sbf_add(f, 'y', timestamptz '2025-12-01')::bytea = f::bytea AS unchanged FROM live WHERE uid = 1;

-- the window keeps exactly its newest 30 buckets: 30 and 31 days back
SELECT sbf_contains(f, 'a', timestamptz '2026-01-01') AS kept_29_days,
	   sbf_add(f, 'b', timestamptz '2026-01-31') @> 'a' AS kept_30th,
	   sbf_add(f, 'b', timestamptz '2026-02-01') @> 'a' AS dropped_31st
FROM (SELECT sbf_add(sbf_window_empty(), 'a', timestamptz '2026-01-02 12:00') AS f) s;

-- 4. sizes: the aggregate's bucket of 3,000 elements costs at most 18 bits
--    per element (info counts the bucket's own bytes), and a small window at
--    most 64 bytes plus 10 per element-bucket
SELECT (b->>'count')::int AS elements, (b->>'bytes')::int * 8.0 / (b->>'count')::int <= 18 AS within_18_bits
FROM agg, jsonb_array_elements(sbf_info(f)->'window') b
WHERE uid = 1 AND (b->>'count')::int >= 1000 ORDER BY 1;

-- each bucket's segment kind (format 4: the smallest of fused, blocked and
-- kind 4, shown as bloom; at 1%/30 buckets fused is the smallest only from
-- about 5,000 elements, and blocked where its one line ties with kind 4)
SELECT DISTINCT k AS kind FROM agg, jsonb_array_elements(sbf_info(f)->'window') b,
	jsonb_array_elements_text(b->'kinds') k ORDER BY 1;

SELECT pg_column_size(f) <= 64 + 10 * 100 AS small_within_bound, sbf_info(f)->>'pairs' AS pairs
FROM (SELECT sbf_window_agg('sku:' || g, timestamptz '2026-01-01' + (g % 30) * interval '1 day') AS f
	  FROM generate_series(1, 100) g) s;

SELECT pg_column_size(sbf_window_empty()) AS empty_bytes;

-- 5. the aggregate: the same bytes in any row order and in a parallel plan
SELECT (SELECT sbf_window_agg(item, at) FROM (SELECT * FROM rows WHERE uid = 1 ORDER BY at) s)::bytea
	 = (SELECT sbf_window_agg(item, at) FROM (SELECT * FROM rows WHERE uid = 1 ORDER BY md5(item || at)) s)::bytea
	AS order_free;

CREATE TABLE par_rows AS SELECT * FROM rows;
ALTER TABLE par_rows SET (parallel_workers = 2);
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT sbf_window_agg(item, at) FROM par_rows WHERE uid = 1;
SELECT (SELECT sbf_window_agg(item, at) FROM par_rows WHERE uid = 1)::bytea
	 = (SELECT f FROM agg WHERE uid = 1)::bytea AS parallel_same;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
DROP TABLE par_rows;

-- rows older than the newest bucket minus the window are left out
SELECT sbf_window_agg(x, t, '1 day', 3)::bytea = (sbf_window_agg(x, t, '1 day', 3) FILTER (WHERE t >= '2026-01-08'))::bytea
	AS old_rows_left_out
FROM (VALUES ('a', timestamptz '2026-01-01'), ('b', '2026-01-08'), ('c', '2026-01-10')) v(x, t);

-- the parameters of the aggregate
SELECT sbf_info(sbf_window_agg(g, timestamptz '2026-01-01', '1 hour', 48, 0.001)) - 'window' - 'bytes' - 'fpr_bound' AS info,
	   (sbf_info(sbf_window_agg(g, timestamptz '2026-01-01', '1 hour', 48, 0.001))->>'fpr_bound')::float8 <= 0.001 / 48 AS within_bucket_budget
FROM generate_series(1, 10) g;

-- 6. unions bucket by bucket: symmetric, f || f is f, no false negatives
--    (user 1's rows before and from 2026-01-31 in two windows, whose filled
--    buckets do not overlap; small windows of pairs unite anywhere)
CREATE TEMP TABLE halves AS
SELECT h, sbf_window_agg(item, at) AS f FROM rows, LATERAL (SELECT day >= 30 AS h) x
WHERE uid = 1 AND day >= 15 GROUP BY h;
SELECT (a.f || b.f)::bytea = (b.f || a.f)::bytea AS symmetric,
	   (a.f || a.f)::bytea = a.f::bytea AS idempotent,
	   sbf_union(a.f, b.f)::bytea = (a.f || b.f)::bytea AS same_as_operator,
	   (SELECT sbf_union_agg(f) FROM halves)::bytea = (a.f || b.f)::bytea AS same_as_aggregate
FROM halves a, halves b WHERE NOT a.h AND b.h;

SELECT count(*) FILTER (WHERE NOT sbf_contains(u.f, r.item, r.at)) AS missed,
	   count(*) FILTER (WHERE NOT sbf_contains(u.f, r.item, timestamptz '2026-01-01' + r.day * interval '1 day')) AS missed_since_start
FROM rows r, (SELECT sbf_union_agg(f) AS f FROM halves) u
WHERE r.uid = 1 AND r.day >= 15;

SELECT count(*) FILTER (WHERE NOT u.f @> r.item) AS missed_small
FROM rows r, (SELECT sbf_union_agg(sbf_add(sbf_window_empty(), item, at)) AS f FROM rows WHERE uid = 2 AND day >= 31) u
WHERE r.uid = 2 AND r.day >= 31;

-- 7. NULL rules (see the README): a NULL filter starts the default window; a
--    NULL element or time returns the filter; lookups are STRICT
SELECT sbf_info(sbf_add(NULL::scalablebloom, 'a', timestamptz '2026-01-01'))->>'form' AS null_filter,
	   sbf_add(f, NULL::text, timestamptz '2026-01-01')::bytea = f::bytea AS null_element,
	   sbf_add(f, 'z', NULL)::bytea = f::bytea AS null_at,
	   sbf_contains(f, 'a', NULL) IS NULL AS null_since,
	   sbf_matches(f, ARRAY['a'], NULL) IS NULL AS null_since_matches,
	   sbf_expire(f, NULL) IS NULL AS null_now
FROM live WHERE uid = 1;

-- a plain filter ignores at and since
SELECT sbf_add(sbf_empty(), 'a', timestamptz '2026-01-01')::bytea = sbf_add(sbf_empty(), 'a')::bytea AS plain_add,
	   sbf_contains(sbf_add(sbf_empty(), 'a'), 'a', timestamptz '2030-01-01') AS plain_since,
	   sbf_expire(sbf_add(sbf_empty(), 'a'), now())::bytea = sbf_add(sbf_empty(), 'a')::bytea AS plain_expire;

-- bigint, bytea and arrays
SELECT sbf_add(sbf_window_empty(), 42::bigint, timestamptz '2026-01-01') @> 42::bigint AS int8,
	   sbf_contains(sbf_add(sbf_window_empty(), '\x0102'::bytea, timestamptz '2026-01-01'), '\x0102'::bytea, timestamptz '2026-01-01') AS bytea,
	   sbf_matches(sbf_add(sbf_window_empty(), ARRAY['a', NULL, 'b'], timestamptz '2026-01-01'), ARRAY['a', 'b', 'c'], timestamptz '2026-01-01') AS text_array,
	   sbf_matches(sbf_add(sbf_window_empty(), ARRAY[1, 2, 3]::bigint[], timestamptz '2026-01-01'), ARRAY[1, 2, 4]::bigint[]) AS int8_array;

-- an array add writes the bytes of one add per element in its order (one
-- batch, linear in its length): new elements, repeats within the array,
-- elements an older bucket holds, NULLs, a conversion at 4,096 pairs; at the
-- newest bucket and at an older one
CREATE FUNCTION pg_temp.fold_adds(w scalablebloom, items text[], at timestamptz)
RETURNS scalablebloom LANGUAGE plpgsql AS $$
DECLARE
	i text;
BEGIN
	FOREACH i IN ARRAY items LOOP
		IF i IS NOT NULL THEN
			w := sbf_add(w, i, at);
		END IF;
	END LOOP;
	RETURN w;
END $$;
WITH base AS (
	SELECT sbf_add(sbf_add(sbf_window_empty(),
						   ARRAY(SELECT 'x' || g FROM generate_series(1, 300) g), timestamptz '2026-01-01'),
				   ARRAY(SELECT 'y' || g FROM generate_series(1, 300) g), timestamptz '2026-01-03') AS w),
items AS (
	SELECT array_agg(CASE WHEN g % 97 = 0 THEN NULL
						  WHEN g % 11 = 0 THEN 'x' || (g % 300 + 1)
						  ELSE 'i' || (g % 5000) END ORDER BY g) AS a
	FROM generate_series(1, 6000) g)
SELECT sbf_add(w, a, timestamptz '2026-01-03')::bytea =
		   pg_temp.fold_adds(w, a, timestamptz '2026-01-03')::bytea AS array_add_same_bytes,
	   sbf_add(w, a, timestamptz '2026-01-02')::bytea =
		   pg_temp.fold_adds(w, a, timestamptz '2026-01-02')::bytea AS older_bucket_same_bytes
FROM base, items;

-- 8. errors: 22023 with a hint
\x on
SELECT code, message, hint FROM sbf_regress.try($$SELECT sbf_window_empty('1 month')$$);
SELECT code, message, hint FROM sbf_regress.try($$SELECT sbf_window_empty('0 days')$$);
SELECT code, message, hint FROM sbf_regress.try($$SELECT sbf_window_empty('-1 hour')$$);
SELECT code, message, hint FROM sbf_regress.try($$SELECT sbf_window_empty('1 day', 0)$$);
SELECT code, message, hint FROM sbf_regress.try($$SELECT sbf_window_empty('1 day', 1001)$$);
SELECT code, message, hint FROM sbf_regress.try($$SELECT sbf_window_empty('1 day', 30, 0.5)$$);
SELECT code, message, hint FROM sbf_regress.try($$SELECT sbf_window_agg('a', now(), '2 months') FROM generate_series(1, 2)$$);
SELECT code, message, hint FROM sbf_regress.try($$SELECT sbf_window_empty() || sbf_empty()$$);
SELECT code, message, hint FROM sbf_regress.try($$SELECT sbf_union(sbf_empty(), sbf_window_empty())$$);
SELECT code, message, hint FROM sbf_regress.try($$SELECT sbf_union_agg(f) FROM (VALUES (sbf_window_empty()), (sbf_empty())) v(f)$$);
SELECT code, message, hint FROM sbf_regress.try($$SELECT sbf_window_empty('1 day', 30) || sbf_window_empty('1 day', 7)$$);
SELECT code, message, hint FROM sbf_regress.try($$SELECT sbf_add(sbf_window_empty(), 'a')$$);
SELECT code, message, hint FROM sbf_regress.try($$SELECT sbf_delta(sbf_window_empty())$$);
SELECT code, message, hint FROM sbf_regress.try($$SELECT sbf_add(sbf_window_empty(), 'a', 'infinity')$$);
-- windows right-sized for different elements in the same bucket: at 3,000
-- elements kind 4 is the smallest and spends about P^1.04 of its bucket's P,
-- so a second does not fit (a fused one spends 2^-f, about half of it)
SELECT code, message, hint FROM sbf_regress.try($$SELECT (SELECT sbf_window_agg('a' || g, timestamptz '2026-01-01') FROM generate_series(1, 3000) g)
	|| (SELECT sbf_window_agg('b' || g, timestamptz '2026-01-01') FROM generate_series(1, 3000) g)
	|| (SELECT sbf_window_agg('d' || g, timestamptz '2026-01-01') FROM generate_series(1, 3000) g)$$);
\x off

-- 8b. an explicit budget (the 1.1 union policy, bucket by bucket): the union
--     refused above unites at the error_rate its hint names and carries it;
--     below that it is refused again; windows of different error_rate unite
--     only with one; a lone window takes a budget its buckets fit
CREATE TEMP TABLE heavy AS
SELECT (SELECT sbf_window_agg('a' || g, timestamptz '2026-01-01') FROM generate_series(1, 3000) g) AS a,
	   (SELECT sbf_window_agg('b' || g, timestamptz '2026-01-01') FROM generate_series(1, 3000) g) AS b,
	   (SELECT sbf_window_agg('c' || g, timestamptz '2026-01-02', '1 day', 30, 0.02) FROM generate_series(1, 100) g) AS c,
	   (SELECT sbf_window_agg('d' || g, timestamptz '2026-01-01') FROM generate_series(1, 3000) g) AS d;
SELECT (sbf_info(u)->>'error_rate')::float8 AS error_rate,
	   (SELECT count(*) FROM generate_series(1, 3000) g
		WHERE NOT u @> ('a' || g) OR NOT u @> ('b' || g) OR NOT u @> ('d' || g)) AS missed,
	   u::bytea = sbf_union(d, sbf_union(b, a, 0.023), 0.023)::bytea AS symmetric,
	   u::bytea = (SELECT sbf_union_agg(f, 0.023) FROM (VALUES (a), (b), (d)) v(f))::bytea AS same_as_aggregate,
	   sbf_info(sbf_union(a, c, 0.05))->>'error_rate' AS mixed_rates,
	   sbf_info(sbf_union(a, NULL, 0.02))->>'error_rate' AS alone
FROM (SELECT a, b, c, d, sbf_union(sbf_union(a, b, 0.023), d, 0.023) AS u FROM heavy) h;
\x on
SELECT code, message, hint FROM sbf_regress.try($$SELECT sbf_union(sbf_union(a, b, 0.023), d, 0.022) FROM heavy$$);
SELECT code, message, hint FROM sbf_regress.try($$SELECT a || c FROM heavy$$);
SELECT code, message, hint FROM sbf_regress.try($$SELECT sbf_union(a, NULL, 0.001) FROM heavy$$);
\x off

-- 9. malformed windowed values: 22P03 (bytea cast, binary) and 22P02 (text),
--    through the one validator
CREATE TEMP TABLE wbase AS
SELECT sbf_add(sbf_add(sbf_window_empty('1 day', 3), 'a', timestamptz '2026-01-01'),
			   'b', timestamptz '2026-01-02')::bytea AS b;
SELECT octet_length(b) AS bytes, encode(b, 'hex') AS hex FROM wbase;
-- the same window as 1.2 wrote it (version 3) is read forever, answers as
-- before, and a write relabels it to version 4 (the bytes above)
SELECT sbf_info(f)->>'version' AS read_version, f @> 'a' AS has_a, f @> 'b' AS has_b,
	   f @> 'c' AS has_c, sbf_contains(f, 'a', timestamptz '2026-01-02') AS a_since_2nd,
	   sbf_info(sbf_add(f, 'b', timestamptz '2026-01-02'))->>'version' AS written_version,
	   sbf_add(f, 'b', timestamptz '2026-01-02')::bytea = (SELECT b FROM wbase) AS relabelled
FROM (SELECT '\x030101000300000000000000020000000060d71d14000000e74f0000000000007b14ae47e17a843f3f84d8441c0b5a571f4e961eb632c6e600000100'::bytea::scalablebloom AS f) s;
CREATE FUNCTION pg_temp.state(stmt text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE stmt;
	RETURN '00000';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE;
END $$;
SELECT v.label,
	   pg_temp.state(format('SELECT %L::bytea::scalablebloom', v.b)) AS via_bytea,
	   pg_temp.state(format('SELECT %L::scalablebloom', 'sbf1:' || translate(encode(v.b, 'base64'), E'\n', ''))) AS via_text
FROM wbase, LATERAL (VALUES
	('valid',                 b),
	('truncated header',      substr(b, 1, 30)),
	('trailing byte',         b || '\x00'::bytea),
	('unknown flag',          set_byte(b, 1, 3)),
	('buckets 0',             set_byte(set_byte(b, 4, 0), 5, 0)),
	('reserved byte',         set_byte(b, 3, 1)),
	('width 0',               overlay(b placing '\x0000000000000000'::bytea from 17)),
	('error_rate 0.5',        overlay(b placing '\x000000000000e03f'::bytea from 33)),
	('pair age 3 of 3',       set_byte(b, octet_length(b) - 2, 3)),
	('pairs not ascending',   overlay(b placing substr(b, 49, 8) || substr(b, 41, 8) from 41)),
	('pair count too large',  set_byte(b, 12, 3))
) v(label, b) ORDER BY v.label;
