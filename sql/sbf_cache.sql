-- sbf_cache: lookups on stored (TOASTed) filters reuse one detoasted copy per
-- call site and read large values by slices; neither may ever give an answer
-- that differs from the value the row holds.

-- The session cache (sbf.cache_size) is off here: this file tests the call
-- site's memo and reads by slices; sbf_cache_xq tests the session cache.
SET sbf.cache_size = 0;

-- Filters stored out of line: 'small' (about 6 kB: detoasted whole and
-- cached), 'large' (about 0.7 MB, fused: a single lookup reads slices).  Both hold
-- 'e1' .. 'eN'.
CREATE TABLE cache_t (id int PRIMARY KEY, label text NOT NULL, n int NOT NULL,
					  seen scalablebloom NOT NULL);
INSERT INTO cache_t
SELECT id, label, n, (SELECT sbf_agg('e' || i) FROM generate_series(1, n) i)
FROM (VALUES (1, 'small', 3000), (2, 'large', 700000)) v(id, label, n);

-- both are stored out of line, uncompressed (STORAGE external)
SELECT label, octet_length(seen::bytea) AS bytes FROM cache_t ORDER BY id;
SELECT pg_relation_size(reltoastrelid) >=
	   (SELECT sum(octet_length(seen::bytea)) FROM cache_t) AS in_toast_table,
	   pg_relation_size(oid) < 16384 AS heap_is_small
FROM pg_class WHERE relname = 'cache_t';

-- which path a lookup takes (DEBUG2): a single lookup on the large value
-- reads slices; a second call with the same value detoasts it and caches it
SET client_min_messages = debug2;
SELECT seen @> 'e1' AS hit FROM cache_t WHERE label = 'large';
SELECT count(*) FILTER (WHERE seen @> ('e' || g)) AS hits
FROM cache_t, generate_series(1, 3) g WHERE label = 'large';
SELECT count(*) FILTER (WHERE seen @> ('e' || g)) AS hits
FROM cache_t, generate_series(1, 3) g WHERE label = 'small';
RESET client_min_messages;

-- Slice reads answer exactly as a full detoast.  Every EXECUTE is a new
-- query, so every lookup of the large filter is a first sighting and is read
-- by slices; the reference answer comes from a copy held in memory (the cast
-- round trip), which is never sliced or cached.
CREATE FUNCTION cache_compare(tab regclass, fid int, keys text[]) RETURNS TABLE (probes int, sliced_true int,
		  full_true int, disagree int)
LANGUAGE plpgsql AS $$
DECLARE
	k text;
	a bool;
	b bool;
	mem scalablebloom;
BEGIN
	probes := 0; sliced_true := 0; full_true := 0; disagree := 0;
	EXECUTE format('SELECT seen::bytea::scalablebloom FROM %s WHERE id = $1', tab) INTO mem USING fid;
	FOREACH k IN ARRAY keys LOOP
		EXECUTE format('SELECT seen @> $1 FROM %s WHERE id = $2', tab) INTO a USING k, fid;
		b := mem @> k;
		probes := probes + 1;
		sliced_true := sliced_true + a::int;
		full_true := full_true + b::int;
		disagree := disagree + (a IS DISTINCT FROM b)::int;
	END LOOP;
	RETURN NEXT;
END
$$;

-- present elements spread over the whole value: no false negatives
SELECT * FROM cache_compare('cache_t', 2, ARRAY(SELECT 'e' || i FROM generate_series(1, 700000, 700) i));
-- absent elements: the same false positives either way
SELECT probes, disagree, sliced_true = full_true AS same,
	   sliced_true < probes * 0.01 AS few_false_positives
FROM cache_compare('cache_t', 2, ARRAY(SELECT 'x' || i FROM generate_series(1, 1000) i));
-- no false negatives through sbf_matches, <@ and @> ANY in one query
SELECT count(*) AS probes,
	   count(*) FILTER (WHERE sbf_matches(f.seen, ARRAY['e' || g, 'x' || g]) < 1) AS bad_matches,
	   count(*) FILTER (WHERE NOT ('e' || g) <@ f.seen) AS bad_contained,
	   count(*) FILTER (WHERE NOT f.seen @> ANY (ARRAY['x' || g, 'e' || g])) AS bad_any
FROM cache_t f, generate_series(1, 3000) g;

-- Stale answers.  An UPDATE stores a new value with a new TOAST value id, so
-- no cached copy of the old value can answer for it.  Same session, one call
-- site per query, before and after:
PREPARE look(int, text) AS SELECT count(*) FILTER (WHERE seen @> $2) FROM cache_t, generate_series(1, 50)
	WHERE id = $1;
EXECUTE look(1, 'new-1');
EXECUTE look(2, 'new-1');
UPDATE cache_t SET seen = seen || 'new-1';
EXECUTE look(1, 'new-1');
EXECUTE look(2, 'new-1');

-- In one statement: a data-modifying CTE changes the rows, the main query
-- still reads the snapshot taken before it (the old values) and must answer
-- for those; the next statement sees the new values.
WITH u AS (UPDATE cache_t SET seen = seen || 'new-2' RETURNING id)
SELECT f.label, count(*) FILTER (WHERE f.seen @> 'new-2') AS old_has_it,
	   (SELECT count(*) FROM u) AS updated
FROM cache_t f, generate_series(1, 50) g GROUP BY f.label ORDER BY f.label;
SELECT f.label, count(*) FILTER (WHERE f.seen @> 'new-2') AS new_has_it
FROM cache_t f, generate_series(1, 50) g GROUP BY f.label ORDER BY f.label;

