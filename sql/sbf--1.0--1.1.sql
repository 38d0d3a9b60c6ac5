/* sbf--1.0--1.1.sql: update sbf 1.0 to 1.1 (ALTER EXTENSION sbf UPDATE) */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "ALTER EXTENSION sbf UPDATE TO '1.1'" to load this file. \quit

-- Every SQL object new in 1.1 is created here.  A fresh CREATE EXTENSION sbf
-- runs sbf--1.1.sql, which the Makefile builds as sbf--1.0.sql followed by
-- this file, so both paths end with the same catalog.  Values stored by 1.0
-- (format 1) keep reading: see "FORMAT" in src/core/common/sbf_core.h.

-------------------------------------------------------------------------------
-- MERGING: TYPE sbf_hashset, ITS AGGREGATES, sbf_build (src/pg/sbf_hashset.c)
-------------------------------------------------------------------------------

-- The type: sorted distinct 64-bit element hashes, Golomb-Rice gap-coded
-- (format in src/core/hashset/sbf_hashset.h).  Text form 'sbfh1:' + base64; binary
-- form the raw bytes; every way in passes one validator.  STORAGE extended:
-- Rice codes hardly compress, but small values stay inline.
CREATE TYPE sbf_hashset;

CREATE FUNCTION sbf_hashset_in(cstring) RETURNS sbf_hashset
	AS 'MODULE_PATHNAME', 'sbf_hashset_in'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION sbf_hashset_out(sbf_hashset) RETURNS cstring
	AS 'MODULE_PATHNAME', 'sbf_hashset_out'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION sbf_hashset_recv(internal) RETURNS sbf_hashset
	AS 'MODULE_PATHNAME', 'sbf_hashset_recv'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION sbf_hashset_send(sbf_hashset) RETURNS bytea
	AS 'MODULE_PATHNAME', 'sbf_hashset_send'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE sbf_hashset (
	INPUT = sbf_hashset_in,
	OUTPUT = sbf_hashset_out,
	RECEIVE = sbf_hashset_recv,
	SEND = sbf_hashset_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = int4,
	STORAGE = extended
);

COMMENT ON TYPE sbf_hashset IS
	'exact, mergeable set of element hashes (sorted, distinct, Golomb-Rice gap-coded); text form ''sbfh1:'' followed by base64';
COMMENT ON FUNCTION sbf_hashset_in(cstring) IS
	'text input of sbf_hashset: ''sbfh1:'' followed by base64, fully validated';
COMMENT ON FUNCTION sbf_hashset_out(sbf_hashset) IS
	'text output of sbf_hashset: ''sbfh1:'' followed by base64 of its bytes';
COMMENT ON FUNCTION sbf_hashset_recv(internal) IS
	'binary input of sbf_hashset: its raw bytes, fully validated';
COMMENT ON FUNCTION sbf_hashset_send(sbf_hashset) IS
	'binary output of sbf_hashset: its raw bytes';

-- Casts with bytea: the same bytes; the way in validates.  Explicit.
CREATE FUNCTION sbf_hashset(bytea) RETURNS sbf_hashset
	AS 'MODULE_PATHNAME', 'sbf_hashset_from_bytea'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bytea(sbf_hashset) RETURNS bytea
	AS 'MODULE_PATHNAME', 'sbf_hashset_to_bytea'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE CAST (bytea AS sbf_hashset) WITH FUNCTION sbf_hashset(bytea);
CREATE CAST (sbf_hashset AS bytea) WITH FUNCTION bytea(sbf_hashset);

COMMENT ON FUNCTION sbf_hashset(bytea) IS
	'sbf_hashset from its bytes, fully validated';
COMMENT ON FUNCTION bytea(sbf_hashset) IS
	'the bytes of an sbf_hashset';
COMMENT ON CAST (bytea AS sbf_hashset) IS
	'reads sbf_hashset bytes, fully validated';
COMMENT ON CAST (sbf_hashset AS bytea) IS
	'the bytes of an sbf_hashset';

-- # h: the exact distinct count.
CREATE FUNCTION sbf_hashset_count(sbf_hashset) RETURNS bigint
	AS 'MODULE_PATHNAME', 'sbf_hashset_count'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR # (
	RIGHTARG = sbf_hashset,
	FUNCTION = sbf_hashset_count
);

