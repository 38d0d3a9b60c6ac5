-- sbf_window_limits: windowed filters at the ends of the time line (issue
-- 25): 1-microsecond buckets across the whole range of timestamptz, times
-- whose bucket would end past the int64 microseconds a window holds,
-- infinite times, the oldest bucket still in the window, times before 1970,
-- and sbf_window_agg over rows whose parameters differ (one rule, serial
-- and parallel).

SET TimeZone = 'UTC';

-- sbf_regress.try (sbf_setup.sql): SQLSTATE, message and hint of a statement

-- 1. 1-microsecond buckets: an add at the first timestamptz, then one at the
-- last microsecond a bucket can end (the slide crossed more than an int64:
-- it crashed the server in 1.2).
CREATE TEMP TABLE ends AS
SELECT sbf_add(sbf_add(sbf_window_empty('1 microsecond', 10, 0.01),
		'a'::text, '4714-11-24 00:00:00+00 BC'), 'b'::text, '294247-01-10 04:00:54.775806+00') AS f;
SELECT sbf_contains(f, 'b'::text) AS has_b, sbf_contains(f, 'a'::text) AS has_a,
	   sbf_contains(f, 'b'::text, '294247-01-10 04:00:54.775806+00') AS b_since_its_time,
	   f::text::scalablebloom::bytea = f::bytea AS text_round_trip,
	   f::bytea::scalablebloom::bytea = f::bytea AS bytea_round_trip,
	   sbf_info(f)->>'newest_bucket_start' AS newest
FROM ends;
-- many elements in the old bucket, so that the slide compacts them
SELECT sbf_contains(sbf_add(sbf_add(sbf_window_empty('1 microsecond', 10, 0.01),
		ARRAY(SELECT 'x' || i FROM generate_series(1, 200) i), '4714-11-24 00:00:00+00 BC'),
		'y'::text, '294247-01-10 04:00:54.775806+00'), 'x7'::text) AS old_forgotten;
-- sbf_expire across the whole range, and back (a no-op)
SELECT sbf_info(sbf_expire(sbf_add(sbf_window_empty('1 microsecond', 10, 0.01), 'a'::text,
		'4714-11-24 00:00:00+00 BC'), '294247-01-10 04:00:54.775806+00'))->>'pairs' AS pairs_after_expire;
SELECT sbf_contains(sbf_expire(f, '4714-11-24 00:00:00+00 BC'), 'b'::text) AS expire_back_keeps
FROM ends;
-- unions of windows whose newest buckets are further apart than an int64
SELECT sbf_contains(g, 'a'::text) AS union_forgets_old, sbf_contains(g, 'b'::text) AS union_has_new,
	   g::bytea = sbf_union(h2, h1)::bytea AS union_symmetric
FROM (SELECT sbf_add(sbf_window_empty('1 microsecond', 10, 0.01), 'a'::text, '4714-11-24 00:00:00+00 BC') AS h1,
			 sbf_add(sbf_window_empty('1 microsecond', 10, 0.01), 'b'::text, '294247-01-10 04:00:54.775806+00') AS h2) s,
	 LATERAL (SELECT sbf_union(h1, h2) AS g) u;

-- 2. a time whose bucket would end past 294247-01-10 04:00:54.775807 UTC is
-- refused (22008): the value the add wrote in 1.2 could not be restored.
SELECT code, message, hint FROM sbf_regress.try($$SELECT sbf_add(sbf_window_empty('1 day', 30, 0.01), 'x'::text, '294247-01-10 01:00:00+00')$$);
SELECT code, message, hint FROM sbf_regress.try($$SELECT sbf_add(sbf_window_empty('1 microsecond', 10, 0.01), 'x'::text, '294247-01-10 04:00:54.775807+00')$$);
SELECT code, message, hint FROM sbf_regress.try($$SELECT sbf_add(sbf_window_empty('1 microsecond', 10, 0.01), 'x'::text, '294276-12-31 23:59:59.999999+00')$$);
SELECT code, message, hint FROM sbf_regress.try($$SELECT sbf_expire(sbf_window_empty('3650 days', 1, 0.01), '294247-01-01+00')$$);
SELECT code, message, hint FROM sbf_regress.try($$SELECT sbf_window_agg(x, t, '1 day') FROM (VALUES ('x', timestamptz '294247-01-10 01:00:00+00')) v(x, t)$$);
-- the last day that fits is accepted, and the value round-trips
SELECT sbf_info(f)->>'newest_bucket_start' AS last_day,
	   f::text::scalablebloom::bytea = f::bytea AS text_round_trip
