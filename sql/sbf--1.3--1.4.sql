/* sbf--1.3--1.4.sql: update sbf 1.3 to 1.4 (ALTER EXTENSION sbf UPDATE) */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "ALTER EXTENSION sbf UPDATE TO '1.4'" to load this file. \quit

-- Every SQL object new in 1.4 is created here.  A fresh CREATE EXTENSION sbf
-- runs sbf--1.4.sql, which the Makefile builds as sbf--1.0.sql, then the
-- update scripts in order, ending with this file, so both paths end with the
-- same catalog.  Values stored by 1.0 to 1.3 keep reading: see docs/format.md.

-- A diagnostic of the lookup path (issue 35): how many lookup plans this
-- backend has built.  A stored value's header and directory are decoded
-- into a plan once per value per query (or once per session for values kept
-- in the session cache), so a join that probes one filter for 120 rows adds
-- 1 here, not 120.  For tests; not part of the stable interface.
CREATE FUNCTION sbf_debug_plan_builds() RETURNS bigint
AS 'MODULE_PATHNAME', 'sbf_debug_plan_builds'
LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_debug_plan_builds() IS
	'Lookup plans this backend has built (a diagnostic for tests: a stored value is planned once per query, not once per call).';
