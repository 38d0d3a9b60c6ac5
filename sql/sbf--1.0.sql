/* sbf--1.0.sql: install script for sbf 1.0 */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION sbf" to load this file. \quit

-------------------------------------------------------------------------------
-- TYPE, I/O, CASTS, FUNCTIONS AND OPERATORS (src/pg/sbf_io.c, src/pg/sbf_ops.c)
-------------------------------------------------------------------------------

-- The type: a varlena holding a format-v1 payload (see src/core/common/sbf_core.h).
-- STORAGE external: bit arrays do not compress, and uncompressed out-of-line
-- values can be read in slices.
CREATE TYPE scalablebloom;

CREATE FUNCTION scalablebloom_in(cstring) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_in'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION scalablebloom_out(scalablebloom) RETURNS cstring
	AS 'MODULE_PATHNAME', 'sbf_out'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION scalablebloom_recv(internal) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_recv'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION scalablebloom_send(scalablebloom) RETURNS bytea
	AS 'MODULE_PATHNAME', 'sbf_send'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE scalablebloom (
	INPUT = scalablebloom_in,
	OUTPUT = scalablebloom_out,
	RECEIVE = scalablebloom_recv,
	SEND = scalablebloom_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = external,
	-- Hashing ignores collation.  The type is collatable only because
	-- postgres_fdw (PostgreSQL 15) ships a condition such as
	-- seen @> 'sku:1' to a remote server only when the collation of its text
	-- operand can be traced to a column of the foreign table; a collatable
	-- filter column provides that, so membership tests run on the shards.
	COLLATABLE = true
);

COMMENT ON TYPE scalablebloom IS
	'scalable Bloom filter (segments that grow and tighten) with an embedded HyperLogLog; text form ''sbf1:'' followed by base64 of the format-v1 payload';
COMMENT ON FUNCTION scalablebloom_in(cstring) IS
	'text input of scalablebloom: ''sbf1:'' followed by base64, fully validated';
COMMENT ON FUNCTION scalablebloom_out(scalablebloom) IS
	'text output of scalablebloom: ''sbf1:'' followed by base64 of the payload';
COMMENT ON FUNCTION scalablebloom_recv(internal) IS
	'binary input of scalablebloom: the raw format-v1 payload, fully validated';
COMMENT ON FUNCTION scalablebloom_send(scalablebloom) IS
	'binary output of scalablebloom: the raw format-v1 payload';

-- Casts.  A scalablebloom is a varlena whose data is the payload, so the cast
-- to bytea returns the value as it is; the way back validates.  Both are
-- explicit.  (WITHOUT FUNCTION is impossible: the alignments differ.)
CREATE FUNCTION scalablebloom(bytea) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_from_bytea'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bytea(scalablebloom) RETURNS bytea
	AS 'MODULE_PATHNAME', 'sbf_to_bytea'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE CAST (bytea AS scalablebloom) WITH FUNCTION scalablebloom(bytea);
CREATE CAST (scalablebloom AS bytea) WITH FUNCTION bytea(scalablebloom);

COMMENT ON FUNCTION scalablebloom(bytea) IS
	'scalablebloom from its format-v1 payload bytes, fully validated';
COMMENT ON FUNCTION bytea(scalablebloom) IS
	'the format-v1 payload bytes of a scalablebloom';
COMMENT ON CAST (bytea AS scalablebloom) IS
	'reads a format-v1 payload, fully validated';
COMMENT ON CAST (scalablebloom AS bytea) IS
	'the format-v1 payload bytes';

-- Creating.
CREATE FUNCTION sbf_empty(capacity bigint DEFAULT 1000,
						  error_rate float8 DEFAULT 0.01,
						  growth integer DEFAULT 2,
						  tightening float8 DEFAULT 0.9)
	RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_empty'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION sbf_empty(bigint, float8, integer, float8) IS
	'empty filter whose first segment holds capacity elements at a false-positive rate below error_rate; each new segment is growth times larger and tightening times stricter';

-- Adding.  Not STRICT: a NULL filter starts a default one (sbf_empty()), a
-- NULL element returns the filter unchanged, so no filter is lost to NULL.
CREATE FUNCTION sbf_add(filter scalablebloom, element text) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_add_text'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION sbf_add(filter scalablebloom, element bigint) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_add_int8'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION sbf_add(filter scalablebloom, element bytea) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_add_bytea'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION sbf_add(filter scalablebloom, elements text[]) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_add_text_array'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION sbf_add(filter scalablebloom, elements bigint[]) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_add_int8_array'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

