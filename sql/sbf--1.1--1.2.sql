/* sbf--1.1--1.2.sql: update sbf 1.1 to 1.2 (ALTER EXTENSION sbf UPDATE) */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "ALTER EXTENSION sbf UPDATE TO '1.2'" to load this file. \quit

-- Every SQL object new in 1.2 is created here.  A fresh CREATE EXTENSION sbf
-- runs sbf--1.2.sql, which the Makefile builds as sbf--1.0.sql, then
-- sbf--1.0--1.1.sql, then this file, so both paths end with the same
-- catalog.  Values stored by 1.0 (format 1) and 1.1 (format 2) keep reading:
-- see "FORMAT" in src/core/common/sbf_core.h.

-------------------------------------------------------------------------------
-- WINDOWS: filters that forget (src/pg/sbf_window.c, src/pg/sbf_window_agg.c)
-------------------------------------------------------------------------------

-- A windowed filter is a scalablebloom of format version 3 ("WINDOWED FORM"
-- in src/core/common/sbf_core.h): its newest `buckets` buckets of time, each
-- bucket `bucket` long and aligned to multiples of it since 1970-01-01 UTC,
-- each sized and budgeted on its own (error_rate / buckets).  The existing
-- operators read it too: @>, sbf_contains and sbf_matches look at every
-- bucket held, # counts, sbf_info reports, || and sbf_union unite bucket by
-- bucket.  An add without a time and sbf_delta are refused (22023).

CREATE FUNCTION sbf_window_empty(bucket interval DEFAULT '1 day',
								 buckets integer DEFAULT 30,
								 error_rate float8 DEFAULT 0.01)
	RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_window_empty'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION sbf_window_empty(interval, integer, float8) IS
	'an empty windowed filter: the newest `buckets` buckets of length `bucket` (days, hours, minutes; no months), error_rate over any query';

-- Timed adds.  Not STRICT: a NULL filter starts the default window (1 day,
-- 30 buckets, 0.01); a NULL element or a NULL time returns the filter as it
-- is.  On a plain filter the time is ignored (the add of 1.0).

CREATE FUNCTION sbf_add(filter scalablebloom, element text, at timestamptz) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_add_at_text'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_add(scalablebloom, text, timestamptz) IS
	'adds an element at time `at`: a newer bucket slides the window, a time older than the window changes nothing; a plain filter ignores `at`';

CREATE FUNCTION sbf_add(filter scalablebloom, element bigint, at timestamptz) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_add_at_int8'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_add(scalablebloom, bigint, timestamptz) IS
	'adds an element at time `at`: a newer bucket slides the window, a time older than the window changes nothing; a plain filter ignores `at`';

CREATE FUNCTION sbf_add(filter scalablebloom, element bytea, at timestamptz) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_add_at_bytea'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_add(scalablebloom, bytea, timestamptz) IS
	'adds an element at time `at`: a newer bucket slides the window, a time older than the window changes nothing; a plain filter ignores `at`';

CREATE FUNCTION sbf_add(filter scalablebloom, elements text[], at timestamptz) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_add_at_text_array'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_add(scalablebloom, text[], timestamptz) IS
	'adds the non-NULL elements at time `at`: a newer bucket slides the window, a time older than the window changes nothing; a plain filter ignores `at`';

CREATE FUNCTION sbf_add(filter scalablebloom, elements bigint[], at timestamptz) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_add_at_int8_array'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_add(scalablebloom, bigint[], timestamptz) IS
	'adds the non-NULL elements at time `at`: a newer bucket slides the window, a time older than the window changes nothing; a plain filter ignores `at`';

-- Lookups since a time: only buckets that end after `since` count (the
-- bucket holding `since` counts whole).  STRICT: a NULL since gives NULL,
-- like a NULL element.  A plain filter ignores `since`.

CREATE FUNCTION sbf_contains(filter scalablebloom, element text, since timestamptz) RETURNS boolean
	AS 'MODULE_PATHNAME', 'sbf_contains_since_text'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_contains(scalablebloom, text, timestamptz) IS
	'whether the element was probably added in a bucket that ends after `since` (no false negatives)';

