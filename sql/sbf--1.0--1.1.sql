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

-- sbf_union_agg(filter): the state is a scalablebloom, the canonical
-- collection of the input segments (duplicates dropped, nothing merged), so
-- parallel query and Citus aggregate partially and the result does not
-- depend on row order.  The final function merges and checks the budget
-- once.  Not STRICT: NULL filters are skipped.
CREATE FUNCTION sbf_union_agg_step(scalablebloom, scalablebloom) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_union_agg_step'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION sbf_union_agg_merge(scalablebloom, scalablebloom) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_union_agg_merge'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION sbf_union_agg_result(scalablebloom) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_union_agg_result'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

COMMENT ON FUNCTION sbf_union_agg_step(scalablebloom, scalablebloom) IS
	'sbf_union_agg transition: adds a filter''s segments to the collection (same error_rate, growth and tightening required)';
COMMENT ON FUNCTION sbf_union_agg_merge(scalablebloom, scalablebloom) IS
	'sbf_union_agg combine: the collection of two partial states';
COMMENT ON FUNCTION sbf_union_agg_result(scalablebloom) IS
	'sbf_union_agg final: the collection merged by OR where segments fit, else appended; an error (22023) if its fpr_bound would exceed its error_rate';

CREATE OR REPLACE AGGREGATE sbf_union_agg(filter scalablebloom) (
	SFUNC = sbf_union_agg_step,
	STYPE = scalablebloom,
	FINALFUNC = sbf_union_agg_result,
	COMBINEFUNC = sbf_union_agg_merge,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE sbf_union_agg(scalablebloom) IS
	'union of the non-NULL filters (same error_rate, growth and tightening required); an error (22023) if its fpr_bound would exceed the error_rate, unless tightening is 1; the same bytes in any row order; NULL for zero rows';

-- 1.0's internal-state support functions are no longer used by the catalog
-- (their C entry points stay for databases still at 1.0).
DROP FUNCTION sbf_union_agg_trans(internal, scalablebloom);
DROP FUNCTION sbf_union_agg_final(internal);
DROP FUNCTION sbf_union_agg_combine(internal, internal);
DROP FUNCTION sbf_union_agg_serialize(internal);
DROP FUNCTION sbf_union_agg_deserialize(bytea, internal);

-------------------------------------------------------------------------------
-- UNION WITH AN EXPLICIT BUDGET (src/sbf_ops.c)
-------------------------------------------------------------------------------

-- The union policy (README, "Merging"): OR where segments share a geometry
-- and the OR stays within the design fill, append otherwise, and refuse
-- (22023, with the error_rate that would fit) a result whose fpr_bound
-- exceeds its error_rate -- except with tightening 1 (no compound bound).
COMMENT ON FUNCTION sbf_union(scalablebloom, scalablebloom) IS
	'filter containing the elements of both filters (same error_rate, growth and tightening required); an error (22023) if its fpr_bound would exceed the error_rate, unless tightening is 1; NULL is the empty set';

-- An explicit error_rate is the result's budget; it lets filters of different
-- error_rate unite (growth, tightening and hash must still match).  Not
-- STRICT: a NULL filter is the empty set, a NULL error_rate the filters' own.
CREATE FUNCTION sbf_union(scalablebloom, scalablebloom, error_rate float8) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_union_budget_pg'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

COMMENT ON FUNCTION sbf_union(scalablebloom, scalablebloom, float8) IS
	'filter containing the elements of both filters with the given error_rate as its budget (filters may differ in error_rate; growth and tightening must match); an error (22023) if its fpr_bound would exceed it, unless tightening is 1';

CREATE FUNCTION sbf_union_agg_step(scalablebloom, scalablebloom, float8) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_union_agg_step_budget'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

COMMENT ON FUNCTION sbf_union_agg_step(scalablebloom, scalablebloom, float8) IS
	'sbf_union_agg(filter, error_rate) transition: adds a filter''s segments to the collection whose budget is error_rate (the same in every row)';

CREATE AGGREGATE sbf_union_agg(filter scalablebloom, error_rate float8) (
	SFUNC = sbf_union_agg_step,
	STYPE = scalablebloom,
	FINALFUNC = sbf_union_agg_result,
	COMBINEFUNC = sbf_union_agg_merge,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE sbf_union_agg(scalablebloom, float8) IS
	'union of the non-NULL filters with the given error_rate (the same in every row; NULL means the filters'' own) as its budget; filters may differ in error_rate; an error (22023) if its fpr_bound would exceed it, unless tightening is 1; NULL for zero rows';

-------------------------------------------------------------------------------
-- LIFECYCLE: sbf_delta (src/sbf_ops.c)
-------------------------------------------------------------------------------