-- In one statement, one call site, a different stored value on every row:
-- bump() adds 'new-3-<g>' to the row and a volatile SQL function reads the
-- row back with a fresh snapshot, so each row passes the call site a new
-- version of the same filter.  A cache keyed on anything less than the
-- value's identity would answer row g with version g-1.
CREATE FUNCTION cache_bump(fid int, g int) RETURNS int VOLATILE LANGUAGE sql AS $$
	UPDATE cache_t SET seen = seen || ('new-3-' || g) WHERE id = fid RETURNING g
$$;
CREATE FUNCTION cache_read(fid int, g int) RETURNS scalablebloom VOLATILE LANGUAGE sql AS $$
	SELECT seen FROM cache_t WHERE id = fid AND g IS NOT NULL
$$;
SELECT f.label, count(*) AS rows,
	   count(*) FILTER (WHERE cache_read(f.id, cache_bump(f.id, g)) @> ('new-3-' || g)) AS current,
	   count(*) FILTER (WHERE sbf_matches(cache_read(f.id, g), ARRAY['new-3-' || g])
							  = 1) AS current_matches
FROM cache_t f, generate_series(1, 20) g GROUP BY f.label ORDER BY f.label;
-- the next element was not added yet when each row looked: each row answers
-- as a fresh copy of the row's value does (a false positive of the value
-- itself is no cache's fault)
SELECT f.label,
	   count(*) FILTER (WHERE (cache_read(f.id, cache_bump(f.id, g)) @> ('new-4-' || g)) <>
							  (cache_read(f.id, g)::bytea::scalablebloom @> ('new-4-' || g)))
	   AS stale
FROM cache_t f, generate_series(1, 20) g GROUP BY f.label ORDER BY f.label;

-- Rows that alternate between values: the cache keeps a few entries and
-- must tell them apart (each filter i holds 'only-<i>').
CREATE TABLE cache_many (id int PRIMARY KEY, seen scalablebloom NOT NULL);
INSERT INTO cache_many
SELECT i, (SELECT sbf_agg(x) FROM (SELECT 'pad-' || i || '-' || j AS x
								   FROM generate_series(1, 3000) j
								   UNION ALL SELECT 'only-' || i) s)
FROM generate_series(1, 9) i;
SELECT count(*) AS probes,
	   count(*) FILTER (WHERE m.seen @> ('only-' || m.id)) AS own,
	   count(*) FILTER (WHERE m.seen @> ('only-' || (m.id % 9 + 1))) AS neighbours
FROM generate_series(1, 30) g, cache_many m;

-- an UPDATE that leaves the filter alone keeps its TOAST value: still right
UPDATE cache_t SET n = n + 1;
SELECT label, count(*) FILTER (WHERE seen @> 'new-1' AND seen @> 'e7') AS hits
FROM cache_t, generate_series(1, 10) GROUP BY label ORDER BY label;

-- an empty array needs no lookup
SELECT sbf_matches(seen, '{}'::text[]) FROM cache_t ORDER BY id;

-- Sliced reads of every kind: a single lookup on a large value reads only
-- the chunks its probes touch, whatever kinds its segments are (each kind's
-- row names the byte ranges a probe reads), and answers exactly as the
-- value held whole.  One value a case, each holding 'e1' .. 'eN':
--   fused    the aggregate's one segment (a complete set)
--   blocked  the one segment an empty filter converts to and fills
--   mixed    blocked, then a bloom segment appended by growth (share < 1e-3)
CREATE TABLE slice_t (id int PRIMARY KEY, label text NOT NULL, n int NOT NULL,
					  seen scalablebloom NOT NULL);
INSERT INTO slice_t VALUES
	(1, 'fused', 700000, (SELECT sbf_agg('e' || i) FROM generate_series(1, 700000) i)),
	(2, 'blocked', 400000,
	 sbf_add(sbf_empty(400000, 0.01), ARRAY(SELECT 'e' || i FROM generate_series(1, 400000) i))),
	(3, 'mixed', 700000,
	 sbf_add(sbf_empty(300000, 0.002), ARRAY(SELECT 'e' || i FROM generate_series(1, 700000) i)));

-- each case's kinds and size
SELECT label, octet_length(seen::bytea) AS bytes,
	   (SELECT string_agg(s->>'kind', ',') FROM jsonb_array_elements(sbf_info(seen)->'segments') s)
		   AS kinds
FROM slice_t ORDER BY id;

-- a single lookup reads each by slices (DEBUG2)
SET client_min_messages = debug2;
SELECT seen @> 'e1' AS hit FROM slice_t WHERE label = 'fused';
SELECT seen @> 'e1' AS hit FROM slice_t WHERE label = 'blocked';
SELECT seen @> 'e1' AS hit FROM slice_t WHERE label = 'mixed';
SELECT seen @> 'x1' AS hit FROM slice_t WHERE label = 'blocked';
RESET client_min_messages;

-- the same answers as a copy held in memory (each EXECUTE a first sighting,
-- read by slices): members spread over the value, then absent elements
SELECT t.label, c.*
FROM slice_t t,
	 cache_compare('slice_t', t.id, ARRAY(SELECT 'e' || i FROM generate_series(1, t.n, t.n / 500) i)) c
ORDER BY t.id;
SELECT t.label, c.probes, c.disagree, c.sliced_true = c.full_true AS same,
	   c.sliced_true < c.probes * 0.02 AS few_false_positives
FROM slice_t t, cache_compare('slice_t', t.id, ARRAY(SELECT 'x' || i FROM generate_series(1, 1000) i)) c
ORDER BY t.id;

DROP TABLE slice_t;
DROP FUNCTION cache_compare(regclass, int, text[]);
DROP FUNCTION cache_bump(int, int);
DROP FUNCTION cache_read(int, int);
DROP TABLE cache_t, cache_many;