CREATE FUNCTION sbf_contains(filter scalablebloom, element bigint, since timestamptz) RETURNS boolean
	AS 'MODULE_PATHNAME', 'sbf_contains_since_int8'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_contains(scalablebloom, bigint, timestamptz) IS
	'whether the element was probably added in a bucket that ends after `since` (no false negatives)';

CREATE FUNCTION sbf_contains(filter scalablebloom, element bytea, since timestamptz) RETURNS boolean
	AS 'MODULE_PATHNAME', 'sbf_contains_since_bytea'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_contains(scalablebloom, bytea, timestamptz) IS
	'whether the element was probably added in a bucket that ends after `since` (no false negatives)';

CREATE FUNCTION sbf_matches(filter scalablebloom, elements text[], since timestamptz) RETURNS integer
	AS 'MODULE_PATHNAME', 'sbf_matches_since_text'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_matches(scalablebloom, text[], timestamptz) IS
	'how many non-NULL elements were probably added in buckets that end after `since`';

CREATE FUNCTION sbf_matches(filter scalablebloom, elements bigint[], since timestamptz) RETURNS integer
	AS 'MODULE_PATHNAME', 'sbf_matches_since_int8'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_matches(scalablebloom, bigint[], timestamptz) IS
	'how many non-NULL elements were probably added in buckets that end after `since`';

CREATE FUNCTION sbf_expire(filter scalablebloom, now timestamptz) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_expire'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_expire(scalablebloom, timestamptz) IS
	'slides a window to `now` without adding: buckets that fall out are dropped, closed buckets are compacted; a plain filter is returned as it is';

-- The aggregate.  Its state is a scalablebloom (a windowed value of exact
-- (hash, bucket) pairs when flat, an expanded object while rows come), so
-- parallel query and Citus aggregate partially; the final function sizes
-- every bucket for its distinct count.  Rows with a NULL element or time
-- are skipped; zero rows give NULL.  Aggregates take no DEFAULTs, so the
-- optional arguments are overloads.
CREATE FUNCTION sbf_window_agg_combine(scalablebloom, scalablebloom) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_window_agg_combine'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION sbf_window_agg_final(scalablebloom) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_window_agg_final'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_window_agg_combine(scalablebloom, scalablebloom) IS
	'sbf_window_agg combine: the pairs of both partial states';
COMMENT ON FUNCTION sbf_window_agg_final(scalablebloom) IS
	'sbf_window_agg final: every bucket right-sized for its distinct count';

CREATE FUNCTION sbf_window_agg_trans(scalablebloom, text, timestamptz) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_window_agg_trans_text'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_window_agg_trans(scalablebloom, text, timestamptz) IS
	'sbf_window_agg transition: the element''s hash and bucket';

