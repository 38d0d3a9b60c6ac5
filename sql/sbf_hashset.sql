-- sbf_hashset: the exact, mergeable set of element hashes; its aggregates,
-- sbf_build, and sbf_agg over an sbf_hashset state.

-- SQLSTATE of a statement ('00000' when it succeeds)
CREATE FUNCTION pg_temp.state(stmt text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE stmt;
	RETURN '00000';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE;
END $$;

-- the objects: parallel safe, combine functions, no serialize functions
-- (the state type is real), sbf_agg's state type is sbf_hashset
SELECT a.aggfnoid::regprocedure, a.aggtranstype::regtype, a.aggcombinefn <> 0 AS has_combine,
	   a.aggserialfn = 0 AS no_serial, p.proparallel
FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid
WHERE p.proname IN ('sbf_agg', 'sbf_hashset_agg', 'sbf_hashset_union_agg')
ORDER BY a.aggfnoid::regprocedure::text;

-- the errdetail of a statement's error (NULL when it succeeds)
CREATE FUNCTION pg_temp.detail(stmt text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	d text;
BEGIN
	EXECUTE stmt;
	RETURN NULL;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
	RETURN d;
END $$;

-- a small known value: its text form, bytes and count
SELECT sbf_hashset_agg(x) AS h FROM (VALUES ('a'), ('b'), ('a')) v(x);
SELECT octet_length(sbf_hashset_agg(x)::bytea) AS bytes, # sbf_hashset_agg(x) AS n
FROM (VALUES ('a'), ('b'), ('a')) v(x);

-- round trips: text, bytea cast, binary (COPY FORMAT binary)
CREATE TEMP TABLE sets AS
SELECT n, sbf_hashset_agg(x) AS h FROM
	(VALUES (1), (10), (1000), (20000)) s(n), generate_series(1, n) x
GROUP BY n;
SELECT n, h::text::sbf_hashset::bytea = h::bytea AS text_round_trip,
	   h::bytea::sbf_hashset::bytea = h::bytea AS bytea_round_trip,
	   # h = n AS exact_count
FROM sets ORDER BY n;
CREATE TEMP TABLE sets_in (n int, h sbf_hashset);
CREATE FUNCTION pg_temp.binary_round_trip() RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
	path text := '/tmp/sbf_hashset_' || pg_backend_pid() || '.bin';
BEGIN
	EXECUTE format('COPY sets TO %L WITH (FORMAT binary)', path);
	EXECUTE format('COPY sets_in FROM %L WITH (FORMAT binary)', path);
	EXECUTE format('COPY (SELECT 1 WHERE false) TO PROGRAM %L', 'rm -f ' || path);
	RETURN (SELECT bool_and(a.h::bytea = b.h::bytea) AND count(*) = 4
			FROM sets a JOIN sets_in b USING (n));
END $$;
SELECT pg_temp.binary_round_trip();

-- bytes per hash: 6.8 at 2,000 hashes, fewer as the set grows
SELECT n, round(octet_length(h::bytea)::numeric / n, 2) AS bytes_per_hash
FROM sets WHERE n >= 1000 ORDER BY n;

-- exact counts; NULLs skipped; zero rows and only NULLs give NULL
SELECT # sbf_hashset_agg(x) AS distinct_ints,
	   # sbf_hashset_agg(x % 37) AS mod_37,
	   # sbf_hashset_agg(x::text) AS texts,
	   # sbf_hashset_agg(convert_to(x::text, 'UTF8')) AS byteas
FROM generate_series(1, 10000) x;
SELECT # sbf_hashset_agg(x) AS two FROM (VALUES (1), (NULL), (1), (2)) v(x);
SELECT sbf_hashset_agg(x) IS NULL AS zero_rows FROM generate_series(1, 0) x;
SELECT sbf_hashset_agg(x::text) IS NULL AS only_nulls FROM (VALUES (NULL::int)) v(x);
SELECT sbf_hashset_union_agg(h) IS NULL AS union_zero_rows FROM sets WHERE false;
-- each element type hashes its own canonical bytes: bigint 1 and text '1' differ
SELECT # sbf_hashset_union(
	(SELECT sbf_hashset_agg(1::bigint)), (SELECT sbf_hashset_agg('1'::text))) AS two;
-- the text and bytea of the same bytes are the same element
SELECT (SELECT sbf_hashset_agg('sku:1'::text))::bytea =
	   (SELECT sbf_hashset_agg('sku:1'::bytea))::bytea AS same;

-- unions are exact and canonical: the bytes of the set, whatever the order
CREATE TEMP TABLE ab AS
SELECT (SELECT sbf_hashset_agg(x) FROM generate_series(1, 600) x) AS a,
	   (SELECT sbf_hashset_agg(x) FROM generate_series(400, 1000) x) AS b,
	   (SELECT sbf_hashset_agg(x) FROM generate_series(1, 1000) x) AS ab;
SELECT # sbf_hashset_union(a, b) AS n,
	   sbf_hashset_union(a, b)::bytea = ab::bytea AS equals_agg,
	   sbf_hashset_union(b, a)::bytea = ab::bytea AS commutes,
	   sbf_hashset_union(a, a)::bytea = a::bytea AS idempotent
FROM ab;
SELECT sbf_hashset_union_agg(h)::bytea = (SELECT ab::bytea FROM ab) AS union_agg
FROM (SELECT a FROM ab UNION ALL SELECT b FROM ab UNION ALL SELECT NULL) s(h);

-- sbf_build: the same bytes as sbf_agg over the same elements
SELECT sbf_build(sbf_hashset_agg(x))::bytea = sbf_agg(x)::bytea AS bigint_default,
	   sbf_build(sbf_hashset_agg(x), 0.001)::bytea = sbf_agg(x, 0.001)::bytea AS bigint_0_001,
	   sbf_build(sbf_hashset_agg(x::text), 0.2)::bytea = sbf_agg(x::text, 0.2)::bytea AS text_0_2,
	   sbf_build(sbf_hashset_agg(x::text::bytea))::bytea = sbf_agg(x::text::bytea)::bytea AS bytea
FROM generate_series(1, 5000) x;
SELECT sbf_build(h)::bytea = (SELECT sbf_agg(x)::bytea FROM generate_series(1, 1) x) AS one
FROM sets WHERE n = 1;
SELECT sbf_build(h, e) IS NULL AS null_rate_gives_null FROM sets, (VALUES (NULL::float8)) v(e) WHERE n = 1;
SELECT e, pg_temp.state(format('SELECT sbf_build(h, %s) FROM sets', e)) AS sqlstate
FROM unnest(ARRAY['0', '0.5', '''NaN''', '-1']) e;

-- the rollup: 30 days of 2,000 distinct objects each (overlapping days);
-- the filter built from the 30 daily sets equals sbf_agg over all raw rows
CREATE TABLE hs_interactions AS
SELECT d AS day, 'sku:' || ((i + d * 700) % 30000) AS object
FROM generate_series(1, 30) d, generate_series(1, 2000) i, generate_series(1, 2) rep;
CREATE TABLE hs_days AS
SELECT day, sbf_hashset_agg(object) AS h FROM hs_interactions GROUP BY day;
SELECT count(*) AS days, min(# h) AS min_n, max(# h) AS max_n FROM hs_days;
SELECT sbf_build(sbf_hashset_union_agg(h))::bytea =
	   (SELECT sbf_agg(object)::bytea FROM hs_interactions) AS rollup_equals_sbf_agg,
	   # sbf_hashset_union_agg(h) =
	   (SELECT count(DISTINCT object) FROM hs_interactions) AS exact_count
FROM hs_days;
-- any window: days 8-14
SELECT sbf_build(sbf_hashset_union_agg(h), 0.001)::bytea =
	   (SELECT sbf_agg(object, 0.001)::bytea FROM hs_interactions WHERE day BETWEEN 8 AND 14)
	   AS window_equals_sbf_agg
FROM hs_days WHERE day BETWEEN 8 AND 14;

-- the lines of EXPLAIN ANALYZE of a query
CREATE FUNCTION pg_temp.explain_analyze(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || query;
END $$;

-- forced parallel plans: partial aggregation in workers gives the same bytes
CREATE TABLE hs_big AS
SELECT i AS id, i % 10 AS g, 'sku:' || ((i * 7) % 50021)::text AS object
FROM generate_series(1, 200000) i;
ALTER TABLE hs_big SET (parallel_workers = 2);
ALTER TABLE hs_days SET (parallel_workers = 2);
ANALYZE hs_big;
ANALYZE hs_days;

SELECT md5(sbf_agg(object)::bytea) AS s_agg, md5(sbf_hashset_agg(object)::bytea) AS s_set,
	   md5(sbf_agg(id, 0.001)::bytea) AS s_ids FROM hs_big \gset
SELECT md5(string_agg(md5(f::bytea) || md5(h::bytea), ',' ORDER BY g)) AS s_grouped
FROM (SELECT g, sbf_agg(object) AS f, sbf_hashset_agg(object) AS h FROM hs_big GROUP BY g) s \gset
SELECT md5(sbf_build(sbf_hashset_union_agg(h))::bytea) AS s_rollup FROM hs_days \gset

SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;

EXPLAIN (COSTS OFF) SELECT sbf_agg(object), sbf_hashset_agg(object) FROM hs_big;
EXPLAIN (COSTS OFF) SELECT sbf_build(sbf_hashset_union_agg(h)) FROM hs_days;
-- workers run the partial aggregates (the leader does not participate)
SELECT line ~ 'Workers Launched: [1-9]' AS workers_launched
FROM (SELECT string_agg(l, E'\n') AS line FROM pg_temp.explain_analyze(
	'SELECT sbf_agg(object), sbf_hashset_agg(object) FROM hs_big') l) s;
SELECT md5(sbf_agg(object)::bytea) = :'s_agg' AS agg_same,
	   md5(sbf_hashset_agg(object)::bytea) = :'s_set' AS set_same,
	   md5(sbf_agg(id, 0.001)::bytea) = :'s_ids' AS ids_same
FROM hs_big;
SELECT md5(string_agg(md5(f::bytea) || md5(h::bytea), ',' ORDER BY g)) = :'s_grouped' AS grouped_same
FROM (SELECT g, sbf_agg(object) AS f, sbf_hashset_agg(object) AS h FROM hs_big GROUP BY g) s;
SELECT md5(sbf_build(sbf_hashset_union_agg(h))::bytea) = :'s_rollup' AS rollup_same FROM hs_days;
RESET parallel_leader_participation;
RESET max_parallel_workers_per_gather;

-- 1.0's internal-state entry points still work with this library (a
-- database at extension version 1.0 calls them until it is updated):
-- an aggregate over them gives sbf_agg's bytes, serial and parallel
CREATE SCHEMA hs_v10;
CREATE AGGREGATE hs_v10.agg(text) (SFUNC = sbf_agg_trans, STYPE = internal, SSPACE = 144,
	FINALFUNC = sbf_agg_final, FINALFUNC_MODIFY = READ_ONLY, COMBINEFUNC = sbf_agg_combine,
	SERIALFUNC = sbf_agg_serialize, DESERIALFUNC = sbf_agg_deserialize, PARALLEL = SAFE);
CREATE AGGREGATE hs_v10.agg(bigint, float8) (SFUNC = sbf_agg_trans, STYPE = internal,
	FINALFUNC = sbf_agg_final, FINALFUNC_MODIFY = READ_ONLY, COMBINEFUNC = sbf_agg_combine,
	SERIALFUNC = sbf_agg_serialize, DESERIALFUNC = sbf_agg_deserialize, PARALLEL = SAFE);
SELECT md5(hs_v10.agg(object)::bytea) = :'s_agg' AS v10_serial,
	   md5(hs_v10.agg(id, 0.001)::bytea) = :'s_ids' AS v10_ids_serial FROM hs_big;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT hs_v10.agg(object) FROM hs_big;
SELECT md5(hs_v10.agg(object)::bytea) = :'s_agg' AS v10_parallel,
	   md5(hs_v10.agg(id, 0.001)::bytea) = :'s_ids' AS v10_ids_parallel FROM hs_big;
RESET parallel_leader_participation;
RESET max_parallel_workers_per_gather;

-- partitionwise aggregation: the partial states reach the combine function
-- in the same process, as read-only expanded objects, not bytes
CREATE TABLE hs_parted (id int, g int, object text) PARTITION BY LIST (g);
CREATE TABLE hs_parted_0 PARTITION OF hs_parted FOR VALUES IN (0, 1, 2, 3, 4);
CREATE TABLE hs_parted_1 PARTITION OF hs_parted FOR VALUES IN (5, 6, 7, 8, 9);
INSERT INTO hs_parted SELECT id, g, object FROM hs_big;
ANALYZE hs_parted;
SET enable_partitionwise_aggregate = on;
SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF) SELECT sbf_agg(object), sbf_hashset_agg(object) FROM hs_parted;
SELECT md5(sbf_agg(object)::bytea) = :'s_agg' AS agg_same,
	   md5(sbf_hashset_agg(object)::bytea) = :'s_set' AS set_same
FROM hs_parted;
-- sorted groups (the plan may or may not aggregate per partition first)
SET enable_hashagg = off;
SELECT bool_and(a.f::bytea = b.f::bytea AND a.h::bytea = b.h::bytea) AS partitionwise_same
FROM (SELECT id % 3 AS k, sbf_agg(object) AS f, sbf_hashset_agg(object) AS h
	  FROM hs_parted GROUP BY id % 3) a
JOIN (SELECT id % 3 AS k, sbf_agg(object) AS f, sbf_hashset_agg(object) AS h
	  FROM hs_big GROUP BY id % 3) b USING (k);
RESET enable_hashagg;
RESET enable_partitionwise_aggregate;
RESET max_parallel_workers_per_gather;

-- window aggregates restart and move their frame over the expanded state;
-- DISTINCT and ORDER BY inputs go through the same transition function
SELECT bool_and(w::bytea = (SELECT sbf_agg('sku:' || j)::bytea
							FROM generate_series(greatest(i - 2, 1), i) j)) AS window_agg,
	   bool_and(# h = least(i, 3)) AS window_set
FROM (SELECT i, sbf_agg('sku:' || i) OVER w AS w, sbf_hashset_agg('sku:' || i) OVER w AS h
	  FROM generate_series(1, 300) i
	  WINDOW w AS (ORDER BY i ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)) t;
SELECT sbf_agg(DISTINCT object ORDER BY object)::bytea = (SELECT sbf_agg(object)::bytea FROM hs_interactions)
	   AS distinct_agg,
	   # sbf_hashset_agg(DISTINCT object ORDER BY object) AS distinct_set
FROM hs_interactions;

-- malformed values, each through every way bytes come in: text input
-- (22P02), the bytea cast and binary receive (22P03).  The valid base value
-- holds the hashes 1, 2, 3 with Rice parameter k = 0: gaps 1, 1, 1 are the
-- bits 01 01 01, one body byte 0x2a.
CREATE TEMP TABLE hs_base AS
SELECT '\x01000000000000000300000000000000'::bytea || '\x2a'::bytea AS b;
SELECT # b::sbf_hashset AS n, b::sbf_hashset AS text_form FROM hs_base;
-- an error_rate field (how sbf_agg's partial states travel) is ignored by
-- the functions and never returned
SELECT # v AS n, sbf_hashset_union(v, v)::bytea = (SELECT b FROM hs_base) AS rate_dropped
FROM (SELECT ('\x01010000000000000300000000000000'::bytea || '\x7b14ae47e17a843f'::bytea
			  || '\x2a'::bytea)::sbf_hashset) s(v);
-- a streamed sbf_agg state (flag bit 1: a filter) is not a set
CREATE TEMP TABLE hs_streamed AS
SELECT ('\x01030000000000000000000000000000'::bytea || '\x7b14ae47e17a843f'::bytea
		|| sbf_empty(10, 0.01)::bytea)::sbf_hashset AS v;
SELECT pg_temp.state('SELECT # v FROM hs_streamed') AS count,
	   pg_temp.state('SELECT sbf_build(v) FROM hs_streamed') AS build,
	   pg_temp.state('SELECT sbf_hashset_union(v, v) FROM hs_streamed') AS "union",
	   pg_temp.state('SELECT sbf_hashset_union_agg(v) FROM hs_streamed') AS union_agg;

CREATE TEMP TABLE hs_cases (id serial, label text, b bytea);
INSERT INTO hs_cases (label, b)
SELECT v.label, v.b FROM hs_base s, LATERAL (VALUES
	('empty',                       ''::bytea),
	('truncated header',            substr(b, 1, 10)),
	('truncated body',              set_byte(b, 8, 4)),
	('version 0',                   set_byte(b, 0, 0)),
	('version 2',                   set_byte(b, 0, 2)),
	('unknown flag bit',            set_byte(b, 1, 4)),
	('filter flag without rate',    set_byte(b, 1, 2)),
	('rate flag, no rate',          set_byte(b, 1, 1)),
	('reserved byte set',           set_byte(b, 4, 1)),
	('rice k 64',                   set_byte(b, 2, 64)),
	('count huge',                  overlay(b PLACING '\xffffffffffffff7f' FROM 9)),
	('duplicate hash',              '\x01000000000000000200000000000000'::bytea || '\x06'::bytea),
	('unsorted (gap wraps)',        '\x01003f00000000000200000000000000'::bytea
									|| '\x0200000000000000040000000000000000'::bytea),
	('trailing byte',               b || '\x00'::bytea),
	('padding bit set',             set_byte(b, 16, 170)),
	('error_rate 0.5',              '\x01010000000000000300000000000000'::bytea
									|| '\x000000000000e03f'::bytea || '\x2a'::bytea),
	('error_rate NaN',              '\x01010000000000000300000000000000'::bytea
									|| '\x000000000000f87f'::bytea || '\x2a'::bytea),
	('embedded filter invalid',     '\x01030000000000000000000000000000'::bytea
									|| '\x7b14ae47e17a843f'::bytea || '\x01'::bytea),
	('embedded filter other rate',  '\x01030000000000000000000000000000'::bytea
									|| '\x7b14ae47e17a843f'::bytea || sbf_empty(10, 0.02)::bytea),
	('random bytes',                decode(repeat('deadbeef', 40), 'hex'))
) AS v(label, b);

CREATE TEMP TABLE hs_raw_out (b bytea);
CREATE TEMP TABLE hs_raw_in (h sbf_hashset);
CREATE FUNCTION pg_temp.recv_state(b bytea) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	path text := '/tmp/sbf_hashset_malformed_' || pg_backend_pid() || '.bin';
	st text;
BEGIN
	TRUNCATE hs_raw_out;
	INSERT INTO hs_raw_out VALUES (b);
	EXECUTE format('COPY hs_raw_out TO %L WITH (FORMAT binary)', path);
	st := pg_temp.state(format('COPY hs_raw_in FROM %L WITH (FORMAT binary)', path));
	EXECUTE format('COPY (SELECT 1 WHERE false) TO PROGRAM %L', 'rm -f ' || path);
	RETURN st;
END $$;

SELECT pg_temp.state(format('SELECT %L::sbf_hashset',
		   'sbfh1:' || translate(encode(b, 'base64'), E'\n', ''))) AS text_input,
	   pg_temp.state(format('SELECT %L::bytea::sbf_hashset', b)) AS bytea_cast,
	   pg_temp.recv_state(b) AS binary_recv
FROM hs_base;

SELECT id, label,
	   pg_temp.state(format('SELECT %L::sbf_hashset',
		   'sbfh1:' || translate(encode(b, 'base64'), E'\n', ''))) AS text_input,
	   pg_temp.state(format('SELECT %L::bytea::sbf_hashset', b)) AS bytea_cast,
	   pg_temp.recv_state(b) AS binary_recv
FROM hs_cases ORDER BY id;
-- each is refused for its own defect
SELECT id, pg_temp.detail(format('SELECT %L::bytea::sbf_hashset', b)) AS detail
FROM hs_cases ORDER BY id;

-- the messages name the defect
\set VERBOSITY default
SELECT '\x01000000000000000200000000000000'::bytea || '\x06'::bytea AS dup \gset
SELECT :'dup'::bytea::sbf_hashset;
SELECT 'sbf1:AQAAAAAAAAADAAAAAAAAACo='::sbf_hashset;
SELECT 'sbfh1:AQAAAAAAAAADAAAAAAAAACo'::sbf_hashset;

-- malformed text forms
SELECT t AS input, pg_temp.state(format('SELECT %L::sbf_hashset', t)) AS sqlstate
FROM unnest(ARRAY['', 'sbfh1:', 'sbfh1', 'sbf1:AQAAAAAAAAADAAAAAAAAACo=',
				  'SBFH1:AQAAAAAAAAADAAAAAAAAACo=', 'sbfh1:AQAAAAAAAAADAAAAAAAAACo',
				  'sbfh1:AQAAAAAAAAADAAAAAAAAACo=!', ' sbfh1:AQAAAAAAAAADAAAAAAAAACo=',
				  'sbfh1:AQAAAAAAAAADAAAAAAAAACo=\n', 'sbfh2:AQAAAAAAAAADAAAAAAAAACo=']) AS t;

-- the server is still answering
SELECT # sbf_hashset_agg('still here'::text) AS alive;
