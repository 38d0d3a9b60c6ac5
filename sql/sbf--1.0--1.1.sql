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
-- LIFECYCLE: sbf_delta (src/sbf_ops.c)
-------------------------------------------------------------------------------

-------------------------------------------------------------------------------
-- CORRECTED COMMENTS: 1.0's script is frozen, so its stale comments are
-- replaced here (a fresh install runs both scripts and ends the same)
-------------------------------------------------------------------------------

-- 1.0's comment listed a per-segment "tier" that sbf_info never emitted.
COMMENT ON FUNCTION sbf_info(scalablebloom) IS
	'format version, hash, parameters, HyperLogLog, cardinality, false-positive bound and estimate, bytes, and per-segment capacity, count, bits, hashes, fill and error_rate';