CREATE AGGREGATE sbf_window_agg(element text, at timestamptz) (
	SFUNC = sbf_window_agg_trans,
	STYPE = scalablebloom,
	FINALFUNC = sbf_window_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	COMBINEFUNC = sbf_window_agg_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE sbf_window_agg(text, timestamptz) IS
	'windowed filter of the rows'' elements by time: the newest `buckets` buckets (default 30 of 1 day, error_rate 0.01), each right-sized; the same bytes in any row order';

CREATE FUNCTION sbf_window_agg_trans(scalablebloom, text, timestamptz, interval) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_window_agg_trans_text'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_window_agg_trans(scalablebloom, text, timestamptz, interval) IS
	'sbf_window_agg transition: the element''s hash and bucket';

CREATE AGGREGATE sbf_window_agg(element text, at timestamptz, bucket interval) (
	SFUNC = sbf_window_agg_trans,
	STYPE = scalablebloom,
	FINALFUNC = sbf_window_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	COMBINEFUNC = sbf_window_agg_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE sbf_window_agg(text, timestamptz, interval) IS
	'windowed filter of the rows'' elements by time: the newest `buckets` buckets (default 30 of 1 day, error_rate 0.01), each right-sized; the same bytes in any row order';

CREATE FUNCTION sbf_window_agg_trans(scalablebloom, text, timestamptz, interval, integer) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_window_agg_trans_text'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_window_agg_trans(scalablebloom, text, timestamptz, interval, integer) IS
	'sbf_window_agg transition: the element''s hash and bucket';

CREATE AGGREGATE sbf_window_agg(element text, at timestamptz, bucket interval, buckets integer) (
	SFUNC = sbf_window_agg_trans,
	STYPE = scalablebloom,
	FINALFUNC = sbf_window_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	COMBINEFUNC = sbf_window_agg_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE sbf_window_agg(text, timestamptz, interval, integer) IS
	'windowed filter of the rows'' elements by time: the newest `buckets` buckets (default 30 of 1 day, error_rate 0.01), each right-sized; the same bytes in any row order';

CREATE FUNCTION sbf_window_agg_trans(scalablebloom, text, timestamptz, interval, integer, float8) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_window_agg_trans_text'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_window_agg_trans(scalablebloom, text, timestamptz, interval, integer, float8) IS
	'sbf_window_agg transition: the element''s hash and bucket';

CREATE AGGREGATE sbf_window_agg(element text, at timestamptz, bucket interval, buckets integer, error_rate float8) (
	SFUNC = sbf_window_agg_trans,
	STYPE = scalablebloom,
	FINALFUNC = sbf_window_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	COMBINEFUNC = sbf_window_agg_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE sbf_window_agg(text, timestamptz, interval, integer, float8) IS
	'windowed filter of the rows'' elements by time: the newest `buckets` buckets (default 30 of 1 day, error_rate 0.01), each right-sized; the same bytes in any row order';

CREATE FUNCTION sbf_window_agg_trans(scalablebloom, bigint, timestamptz) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_window_agg_trans_int8'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_window_agg_trans(scalablebloom, bigint, timestamptz) IS
	'sbf_window_agg transition: the element''s hash and bucket';

CREATE AGGREGATE sbf_window_agg(element bigint, at timestamptz) (
	SFUNC = sbf_window_agg_trans,
	STYPE = scalablebloom,
	FINALFUNC = sbf_window_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	COMBINEFUNC = sbf_window_agg_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE sbf_window_agg(bigint, timestamptz) IS
	'windowed filter of the rows'' elements by time: the newest `buckets` buckets (default 30 of 1 day, error_rate 0.01), each right-sized; the same bytes in any row order';

CREATE FUNCTION sbf_window_agg_trans(scalablebloom, bigint, timestamptz, interval) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_window_agg_trans_int8'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_window_agg_trans(scalablebloom, bigint, timestamptz, interval) IS
	'sbf_window_agg transition: the element''s hash and bucket';

CREATE AGGREGATE sbf_window_agg(element bigint, at timestamptz, bucket interval) (
	SFUNC = sbf_window_agg_trans,
	STYPE = scalablebloom,
	FINALFUNC = sbf_window_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	COMBINEFUNC = sbf_window_agg_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE sbf_window_agg(bigint, timestamptz, interval) IS
	'windowed filter of the rows'' elements by time: the newest `buckets` buckets (default 30 of 1 day, error_rate 0.01), each right-sized; the same bytes in any row order';

CREATE FUNCTION sbf_window_agg_trans(scalablebloom, bigint, timestamptz, interval, integer) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_window_agg_trans_int8'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_window_agg_trans(scalablebloom, bigint, timestamptz, interval, integer) IS
	'sbf_window_agg transition: the element''s hash and bucket';

CREATE AGGREGATE sbf_window_agg(element bigint, at timestamptz, bucket interval, buckets integer) (
	SFUNC = sbf_window_agg_trans,
	STYPE = scalablebloom,
	FINALFUNC = sbf_window_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	COMBINEFUNC = sbf_window_agg_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE sbf_window_agg(bigint, timestamptz, interval, integer) IS
	'windowed filter of the rows'' elements by time: the newest `buckets` buckets (default 30 of 1 day, error_rate 0.01), each right-sized; the same bytes in any row order';

CREATE FUNCTION sbf_window_agg_trans(scalablebloom, bigint, timestamptz, interval, integer, float8) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_window_agg_trans_int8'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_window_agg_trans(scalablebloom, bigint, timestamptz, interval, integer, float8) IS
	'sbf_window_agg transition: the element''s hash and bucket';

CREATE AGGREGATE sbf_window_agg(element bigint, at timestamptz, bucket interval, buckets integer, error_rate float8) (
	SFUNC = sbf_window_agg_trans,
	STYPE = scalablebloom,
	FINALFUNC = sbf_window_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	COMBINEFUNC = sbf_window_agg_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE sbf_window_agg(bigint, timestamptz, interval, integer, float8) IS
	'windowed filter of the rows'' elements by time: the newest `buckets` buckets (default 30 of 1 day, error_rate 0.01), each right-sized; the same bytes in any row order';

CREATE FUNCTION sbf_window_agg_trans(scalablebloom, bytea, timestamptz) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_window_agg_trans_bytea'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_window_agg_trans(scalablebloom, bytea, timestamptz) IS
	'sbf_window_agg transition: the element''s hash and bucket';

CREATE AGGREGATE sbf_window_agg(element bytea, at timestamptz) (
	SFUNC = sbf_window_agg_trans,
	STYPE = scalablebloom,
	FINALFUNC = sbf_window_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	COMBINEFUNC = sbf_window_agg_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE sbf_window_agg(bytea, timestamptz) IS
	'windowed filter of the rows'' elements by time: the newest `buckets` buckets (default 30 of 1 day, error_rate 0.01), each right-sized; the same bytes in any row order';

CREATE FUNCTION sbf_window_agg_trans(scalablebloom, bytea, timestamptz, interval) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_window_agg_trans_bytea'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_window_agg_trans(scalablebloom, bytea, timestamptz, interval) IS
	'sbf_window_agg transition: the element''s hash and bucket';

CREATE AGGREGATE sbf_window_agg(element bytea, at timestamptz, bucket interval) (
	SFUNC = sbf_window_agg_trans,
	STYPE = scalablebloom,
	FINALFUNC = sbf_window_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	COMBINEFUNC = sbf_window_agg_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE sbf_window_agg(bytea, timestamptz, interval) IS
	'windowed filter of the rows'' elements by time: the newest `buckets` buckets (default 30 of 1 day, error_rate 0.01), each right-sized; the same bytes in any row order';

CREATE FUNCTION sbf_window_agg_trans(scalablebloom, bytea, timestamptz, interval, integer) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_window_agg_trans_bytea'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_window_agg_trans(scalablebloom, bytea, timestamptz, interval, integer) IS
	'sbf_window_agg transition: the element''s hash and bucket';

CREATE AGGREGATE sbf_window_agg(element bytea, at timestamptz, bucket interval, buckets integer) (
	SFUNC = sbf_window_agg_trans,
	STYPE = scalablebloom,
	FINALFUNC = sbf_window_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	COMBINEFUNC = sbf_window_agg_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE sbf_window_agg(bytea, timestamptz, interval, integer) IS
	'windowed filter of the rows'' elements by time: the newest `buckets` buckets (default 30 of 1 day, error_rate 0.01), each right-sized; the same bytes in any row order';

CREATE FUNCTION sbf_window_agg_trans(scalablebloom, bytea, timestamptz, interval, integer, float8) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_window_agg_trans_bytea'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_window_agg_trans(scalablebloom, bytea, timestamptz, interval, integer, float8) IS
	'sbf_window_agg transition: the element''s hash and bucket';

CREATE AGGREGATE sbf_window_agg(element bytea, at timestamptz, bucket interval, buckets integer, error_rate float8) (
	SFUNC = sbf_window_agg_trans,
	STYPE = scalablebloom,
	FINALFUNC = sbf_window_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	COMBINEFUNC = sbf_window_agg_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE sbf_window_agg(bytea, timestamptz, interval, integer, float8) IS
	'windowed filter of the rows'' elements by time: the newest `buckets` buckets (default 30 of 1 day, error_rate 0.01), each right-sized; the same bytes in any row order';