FROM (SELECT sbf_add(sbf_window_empty('1 day', 30, 0.01), 'x'::text, '294247-01-09 01:00:00+00') AS f) s;

-- 3. infinite times: refused by adds, sbf_expire and the aggregate; a since
-- of -infinity counts every bucket, +infinity none.
SELECT code, message, hint FROM sbf_regress.try($$SELECT sbf_add(sbf_window_empty(), 'x'::text, '-infinity')$$);
SELECT code, message, hint FROM sbf_regress.try($$SELECT sbf_add(sbf_window_empty(), 'x'::text, 'infinity')$$);
SELECT code, message, hint FROM sbf_regress.try($$SELECT sbf_add(sbf_window_empty(), ARRAY[1, 2]::bigint[], '-infinity')$$);
SELECT code, message, hint FROM sbf_regress.try($$SELECT sbf_expire(sbf_window_empty(), '-infinity')$$);
SELECT code, message, hint FROM sbf_regress.try($$SELECT sbf_window_agg(x, t) FROM (VALUES ('x', timestamptz '-infinity')) v(x, t)$$);
SELECT sbf_contains(f, 'x'::text, '-infinity') AS since_minus_infinity,
	   sbf_contains(f, 'x'::text, 'infinity') AS since_plus_infinity
FROM (SELECT sbf_add(sbf_window_empty(), 'x'::text, '2026-01-01') AS f) s;

-- 4. a late add into the oldest bucket still in the window is kept; one
-- bucket older is left out.
SELECT sbf_contains(f, 'oldest'::text, '2026-01-06') AS oldest_kept,
	   sbf_contains(f, 'older'::text) AS older_left_out,
	   sbf_info(f)->>'pairs' AS pairs
FROM (SELECT sbf_add(sbf_add(sbf_add(sbf_window_empty('1 day', 5, 0.01), 'new'::text, '2026-01-10 12:00'),
		'oldest'::text, '2026-01-06 23:59:59.999999'), 'older'::text, '2026-01-05 23:59:59.999999') AS f) s;
SELECT sbf_contains(sbf_window_agg(x, t, '1 day', 5), 'oldest'::text, '2026-01-06') AS agg_oldest_kept
FROM (VALUES ('new', timestamptz '2026-01-10 12:00'), ('oldest', '2026-01-06 00:00')) v(x, t);

-- 5. times before 1970 fall in the bucket that holds them (floor, not
-- truncation toward 1970), by the add and by the aggregate alike.
SELECT sbf_info(f)->>'newest_bucket_start' AS add_bucket,
	   sbf_contains(f, 'x'::text, '1969-12-31 00:00') AS since_its_day,
	   sbf_contains(f, 'x'::text, '1970-01-01 00:00') AS since_next_day
FROM (SELECT sbf_add(sbf_window_empty('1 day', 5, 0.01), 'x'::text, '1969-12-31 12:00') AS f) s;
SELECT sbf_info(f)->>'newest_bucket_start' AS agg_bucket,
	   sbf_contains(f, 'x'::text, '1969-12-31 00:00') AS since_its_day,
	   sbf_contains(f, 'x'::text, '1970-01-01 00:00') AS since_next_day
FROM (SELECT sbf_window_agg(x, t, '1 day', 5) AS f
	  FROM (VALUES ('x', timestamptz '1969-12-31 12:00')) v(x, t)) s;
SELECT sbf_window_agg(x, t, '7 days', 3)::bytea =
	   sbf_add(sbf_add(sbf_window_empty('7 days', 3, 0.01), 'a'::text, '1900-01-01 00:00:00.000001'),
			   'b'::text, '1900-01-07 23:00')::bytea AS agg_equals_adds_before_1970