COMMENT ON FUNCTION sbf_hashset_count(sbf_hashset) IS
	'exact number of distinct element hashes in the set';
COMMENT ON OPERATOR # (NONE, sbf_hashset) IS
	'exact number of distinct element hashes in the set';

-- sbf_hashset_union(a, b): the exact union.
CREATE FUNCTION sbf_hashset_union(sbf_hashset, sbf_hashset) RETURNS sbf_hashset
	AS 'MODULE_PATHNAME', 'sbf_hashset_union'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION sbf_hashset_union(sbf_hashset, sbf_hashset) IS
	'exact union of two hash sets';

-- sbf_build(h, error_rate): the right-sized filter, byte-identical to sbf_agg
-- over the same elements at that error_rate (one core build, sbf_hs_build),
-- for sets of up to 10,485,760 hashes (sbf_agg streams past that).
CREATE FUNCTION sbf_build(sbf_hashset, error_rate float8 DEFAULT 0.01) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_hashset_build'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION sbf_build(sbf_hashset, float8) IS
	'filter right-sized for the set at error_rate: the same bytes as sbf_agg over the same elements';

-- The set aggregates.  Their state is an sbf_hashset kept as an expanded
-- object (src/pg/sbf_hashset_glue.h), so a row costs no copy of the state; the
-- final function hands out its bytes.  NULLs are skipped; zero rows give
-- NULL.  Support functions are not STRICT: the state starts on the first
-- non-NULL input, and a combine must see NULL states.
CREATE FUNCTION sbf_hashset_agg_trans(sbf_hashset, text) RETURNS sbf_hashset
	AS 'MODULE_PATHNAME', 'sbf_hashset_agg_trans_text'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION sbf_hashset_agg_trans(sbf_hashset, bigint) RETURNS sbf_hashset
	AS 'MODULE_PATHNAME', 'sbf_hashset_agg_trans_int8'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION sbf_hashset_agg_trans(sbf_hashset, bytea) RETURNS sbf_hashset
	AS 'MODULE_PATHNAME', 'sbf_hashset_agg_trans_bytea'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION sbf_hashset_union_trans(sbf_hashset, sbf_hashset) RETURNS sbf_hashset
	AS 'MODULE_PATHNAME', 'sbf_hashset_union_trans'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION sbf_hashset_agg_final(sbf_hashset) RETURNS sbf_hashset
	AS 'MODULE_PATHNAME', 'sbf_hashset_agg_final'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

COMMENT ON FUNCTION sbf_hashset_agg_trans(sbf_hashset, text) IS
	'sbf_hashset_agg transition: adds the hash of a text element';
COMMENT ON FUNCTION sbf_hashset_agg_trans(sbf_hashset, bigint) IS
	'sbf_hashset_agg transition: adds the hash of a bigint element (8 bytes little-endian)';
COMMENT ON FUNCTION sbf_hashset_agg_trans(sbf_hashset, bytea) IS
	'sbf_hashset_agg transition: adds the hash of a bytea element';
COMMENT ON FUNCTION sbf_hashset_union_trans(sbf_hashset, sbf_hashset) IS
	'sbf_hashset_union_agg transition and the combine of both set aggregates: exact union into the state';
COMMENT ON FUNCTION sbf_hashset_agg_final(sbf_hashset) IS
	'final function of the set aggregates: the state''s bytes';

CREATE AGGREGATE sbf_hashset_agg(element text) (
	SFUNC = sbf_hashset_agg_trans,
	STYPE = sbf_hashset,
	FINALFUNC = sbf_hashset_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	COMBINEFUNC = sbf_hashset_union_trans,
	PARALLEL = SAFE
);

CREATE AGGREGATE sbf_hashset_agg(element bigint) (
	SFUNC = sbf_hashset_agg_trans,
	STYPE = sbf_hashset,
	FINALFUNC = sbf_hashset_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	COMBINEFUNC = sbf_hashset_union_trans,
	PARALLEL = SAFE
);

CREATE AGGREGATE sbf_hashset_agg(element bytea) (
	SFUNC = sbf_hashset_agg_trans,
	STYPE = sbf_hashset,
	FINALFUNC = sbf_hashset_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	COMBINEFUNC = sbf_hashset_union_trans,
	PARALLEL = SAFE
);

