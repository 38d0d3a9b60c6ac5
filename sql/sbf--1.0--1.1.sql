/* sbf--1.0--1.1.sql: update sbf 1.0 to 1.1 (ALTER EXTENSION sbf UPDATE) */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "ALTER EXTENSION sbf UPDATE TO '1.1'" to load this file. \quit

-- Every SQL object new in 1.1 is created here.  A fresh CREATE EXTENSION sbf
-- runs sbf--1.1.sql, which the Makefile builds as sbf--1.0.sql followed by
-- this file, so both paths end with the same catalog.  Values stored by 1.0
-- (format 1) keep reading: see "FORMAT" in src/core/sbf_core.h.

-------------------------------------------------------------------------------
-- MERGING: TYPE sbf_hashset, ITS AGGREGATES, sbf_build (src/sbf_hashset.c)
-------------------------------------------------------------------------------

-------------------------------------------------------------------------------
-- AGGREGATE STATE TYPES: sbf_agg over sbf_hashset (src/sbf_agg.c),
-- sbf_union_agg over scalablebloom (src/sbf_union_agg.c)
-------------------------------------------------------------------------------

-------------------------------------------------------------------------------
-- UNION WITH AN EXPLICIT BUDGET (src/sbf_ops.c)
-------------------------------------------------------------------------------

-------------------------------------------------------------------------------
-- LIFECYCLE: sbf_delta (src/sbf_lifecycle.c)
-------------------------------------------------------------------------------

-- Not STRICT: a NULL filter gives a default empty one, as NULL || x starts one.
CREATE FUNCTION sbf_delta(scalablebloom) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_delta_pg'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

COMMENT ON FUNCTION sbf_delta(scalablebloom) IS
	'empty filter that continues the growth chain and error budget of the given one: keep it in a second column for live adds, test seen @> x OR recent @> x, merge with seen || recent; the merged fpr_bound stays <= error_rate';

-- Format 2 (src/core/sbf_core.h) changes what these existing objects answer:
-- small filters are exact, counts come from the directory where they can.
COMMENT ON TYPE scalablebloom IS
	'scalable Bloom filter (segments that grow and tighten) with an embedded HyperLogLog, exact (sorted hashes) while small; text form ''sbf1:'' followed by base64 of the payload (format 2; format 1 from sbf 1.0 is read as well)';
COMMENT ON FUNCTION sbf_cardinality(scalablebloom) IS
	'number of distinct elements added: exact for a small (exact-form) filter, the segments'' distinct inserts corrected for false-positive skips for a filter built by adds or sbf_agg, the HyperLogLog estimate after a union; rounded';
COMMENT ON OPERATOR # (NONE, scalablebloom) IS
	'number of distinct elements added (see sbf_cardinality)';
COMMENT ON FUNCTION sbf_info(scalablebloom) IS
	'format version, form (exact or segments), hash, parameters, HyperLogLog (with its own estimate), cardinality and its source, false-positive bound and estimate, bytes, per-segment capacity, count, bits, hashes, fill and error_rate; for the exact form its hashes count and first segment';
