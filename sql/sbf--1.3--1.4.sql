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
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION sbf_debug_plan_builds() IS
	'Lookup plans this backend has built (a diagnostic for tests: a stored value is planned once per query, not once per call).';

-- ---------------------------------------------------------------------------
-- B-tree operator classes (src: the byte comparisons of bytea, as = already is)
-- ---------------------------------------------------------------------------
-- The order compares the canonical bytes: memcmp over the common length, then
-- the shorter first, the order bytea has.  It is consistent with = (byteaeq)
-- and the hash classes, and means nothing beyond "the same bytes sort
-- together": it lets count(DISTINCT), ORDER BY, sorted grouping and unique
-- indexes work.  It says nothing about the sets the values hold.

CREATE FUNCTION sbf_lt(scalablebloom, scalablebloom) RETURNS boolean
	AS 'bytealt'
	LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_lt(scalablebloom, scalablebloom) IS
	'payload bytes sort before (implements <; an order of bytes, not of sets)';
CREATE FUNCTION sbf_le(scalablebloom, scalablebloom) RETURNS boolean
	AS 'byteale'
	LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_le(scalablebloom, scalablebloom) IS
	'payload bytes sort before or are equal (implements <=; an order of bytes, not of sets)';
CREATE FUNCTION sbf_ge(scalablebloom, scalablebloom) RETURNS boolean
	AS 'byteage'
	LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_ge(scalablebloom, scalablebloom) IS
	'payload bytes sort after or are equal (implements >=; an order of bytes, not of sets)';
CREATE FUNCTION sbf_gt(scalablebloom, scalablebloom) RETURNS boolean
	AS 'byteagt'
	LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_gt(scalablebloom, scalablebloom) IS
	'payload bytes sort after (implements >; an order of bytes, not of sets)';
CREATE FUNCTION sbf_cmp(scalablebloom, scalablebloom) RETURNS integer
	AS 'byteacmp'
	LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_cmp(scalablebloom, scalablebloom) IS
	'compare payload bytes (memcmp over the common length, then the length), for the btree operator class';