CREATE AGGREGATE sbf_hashset_union_agg(sbf_hashset) (
	SFUNC = sbf_hashset_union_trans,
	STYPE = sbf_hashset,
	FINALFUNC = sbf_hashset_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	COMBINEFUNC = sbf_hashset_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE sbf_hashset_agg(text) IS
	'exact set of the hashes of the non-NULL text elements; NULL for zero rows';
COMMENT ON AGGREGATE sbf_hashset_agg(bigint) IS
	'exact set of the hashes of the non-NULL bigint elements; NULL for zero rows';
COMMENT ON AGGREGATE sbf_hashset_agg(bytea) IS
	'exact set of the hashes of the non-NULL bytea elements; NULL for zero rows';
COMMENT ON AGGREGATE sbf_hashset_union_agg(sbf_hashset) IS
	'exact union of the non-NULL hash sets; NULL for zero rows';

-------------------------------------------------------------------------------
-- AGGREGATE STATE TYPES: sbf_agg over sbf_hashset (src/pg/sbf_agg.c),
-- sbf_union_agg over scalablebloom (src/pg/sbf_union_agg.c)
-------------------------------------------------------------------------------

-- sbf_agg's state type becomes sbf_hashset (PostgreSQL 12+ lets CREATE OR
-- REPLACE AGGREGATE change it), so parallel query and Citus
-- (worker_partial_agg / coord_combine_agg) aggregate partially where the
-- rows are.  The state is an expanded object changed in place (no copy per
-- row); flattened, it carries the aggregate's error_rate, or, past
-- 10,485,760 distinct hashes in a group, the filter it streamed into.
-- Results are unchanged.  1.0's internal-state support functions stay
-- (a 1.0 database keeps calling them until it is updated).  SSPACE is the
-- planner's per-group estimate for hash aggregation: the expanded state of a
-- small group (object, engine, eight-hash inline buffer) is about 300 bytes.
CREATE FUNCTION sbf_agg_trans(sbf_hashset, text) RETURNS sbf_hashset
	AS 'MODULE_PATHNAME', 'sbf_agg_hs_trans_text'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION sbf_agg_trans(sbf_hashset, text, float8) RETURNS sbf_hashset
	AS 'MODULE_PATHNAME', 'sbf_agg_hs_trans_text'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION sbf_agg_trans(sbf_hashset, bigint) RETURNS sbf_hashset
	AS 'MODULE_PATHNAME', 'sbf_agg_hs_trans_int8'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION sbf_agg_trans(sbf_hashset, bigint, float8) RETURNS sbf_hashset
	AS 'MODULE_PATHNAME', 'sbf_agg_hs_trans_int8'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION sbf_agg_trans(sbf_hashset, bytea) RETURNS sbf_hashset
	AS 'MODULE_PATHNAME', 'sbf_agg_hs_trans_bytea'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION sbf_agg_trans(sbf_hashset, bytea, float8) RETURNS sbf_hashset
	AS 'MODULE_PATHNAME', 'sbf_agg_hs_trans_bytea'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION sbf_agg_final(sbf_hashset) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_agg_hs_final'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION sbf_agg_combine(sbf_hashset, sbf_hashset) RETURNS sbf_hashset
	AS 'MODULE_PATHNAME', 'sbf_agg_hs_combine'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

COMMENT ON FUNCTION sbf_agg_trans(sbf_hashset, text) IS
	'sbf_agg transition: adds the hash of a text element to the set of distinct hashes';
COMMENT ON FUNCTION sbf_agg_trans(sbf_hashset, text, float8) IS
	'sbf_agg transition: adds the hash of a text element; error_rate must be the same in every row';
COMMENT ON FUNCTION sbf_agg_trans(sbf_hashset, bigint) IS
	'sbf_agg transition: adds the hash of a bigint element (8 bytes little-endian)';
COMMENT ON FUNCTION sbf_agg_trans(sbf_hashset, bigint, float8) IS
	'sbf_agg transition: adds the hash of a bigint element; error_rate must be the same in every row';
COMMENT ON FUNCTION sbf_agg_trans(sbf_hashset, bytea) IS
	'sbf_agg transition: adds the hash of a bytea element';
COMMENT ON FUNCTION sbf_agg_trans(sbf_hashset, bytea, float8) IS
	'sbf_agg transition: adds the hash of a bytea element; error_rate must be the same in every row';
