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