CREATE OPERATOR < (
	LEFTARG = scalablebloom, RIGHTARG = scalablebloom, FUNCTION = sbf_lt,
	COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
	LEFTARG = scalablebloom, RIGHTARG = scalablebloom, FUNCTION = sbf_le,
	COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR >= (
	LEFTARG = scalablebloom, RIGHTARG = scalablebloom, FUNCTION = sbf_ge,
	COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel
);
CREATE OPERATOR > (
	LEFTARG = scalablebloom, RIGHTARG = scalablebloom, FUNCTION = sbf_gt,
	COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
COMMENT ON OPERATOR < (scalablebloom, scalablebloom) IS
	'payload bytes sort before: an order of bytes that means nothing beyond "the same bytes sort together"';
COMMENT ON OPERATOR <= (scalablebloom, scalablebloom) IS
	'payload bytes sort before or are equal: an order of bytes, not of sets';
COMMENT ON OPERATOR >= (scalablebloom, scalablebloom) IS
	'payload bytes sort after or are equal: an order of bytes, not of sets';
COMMENT ON OPERATOR > (scalablebloom, scalablebloom) IS
	'payload bytes sort after: an order of bytes that means nothing beyond "the same bytes sort together"';

CREATE OPERATOR CLASS scalablebloom_btree_ops
	DEFAULT FOR TYPE scalablebloom USING btree AS
		OPERATOR 1 < (scalablebloom, scalablebloom),
		OPERATOR 2 <= (scalablebloom, scalablebloom),
		OPERATOR 3 = (scalablebloom, scalablebloom),
		OPERATOR 4 >= (scalablebloom, scalablebloom),
		OPERATOR 5 > (scalablebloom, scalablebloom),
		FUNCTION 1 sbf_cmp(scalablebloom, scalablebloom),
		FUNCTION 4 (scalablebloom, scalablebloom) btequalimage(oid);
COMMENT ON OPERATOR CLASS scalablebloom_btree_ops USING btree IS
	'order of scalablebloom payload bytes: count(DISTINCT), ORDER BY and unique indexes; the order means nothing beyond "the same bytes sort together"';
COMMENT ON OPERATOR FAMILY scalablebloom_btree_ops USING btree IS
	'order of scalablebloom payload bytes';

CREATE FUNCTION sbf_hashset_lt(sbf_hashset, sbf_hashset) RETURNS boolean
	AS 'bytealt'
	LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_hashset_lt(sbf_hashset, sbf_hashset) IS
	'bytes sort before (implements <; an order of bytes, not of sets)';
CREATE FUNCTION sbf_hashset_le(sbf_hashset, sbf_hashset) RETURNS boolean
	AS 'byteale'
	LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_hashset_le(sbf_hashset, sbf_hashset) IS
	'bytes sort before or are equal (implements <=; an order of bytes, not of sets)';
CREATE FUNCTION sbf_hashset_ge(sbf_hashset, sbf_hashset) RETURNS boolean
	AS 'byteage'
	LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_hashset_ge(sbf_hashset, sbf_hashset) IS
	'bytes sort after or are equal (implements >=; an order of bytes, not of sets)';
CREATE FUNCTION sbf_hashset_gt(sbf_hashset, sbf_hashset) RETURNS boolean
	AS 'byteagt'
	LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_hashset_gt(sbf_hashset, sbf_hashset) IS
	'bytes sort after (implements >; an order of bytes, not of sets)';
CREATE FUNCTION sbf_hashset_cmp(sbf_hashset, sbf_hashset) RETURNS integer
	AS 'byteacmp'
	LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_hashset_cmp(sbf_hashset, sbf_hashset) IS
	'compare the bytes (memcmp over the common length, then the length), for the btree operator class';

CREATE OPERATOR < (
	LEFTARG = sbf_hashset, RIGHTARG = sbf_hashset, FUNCTION = sbf_hashset_lt,
	COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
	LEFTARG = sbf_hashset, RIGHTARG = sbf_hashset, FUNCTION = sbf_hashset_le,
	COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR >= (
	LEFTARG = sbf_hashset, RIGHTARG = sbf_hashset, FUNCTION = sbf_hashset_ge,
	COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel
);
CREATE OPERATOR > (
	LEFTARG = sbf_hashset, RIGHTARG = sbf_hashset, FUNCTION = sbf_hashset_gt,
	COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
COMMENT ON OPERATOR < (sbf_hashset, sbf_hashset) IS
	'bytes sort before: an order of bytes that means nothing beyond "the same bytes sort together"';
COMMENT ON OPERATOR <= (sbf_hashset, sbf_hashset) IS
	'bytes sort before or are equal: an order of bytes, not of sets';
COMMENT ON OPERATOR >= (sbf_hashset, sbf_hashset) IS
	'bytes sort after or are equal: an order of bytes, not of sets';
COMMENT ON OPERATOR > (sbf_hashset, sbf_hashset) IS
	'bytes sort after: an order of bytes that means nothing beyond "the same bytes sort together"';

CREATE OPERATOR CLASS sbf_hashset_btree_ops
	DEFAULT FOR TYPE sbf_hashset USING btree AS
		OPERATOR 1 < (sbf_hashset, sbf_hashset),
		OPERATOR 2 <= (sbf_hashset, sbf_hashset),
		OPERATOR 3 = (sbf_hashset, sbf_hashset),
		OPERATOR 4 >= (sbf_hashset, sbf_hashset),
		OPERATOR 5 > (sbf_hashset, sbf_hashset),
		FUNCTION 1 sbf_hashset_cmp(sbf_hashset, sbf_hashset),
		FUNCTION 4 (sbf_hashset, sbf_hashset) btequalimage(oid);
COMMENT ON OPERATOR CLASS sbf_hashset_btree_ops USING btree IS
	'order of sbf_hashset bytes: count(DISTINCT), ORDER BY and unique indexes; the order means nothing beyond "the same bytes sort together"';
COMMENT ON OPERATOR FAMILY sbf_hashset_btree_ops USING btree IS
	'order of sbf_hashset bytes';
