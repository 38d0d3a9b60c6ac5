/* sbf--1.2--1.3.sql: update sbf 1.2 to 1.3 (ALTER EXTENSION sbf UPDATE) */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "ALTER EXTENSION sbf UPDATE TO '1.3'" to load this file. \quit

-- Every SQL object new in 1.3 is created here.  A fresh CREATE EXTENSION sbf
-- runs sbf--1.3.sql, which the Makefile builds as sbf--1.0.sql, then the
-- update scripts in order, ending with this file, so both paths end with the
-- same catalog.  Values stored by 1.0, 1.1 and 1.2 keep reading: see
-- docs/format.md.

-------------------------------------------------------------------------------
-- EQUALITY: = and <> with a hash operator class
-------------------------------------------------------------------------------

-- Two values are equal when their payloads are the same bytes.  Every writer
-- is canonical (the bytes depend only on what was added and how: sbf_agg and
-- sbf_build on the set of elements and the error rate, a union not on the
-- order of its inputs), so equal sets built the same way compare equal.  Two
-- filters holding the same elements built differently (grown by || and built
-- by sbf_agg, or with another error_rate) are different values: a filter
-- cannot tell which elements it holds, so no other equality is possible.
--
-- Both types are varlenas whose data is the payload, so PostgreSQL's own
-- bytea functions compare and hash them as they are (detoasted, whatever
-- their storage): byteaeq and byteane compare the bytes, hashvarlena and
-- hashvarlenaextended hash them.  Collation is ignored.
--
-- An sbf_hashset's encoding is canonical too (the Rice parameter that gives
-- the fewest bytes), so hash sets that sbf built are equal exactly when they
-- hold the same hashes; a crafted value with another Rice parameter reads as
-- the same set but is a different value.
--
-- There is no btree operator class: the byte order of two filters means
-- nothing about their sets, so <, ORDER BY and btree indexes stay errors;
-- DISTINCT, GROUP BY, UNION, hash joins and hash indexes use the hash class.

CREATE FUNCTION sbf_eq(scalablebloom, scalablebloom) RETURNS boolean
	AS 'byteaeq'
	LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_eq(scalablebloom, scalablebloom) IS
	'filters are equal: the same payload bytes (implements =)';

CREATE FUNCTION sbf_ne(scalablebloom, scalablebloom) RETURNS boolean
	AS 'byteane'
	LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_ne(scalablebloom, scalablebloom) IS
	'filters differ: not the same payload bytes (implements <>)';

CREATE FUNCTION sbf_hash_value(scalablebloom) RETURNS integer
	AS 'hashvarlena'
	LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_hash_value(scalablebloom) IS
	'hash of the payload bytes, for the hash operator class of =';

CREATE FUNCTION sbf_hash_value_extended(scalablebloom, bigint) RETURNS bigint
	AS 'hashvarlenaextended'
	LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_hash_value_extended(scalablebloom, bigint) IS
	'64-bit seeded hash of the payload bytes, for the hash operator class of =';

CREATE OPERATOR = (
	LEFTARG = scalablebloom, RIGHTARG = scalablebloom, FUNCTION = sbf_eq,
	COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES
);
CREATE OPERATOR <> (
	LEFTARG = scalablebloom, RIGHTARG = scalablebloom, FUNCTION = sbf_ne,
	COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel
);
COMMENT ON OPERATOR = (scalablebloom, scalablebloom) IS
	'equal: the same payload bytes (equal sets built the same way)';
COMMENT ON OPERATOR <> (scalablebloom, scalablebloom) IS
	'not equal: different payload bytes';

CREATE OPERATOR CLASS scalablebloom_hash_ops
	DEFAULT FOR TYPE scalablebloom USING hash AS
		OPERATOR 1 = (scalablebloom, scalablebloom),
		FUNCTION 1 sbf_hash_value(scalablebloom),
		FUNCTION 2 sbf_hash_value_extended(scalablebloom, bigint);
COMMENT ON OPERATOR CLASS scalablebloom_hash_ops USING hash IS
	'hashing of scalablebloom payload bytes: DISTINCT, GROUP BY, UNION, hash joins and hash indexes on =';
COMMENT ON OPERATOR FAMILY scalablebloom_hash_ops USING hash IS
	'hashing of scalablebloom payload bytes';

CREATE FUNCTION sbf_hashset_eq(sbf_hashset, sbf_hashset) RETURNS boolean
	AS 'byteaeq'
	LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_hashset_eq(sbf_hashset, sbf_hashset) IS
	'hash sets are equal: the same bytes, so the same set of hashes (implements =)';

CREATE FUNCTION sbf_hashset_ne(sbf_hashset, sbf_hashset) RETURNS boolean
	AS 'byteane'
	LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_hashset_ne(sbf_hashset, sbf_hashset) IS
	'hash sets differ: not the same bytes (implements <>)';

CREATE FUNCTION sbf_hashset_hash_value(sbf_hashset) RETURNS integer
	AS 'hashvarlena'
	LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_hashset_hash_value(sbf_hashset) IS
	'hash of the sbf_hashset bytes, for the hash operator class of =';

CREATE FUNCTION sbf_hashset_hash_value_extended(sbf_hashset, bigint) RETURNS bigint
	AS 'hashvarlenaextended'
	LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sbf_hashset_hash_value_extended(sbf_hashset, bigint) IS
	'64-bit seeded hash of the sbf_hashset bytes, for the hash operator class of =';

CREATE OPERATOR = (
	LEFTARG = sbf_hashset, RIGHTARG = sbf_hashset, FUNCTION = sbf_hashset_eq,
	COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES
);
CREATE OPERATOR <> (
	LEFTARG = sbf_hashset, RIGHTARG = sbf_hashset, FUNCTION = sbf_hashset_ne,
	COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel
);
COMMENT ON OPERATOR = (sbf_hashset, sbf_hashset) IS
	'equal: the same bytes (sbf writes one encoding per set, so sets it built are equal when they hold the same hashes)';
COMMENT ON OPERATOR <> (sbf_hashset, sbf_hashset) IS
	'not equal: different sets of element hashes';

CREATE OPERATOR CLASS sbf_hashset_hash_ops
	DEFAULT FOR TYPE sbf_hashset USING hash AS
		OPERATOR 1 = (sbf_hashset, sbf_hashset),
		FUNCTION 1 sbf_hashset_hash_value(sbf_hashset),
		FUNCTION 2 sbf_hashset_hash_value_extended(sbf_hashset, bigint);
COMMENT ON OPERATOR CLASS sbf_hashset_hash_ops USING hash IS
	'hashing of sbf_hashset bytes: DISTINCT, GROUP BY, UNION, hash joins and hash indexes on =';
COMMENT ON OPERATOR FAMILY sbf_hashset_hash_ops USING hash IS
	'hashing of sbf_hashset bytes';