COMMENT ON FUNCTION sbf_agg_final(sbf_hashset) IS
	'sbf_agg final: a filter whose first segment is right-sized for the distinct elements seen (the build sbf_build uses)';
COMMENT ON FUNCTION sbf_agg_combine(sbf_hashset, sbf_hashset) IS
	'sbf_agg combine: exact union of two partial hash sets';

CREATE OR REPLACE AGGREGATE sbf_agg(element text) (
	SFUNC = sbf_agg_trans,
	STYPE = sbf_hashset,
	SSPACE = 320,
	FINALFUNC = sbf_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	COMBINEFUNC = sbf_agg_combine,
	PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE sbf_agg(element text, error_rate float8) (
	SFUNC = sbf_agg_trans,
	STYPE = sbf_hashset,
	SSPACE = 320,
	FINALFUNC = sbf_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	COMBINEFUNC = sbf_agg_combine,
	PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE sbf_agg(element bigint) (
	SFUNC = sbf_agg_trans,
	STYPE = sbf_hashset,
	SSPACE = 320,
	FINALFUNC = sbf_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	COMBINEFUNC = sbf_agg_combine,
	PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE sbf_agg(element bigint, error_rate float8) (
	SFUNC = sbf_agg_trans,
	STYPE = sbf_hashset,
	SSPACE = 320,
	FINALFUNC = sbf_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	COMBINEFUNC = sbf_agg_combine,
	PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE sbf_agg(element bytea) (
	SFUNC = sbf_agg_trans,
	STYPE = sbf_hashset,
	SSPACE = 320,
	FINALFUNC = sbf_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	COMBINEFUNC = sbf_agg_combine,
	PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE sbf_agg(element bytea, error_rate float8) (
	SFUNC = sbf_agg_trans,
	STYPE = sbf_hashset,
	SSPACE = 320,
	FINALFUNC = sbf_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	COMBINEFUNC = sbf_agg_combine,
	PARALLEL = SAFE
);
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
-- UNION WITH AN EXPLICIT BUDGET (src/pg/sbf_ops.c)
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
-- LIFECYCLE: sbf_delta (src/pg/sbf_lifecycle.c)
-------------------------------------------------------------------------------

-- Not STRICT: a NULL filter gives a default empty one, as NULL || x starts one.
CREATE FUNCTION sbf_delta(scalablebloom) RETURNS scalablebloom
	AS 'MODULE_PATHNAME', 'sbf_delta_pg'
	LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

COMMENT ON FUNCTION sbf_delta(scalablebloom) IS
	'empty filter that continues the growth chain and error budget of the given one: keep it in a second column for live adds, test seen @> x OR recent @> x, merge with seen || recent; the merged fpr_bound stays <= error_rate';

-- Format 2 (src/core/common/sbf_core.h) changes what these existing objects answer:
-- small filters are exact, counts come from the directory where they can.
COMMENT ON TYPE scalablebloom IS
	'scalable Bloom filter (segments that grow and tighten) with an embedded HyperLogLog, exact (sorted hashes) while small; text form ''sbf1:'' followed by base64 of the payload (format 2; format 1 from sbf 1.0 is read as well)';
COMMENT ON FUNCTION sbf_cardinality(scalablebloom) IS
	'number of distinct elements added: exact for a small (exact-form) filter, the segments'' distinct inserts corrected for false-positive skips for a filter built by adds or sbf_agg (or united with a subset of itself or with exact filters), the HyperLogLog estimate after other unions; rounded';
COMMENT ON OPERATOR # (NONE, scalablebloom) IS
	'number of distinct elements added (see sbf_cardinality)';

-------------------------------------------------------------------------------
-- CORRECTED COMMENTS: 1.0's script is frozen, so its stale comments are
-- replaced here (a fresh install runs both scripts and ends the same)
-------------------------------------------------------------------------------

-- 1.0's comment listed a per-segment "tier" that sbf_info never emitted;
-- format 2 adds the form, the count's source and the exact form's fields.
COMMENT ON FUNCTION sbf_info(scalablebloom) IS
	'format version, form (exact or segments), hash, parameters, HyperLogLog (with its own estimate), cardinality and its source, false-positive bound and estimate (expected from the directory counts), bytes, per-segment capacity, count, bits, hashes, fill and error_rate; for the exact form its hashes count and first segment';