FROM (VALUES ('a', timestamptz '1900-01-01 00:00:00.000001'), ('b', '1900-01-07 23:00')) v(x, t);

-- 6. rows whose bucket, buckets or error_rate differ: always 22023, in a
-- serial plan (the transition compares each row with its state) and in a
-- parallel one (each worker's transition, and the combine).
CREATE TABLE mixed AS
SELECT i, 'e' || i AS x, timestamptz '2026-01-01' + i * interval '1 minute' AS t,
	   CASE WHEN i = 15000 THEN interval '2 days' ELSE interval '1 day' END AS bucket,
	   CASE WHEN i = 15001 THEN 7 ELSE 30 END AS buckets,
	   CASE WHEN i = 15002 THEN 0.02 ELSE 0.01 END AS error_rate
FROM generate_series(1, 20000) i;
SELECT code, message, hint FROM sbf_regress.try($$SELECT sbf_window_agg(x, t, bucket, 30, 0.01) FROM mixed$$);
SELECT code, message, hint FROM sbf_regress.try($$SELECT sbf_window_agg(x, t, '1 day', buckets, 0.01) FROM mixed$$);
SELECT code, message, hint FROM sbf_regress.try($$SELECT sbf_window_agg(x, t, '1 day', 30, error_rate) FROM mixed$$);
-- the same parameters written differently are the same window
SELECT sbf_window_agg(x, t, CASE WHEN i % 2 = 0 THEN interval '24 hours' ELSE interval '1 day' END)::bytea
	 = sbf_window_agg(x, t)::bytea AS same_width_same_window
FROM mixed;
ALTER TABLE mixed SET (parallel_workers = 2);
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT sbf_window_agg(x, t, '1 day', 30, error_rate) FROM mixed;
SELECT code, message, hint FROM sbf_regress.try($$SELECT sbf_window_agg(x, t, bucket, 30, 0.01) FROM mixed$$);
SELECT code, message, hint FROM sbf_regress.try($$SELECT sbf_window_agg(x, t, '1 day', buckets, 0.01) FROM mixed$$);
SELECT code, message, hint FROM sbf_regress.try($$SELECT sbf_window_agg(x, t, '1 day', 30, error_rate) FROM mixed$$);
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
DROP TABLE mixed;
-- the combine alone, on two partial states whose parameters differ (an
-- aggregate whose transition is the combine, so no plan decides it)
CREATE AGGREGATE pg_temp.combine_states(scalablebloom) (
	SFUNC = sbf_window_agg_combine, STYPE = scalablebloom);
SELECT code, message, hint FROM sbf_regress.try($$
	SELECT pg_temp.combine_states(s) FROM (VALUES
		(sbf_add(sbf_window_empty('1 day', 30, 0.01), 'a'::text, '2026-01-01')),
		(sbf_add(sbf_window_empty('1 day', 30, 0.02), 'b'::text, '2026-01-01'))) v(s)$$);
SELECT code, message, hint FROM sbf_regress.try($$
	SELECT pg_temp.combine_states(s) FROM (VALUES
		(sbf_add(sbf_window_empty('1 day', 30, 0.01), 'a'::text, '2026-01-01')),
		(sbf_add(sbf_window_empty('1 day', 29, 0.01), 'b'::text, '2026-01-01'))) v(s)$$);
SELECT code, message, hint FROM sbf_regress.try($$
	SELECT pg_temp.combine_states(s) FROM (VALUES
		(sbf_add(sbf_window_empty('1 day', 30, 0.01), 'a'::text, '2026-01-01')),
		(sbf_add(sbf_window_empty('2 days', 30, 0.01), 'b'::text, '2026-01-01'))) v(s)$$);
SELECT sbf_contains(s, 'a'::text) AND sbf_contains(s, 'b'::text) AS combine_same_params
FROM (SELECT pg_temp.combine_states(s) AS s FROM (VALUES
		(sbf_add(sbf_window_empty('1 day', 30, 0.01), 'a'::text, '2026-01-01')),
		(sbf_add(sbf_window_empty('1 day', 30, 0.01), 'b'::text, '2026-01-02'))) v(s)) c;