COMMENT ON FUNCTION sbf_add(scalablebloom, text) IS
	'filter with a text element added; a NULL filter starts sbf_empty(), a NULL element leaves the filter unchanged';
COMMENT ON FUNCTION sbf_add(scalablebloom, bigint) IS
	'filter with a bigint element added (hashed as 8 bytes little-endian); a NULL filter starts sbf_empty(), a NULL element leaves the filter unchanged';
COMMENT ON FUNCTION sbf_add(scalablebloom, bytea) IS
	'filter with a bytea element added; a NULL filter starts sbf_empty(), a NULL element leaves the filter unchanged';
COMMENT ON FUNCTION sbf_add(scalablebloom, text[]) IS
	'filter with every non-NULL array element added; a NULL filter starts sbf_empty(), a NULL array leaves the filter unchanged';
COMMENT ON FUNCTION sbf_add(scalablebloom, bigint[]) IS
	'filter with every non-NULL array element added; a NULL filter starts sbf_empty(), a NULL array leaves the filter unchanged';

-- Union.  Not STRICT: the union with NULL is the other filter.
CREATE FUNCTION sbf_union(scalablebloom, scalablebloom) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_union_pg'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

COMMENT ON FUNCTION sbf_union(scalablebloom, scalablebloom) IS
	'filter containing the elements of both filters (same error_rate, growth and tightening required); NULL is the empty set';

-- The function behind scalablebloom || anyelement: the union when the right
-- side is a scalablebloom, else an add of a text, bigint, integer, smallint
-- or bytea value or of an array of text or integers (integer and smallint
-- hash as the equal bigint).
CREATE FUNCTION sbf_concat(scalablebloom, anyelement) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_concat_any'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

COMMENT ON FUNCTION sbf_concat(scalablebloom, anyelement) IS
	'implementation of scalablebloom || value: sbf_union for a scalablebloom, sbf_add for text, bigint, integer, smallint, bytea, or arrays of text or integers';

-- Only three || operators, chosen so that the extension changes the meaning
-- of no expression without a scalablebloom in it:
--  * there is no ||(scalablebloom, scalablebloom): with it, an unknown literal
--    on the right would take the scalablebloom type, and  seen || 'sku:42'
--    would try to parse 'sku:42' as a filter.  The union goes through
--    anyelement instead.
--  * there is no || for bigint, integer, smallint or arrays: an operator with
--    an exact match on the right wins over text || anynonarray when the left
--    side is an unknown literal, so  'sku:' || 42  (or NULL || 42, or
--    '{a}' || ARRAY['b']) would parse the literal as a scalablebloom in every
--    query of the database.  anyelement takes these types at run time.
--  * || text and || bytea are safe: text || text and bytea || bytea match a
--    literal exactly and win.
CREATE OPERATOR || (LEFTARG = scalablebloom, RIGHTARG = text, FUNCTION = sbf_add);
CREATE OPERATOR || (LEFTARG = scalablebloom, RIGHTARG = bytea, FUNCTION = sbf_add);
CREATE OPERATOR || (LEFTARG = scalablebloom, RIGHTARG = anyelement, FUNCTION = sbf_concat);

COMMENT ON OPERATOR || (scalablebloom, text) IS 'filter with the element added';
COMMENT ON OPERATOR || (scalablebloom, bytea) IS 'filter with the element added';
COMMENT ON OPERATOR || (scalablebloom, anyelement) IS
	'union with another scalablebloom, or the element (bigint, integer, smallint) or array elements added';

-- Membership.  STRICT: nothing is known about a NULL element or filter.
CREATE FUNCTION sbf_contains(filter scalablebloom, element text) RETURNS boolean
	AS 'MODULE_PATHNAME', 'sbf_contains_text'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION sbf_contains(filter scalablebloom, element bigint) RETURNS boolean
	AS 'MODULE_PATHNAME', 'sbf_contains_int8'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION sbf_contains(filter scalablebloom, element bytea) RETURNS boolean
	AS 'MODULE_PATHNAME', 'sbf_contains_bytea'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION sbf_contained(element text, filter scalablebloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'sbf_contained_text'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION sbf_contained(element bigint, filter scalablebloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'sbf_contained_int8'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION sbf_contained(element bytea, filter scalablebloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'sbf_contained_bytea'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION sbf_contains(scalablebloom, text) IS
	'false if the element is definitely not in the filter, true if it probably is';
COMMENT ON FUNCTION sbf_contains(scalablebloom, bigint) IS
	'false if the element is definitely not in the filter, true if it probably is';
COMMENT ON FUNCTION sbf_contains(scalablebloom, bytea) IS
	'false if the element is definitely not in the filter, true if it probably is';
COMMENT ON FUNCTION sbf_contained(text, scalablebloom) IS
	'sbf_contains with the arguments swapped (implements <@)';
COMMENT ON FUNCTION sbf_contained(bigint, scalablebloom) IS
	'sbf_contains with the arguments swapped (implements <@)';
COMMENT ON FUNCTION sbf_contained(bytea, scalablebloom) IS
	'sbf_contains with the arguments swapped (implements <@)';

-- There are no statistics about what filters contain, so the estimators are
-- PostgreSQL's generic containment ones (contsel, contjoinsel: a small
-- constant selectivity).  That suits the typical use, a membership test that
-- passes few rows, and keeps plans stable.
CREATE OPERATOR @> (
	LEFTARG = scalablebloom, RIGHTARG = text, FUNCTION = sbf_contains,
	COMMUTATOR = <@, RESTRICT = contsel, JOIN = contjoinsel
);
CREATE OPERATOR @> (
	LEFTARG = scalablebloom, RIGHTARG = bigint, FUNCTION = sbf_contains,
	COMMUTATOR = <@, RESTRICT = contsel, JOIN = contjoinsel
);
CREATE OPERATOR @> (
	LEFTARG = scalablebloom, RIGHTARG = bytea, FUNCTION = sbf_contains,
	COMMUTATOR = <@, RESTRICT = contsel, JOIN = contjoinsel
);
CREATE OPERATOR <@ (
	LEFTARG = text, RIGHTARG = scalablebloom, FUNCTION = sbf_contained,
	COMMUTATOR = @>, RESTRICT = contsel, JOIN = contjoinsel
);
CREATE OPERATOR <@ (
	LEFTARG = bigint, RIGHTARG = scalablebloom, FUNCTION = sbf_contained,
	COMMUTATOR = @>, RESTRICT = contsel, JOIN = contjoinsel
);
CREATE OPERATOR <@ (
	LEFTARG = bytea, RIGHTARG = scalablebloom, FUNCTION = sbf_contained,
	COMMUTATOR = @>, RESTRICT = contsel, JOIN = contjoinsel
);

COMMENT ON OPERATOR @> (scalablebloom, text) IS 'filter probably contains the element';
COMMENT ON OPERATOR @> (scalablebloom, bigint) IS 'filter probably contains the element';
COMMENT ON OPERATOR @> (scalablebloom, bytea) IS 'filter probably contains the element';
COMMENT ON OPERATOR <@ (text, scalablebloom) IS 'element is probably contained in the filter';
COMMENT ON OPERATOR <@ (bigint, scalablebloom) IS 'element is probably contained in the filter';
COMMENT ON OPERATOR <@ (bytea, scalablebloom) IS 'element is probably contained in the filter';

-- Hit counts for ranking: one detoast, one hash per element.
CREATE FUNCTION sbf_matches(filter scalablebloom, elements text[]) RETURNS integer
	AS 'MODULE_PATHNAME', 'sbf_matches_text'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION sbf_matches(filter scalablebloom, elements bigint[]) RETURNS integer
	AS 'MODULE_PATHNAME', 'sbf_matches_int8'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION sbf_matches(scalablebloom, text[]) IS
	'number of non-NULL array elements probably in the filter; a repeated element counts each time';
COMMENT ON FUNCTION sbf_matches(scalablebloom, bigint[]) IS
	'number of non-NULL array elements probably in the filter; a repeated element counts each time';

-- Distinct count.
CREATE FUNCTION sbf_cardinality(scalablebloom) RETURNS bigint
	AS 'MODULE_PATHNAME', 'sbf_cardinality_pg'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR # (RIGHTARG = scalablebloom, FUNCTION = sbf_cardinality);

COMMENT ON FUNCTION sbf_cardinality(scalablebloom) IS
	'HyperLogLog estimate of the number of distinct elements added, rounded';
COMMENT ON OPERATOR # (NONE, scalablebloom) IS
	'HyperLogLog estimate of the number of distinct elements added';

-- Introspection.
CREATE FUNCTION sbf_info(scalablebloom) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'sbf_info'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION sbf_info(scalablebloom) IS
	'format version, hash, parameters, HyperLogLog, cardinality, false-positive bound and estimate, bytes, and per-segment capacity, count, bits, hashes, tier, fill and error_rate';

-------------------------------------------------------------------------------
-- AGGREGATES (src/pg/sbf_agg.c)
-------------------------------------------------------------------------------

-- sbf_agg(element [, error_rate]).  The transition state (internal) is the
-- set of distinct element hashes, so the final function knows the real count
-- n and builds one segment right-sized for it (src/pg/sbf_agg.c); past 10 Mi
-- distinct elements in one group the state streams into a growing filter.
-- NULL elements are skipped; a NULL error_rate means 0.01.  Zero rows (or
-- only NULL elements) give NULL, like PostgreSQL's own aggregates: wrap it
-- in coalesce(sbf_agg(x), sbf_empty()) for an empty filter instead.  The
-- support functions are not STRICT: the state starts on the first non-NULL
-- element, and a combine must see NULL states.  SSPACE is the planner's
-- estimate of one group's state for hash aggregation: 144 = the 128 bytes of
-- a new state (SbfAggState with its eight-hash inline buffer, src/pg/sbf_agg.c)
-- plus palloc's 16-byte chunk header; a group that grows past eight distinct
-- elements allocates more, as the planner cannot know in advance.
CREATE FUNCTION sbf_agg_trans(internal, text) RETURNS internal
	AS 'MODULE_PATHNAME', 'sbf_agg_trans_text'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION sbf_agg_trans(internal, text, float8) RETURNS internal
	AS 'MODULE_PATHNAME', 'sbf_agg_trans_text'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION sbf_agg_trans(internal, bigint) RETURNS internal
	AS 'MODULE_PATHNAME', 'sbf_agg_trans_int8'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION sbf_agg_trans(internal, bigint, float8) RETURNS internal
	AS 'MODULE_PATHNAME', 'sbf_agg_trans_int8'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION sbf_agg_trans(internal, bytea) RETURNS internal
	AS 'MODULE_PATHNAME', 'sbf_agg_trans_bytea'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION sbf_agg_trans(internal, bytea, float8) RETURNS internal
	AS 'MODULE_PATHNAME', 'sbf_agg_trans_bytea'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION sbf_agg_final(internal) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_agg_final'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION sbf_agg_combine(internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'sbf_agg_combine'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION sbf_agg_serialize(internal) RETURNS bytea
	AS 'MODULE_PATHNAME', 'sbf_agg_serialize'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION sbf_agg_deserialize(bytea, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'sbf_agg_deserialize'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION sbf_agg_trans(internal, text) IS
	'sbf_agg transition: adds the hash of a text element to the set of distinct hashes';
COMMENT ON FUNCTION sbf_agg_trans(internal, text, float8) IS
	'sbf_agg transition: adds the hash of a text element; error_rate must be the same in every row';
COMMENT ON FUNCTION sbf_agg_trans(internal, bigint) IS
	'sbf_agg transition: adds the hash of a bigint element (8 bytes little-endian)';
COMMENT ON FUNCTION sbf_agg_trans(internal, bigint, float8) IS
	'sbf_agg transition: adds the hash of a bigint element; error_rate must be the same in every row';
COMMENT ON FUNCTION sbf_agg_trans(internal, bytea) IS
	'sbf_agg transition: adds the hash of a bytea element';
COMMENT ON FUNCTION sbf_agg_trans(internal, bytea, float8) IS
	'sbf_agg transition: adds the hash of a bytea element; error_rate must be the same in every row';
COMMENT ON FUNCTION sbf_agg_final(internal) IS
	'sbf_agg final: a filter whose first segment is right-sized for the distinct elements seen';
COMMENT ON FUNCTION sbf_agg_combine(internal, internal) IS
	'sbf_agg combine: exact union of two partial hash sets';
COMMENT ON FUNCTION sbf_agg_serialize(internal) IS
	'sbf_agg serialize: partial state as a small versioned bytea';
COMMENT ON FUNCTION sbf_agg_deserialize(bytea, internal) IS
	'sbf_agg deserialize: partial state from bytea, fully validated';

CREATE AGGREGATE sbf_agg(element text) (
	SFUNC = sbf_agg_trans,
	STYPE = internal,
	SSPACE = 144,
	FINALFUNC = sbf_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	COMBINEFUNC = sbf_agg_combine,
	SERIALFUNC = sbf_agg_serialize,
	DESERIALFUNC = sbf_agg_deserialize,
	PARALLEL = SAFE
);

CREATE AGGREGATE sbf_agg(element text, error_rate float8) (
	SFUNC = sbf_agg_trans,
	STYPE = internal,
	SSPACE = 144,
	FINALFUNC = sbf_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	COMBINEFUNC = sbf_agg_combine,
	SERIALFUNC = sbf_agg_serialize,
	DESERIALFUNC = sbf_agg_deserialize,
	PARALLEL = SAFE
);

CREATE AGGREGATE sbf_agg(element bigint) (
	SFUNC = sbf_agg_trans,
	STYPE = internal,
	SSPACE = 144,
	FINALFUNC = sbf_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	COMBINEFUNC = sbf_agg_combine,
	SERIALFUNC = sbf_agg_serialize,
	DESERIALFUNC = sbf_agg_deserialize,
	PARALLEL = SAFE
);

CREATE AGGREGATE sbf_agg(element bigint, error_rate float8) (
	SFUNC = sbf_agg_trans,
	STYPE = internal,
	SSPACE = 144,
	FINALFUNC = sbf_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	COMBINEFUNC = sbf_agg_combine,
	SERIALFUNC = sbf_agg_serialize,
	DESERIALFUNC = sbf_agg_deserialize,
	PARALLEL = SAFE
);

CREATE AGGREGATE sbf_agg(element bytea) (
	SFUNC = sbf_agg_trans,
	STYPE = internal,
	SSPACE = 144,
	FINALFUNC = sbf_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	COMBINEFUNC = sbf_agg_combine,
	SERIALFUNC = sbf_agg_serialize,
	DESERIALFUNC = sbf_agg_deserialize,
	PARALLEL = SAFE
);

CREATE AGGREGATE sbf_agg(element bytea, error_rate float8) (
	SFUNC = sbf_agg_trans,
	STYPE = internal,
	SSPACE = 144,
	FINALFUNC = sbf_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	COMBINEFUNC = sbf_agg_combine,
	SERIALFUNC = sbf_agg_serialize,
	DESERIALFUNC = sbf_agg_deserialize,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE sbf_agg(text) IS
	'filter of the non-NULL text elements at error_rate 0.01, right-sized for their distinct count; NULL for zero rows';
COMMENT ON AGGREGATE sbf_agg(text, float8) IS
	'filter of the non-NULL text elements at the given error_rate (the same in every row; NULL means 0.01), right-sized for their distinct count; NULL for zero rows';
COMMENT ON AGGREGATE sbf_agg(bigint) IS
	'filter of the non-NULL bigint elements at error_rate 0.01, right-sized for their distinct count; NULL for zero rows';
COMMENT ON AGGREGATE sbf_agg(bigint, float8) IS
	'filter of the non-NULL bigint elements at the given error_rate (the same in every row; NULL means 0.01), right-sized for their distinct count; NULL for zero rows';
COMMENT ON AGGREGATE sbf_agg(bytea) IS
	'filter of the non-NULL bytea elements at error_rate 0.01, right-sized for their distinct count; NULL for zero rows';
COMMENT ON AGGREGATE sbf_agg(bytea, float8) IS
	'filter of the non-NULL bytea elements at the given error_rate (the same in every row; NULL means 0.01), right-sized for their distinct count; NULL for zero rows';

-- sbf_union_agg(filter).  The state is a mutable filter: a copy of the first
-- non-NULL input, then sbf_union with each next one (same parameters
-- required).  Zero rows (or only NULLs) give NULL.
CREATE FUNCTION sbf_union_agg_trans(internal, scalablebloom) RETURNS internal
	AS 'MODULE_PATHNAME', 'sbf_union_agg_trans'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION sbf_union_agg_final(internal) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_union_agg_final'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION sbf_union_agg_combine(internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'sbf_union_agg_combine'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION sbf_union_agg_serialize(internal) RETURNS bytea
	AS 'MODULE_PATHNAME', 'sbf_union_agg_serialize'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION sbf_union_agg_deserialize(bytea, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'sbf_union_agg_deserialize'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION sbf_union_agg_trans(internal, scalablebloom) IS
	'sbf_union_agg transition: unites a filter into the running union';
COMMENT ON FUNCTION sbf_union_agg_final(internal) IS
	'sbf_union_agg final: the united filter';
COMMENT ON FUNCTION sbf_union_agg_combine(internal, internal) IS
	'sbf_union_agg combine: sbf_union of two partial unions';
COMMENT ON FUNCTION sbf_union_agg_serialize(internal) IS
	'sbf_union_agg serialize: the format-v1 payload of the partial union';
COMMENT ON FUNCTION sbf_union_agg_deserialize(bytea, internal) IS
	'sbf_union_agg deserialize: a format-v1 payload, fully validated';

CREATE AGGREGATE sbf_union_agg(filter scalablebloom) (
	SFUNC = sbf_union_agg_trans,
	STYPE = internal,
	SSPACE = 1024,
	FINALFUNC = sbf_union_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	COMBINEFUNC = sbf_union_agg_combine,
	SERIALFUNC = sbf_union_agg_serialize,
	DESERIALFUNC = sbf_union_agg_deserialize,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE sbf_union_agg(scalablebloom) IS
	'union of the non-NULL filters (same error_rate, growth and tightening required); NULL for zero rows';
