-- sbf_cache_xq: the session cache keeps stored filters detoasted across
-- queries and transactions (sbf.cache_size).  Whatever happens to the stored
-- value -- UPDATE, ROLLBACK, DELETE and VACUUM, VACUUM FULL, CLUSTER,
-- TRUNCATE -- every answer must be the current value's.  DEBUG2 shows which
-- path each lookup takes.

-- 'k1' .. 'k3000' in a filter of about 4 kB, stored out of line
CREATE TABLE xq (id int PRIMARY KEY, tag text NOT NULL, seen scalablebloom NOT NULL);
INSERT INTO xq VALUES (1, 'a', (SELECT sbf_agg('k' || i) FROM generate_series(1, 3000) i));
SELECT octet_length(seen::bytea) > 2100 AS out_of_line FROM xq;
SHOW sbf.cache_size;

-- first read: a copy for this query; second: kept for the session; then reused
SET client_min_messages = debug2;
SELECT seen @> 'k1' AS k1, seen @> 'new' AS new FROM xq WHERE id = 1;
SELECT seen @> 'k2' AS k2 FROM xq WHERE id = 1;
SELECT seen @> 'k3' AS k3, seen @> 'new' AS new FROM xq WHERE id = 1;
-- many rows of one query: one check of the stored value, no more messages
SELECT count(*) FILTER (WHERE seen @> ('k' || g)) AS hits FROM xq, generate_series(1, 100) g;
RESET client_min_messages;

-- UPDATE: a new value id; the cached old value must not answer
UPDATE xq SET seen = seen || 'new';
SELECT seen @> 'new' AS new, seen @> 'k1' AS k1 FROM xq WHERE id = 1;
SELECT seen @> 'new' AS new FROM xq WHERE id = 1;
SELECT seen @> 'new' AS new FROM xq WHERE id = 1;

-- an UPDATE of another column keeps the TOAST value: the cache stays right
UPDATE xq SET tag = 'b';
SELECT seen @> 'new' AS new, tag FROM xq WHERE id = 1;

-- ROLLBACK: inside the transaction the new value, after it the old one again
BEGIN;
UPDATE xq SET seen = seen || 'rolled-back';
SELECT seen @> 'rolled-back' AS inside FROM xq WHERE id = 1;
SELECT seen @> 'rolled-back' AS inside FROM xq WHERE id = 1;
ROLLBACK;
SELECT seen @> 'rolled-back' AS after_rollback, seen @> 'new' AS new FROM xq WHERE id = 1;
SELECT seen @> 'rolled-back' AS after_rollback FROM xq WHERE id = 1;

-- a savepoint rolled back in the middle of a transaction
BEGIN;
SELECT seen @> 'sp' AS before FROM xq WHERE id = 1;
SAVEPOINT s;
UPDATE xq SET seen = seen || 'sp';
SELECT seen @> 'sp' AS in_savepoint FROM xq WHERE id = 1;
ROLLBACK TO SAVEPOINT s;
SELECT seen @> 'sp' AS after FROM xq WHERE id = 1;
COMMIT;

-- DELETE, VACUUM, a new row with other contents
SELECT seen @> 'new' AS cached FROM xq WHERE id = 1;
DELETE FROM xq;
VACUUM xq;
INSERT INTO xq VALUES (1, 'c', (SELECT sbf_agg('m' || i) FROM generate_series(1, 3000) i));
SELECT seen @> 'k1' AS old_k1, seen @> 'new' AS old_new, seen @> 'm1' AS m1
FROM xq WHERE id = 1;
SELECT seen @> 'k1' AS old_k1, seen @> 'm1' AS m1 FROM xq WHERE id = 1;
SELECT seen @> 'k1' AS old_k1, seen @> 'm1' AS m1 FROM xq WHERE id = 1;

-- VACUUM FULL and CLUSTER rewrite the toast table and keep the value ids: the
-- key stays, the first chunk's identity changes, and the copy is read again
-- (the contents are equal, so the answers are too)
SELECT seen @> 'm2' AS m2 FROM xq WHERE id = 1;
VACUUM FULL xq;
SET client_min_messages = debug2;
SELECT seen @> 'm2' AS m2, seen @> 'k2' AS k2 FROM xq WHERE id = 1;
RESET client_min_messages;
SELECT seen @> 'm2' AS m2 FROM xq WHERE id = 1;
SELECT seen @> 'm2' AS m2 FROM xq WHERE id = 1;
CLUSTER xq USING xq_pkey;
SET client_min_messages = debug2;
SELECT seen @> 'm3' AS m3 FROM xq WHERE id = 1;
RESET client_min_messages;

-- TRUNCATE and a new value
SELECT seen @> 'm4' AS m4 FROM xq WHERE id = 1;
TRUNCATE xq;
INSERT INTO xq VALUES (1, 'd', (SELECT sbf_agg('t' || i) FROM generate_series(1, 3000) i));
SELECT seen @> 'm4' AS old_m4, seen @> 't4' AS t4 FROM xq WHERE id = 1;
SELECT seen @> 'm4' AS old_m4, seen @> 't4' AS t4 FROM xq WHERE id = 1;
SELECT seen @> 'm4' AS old_m4, seen @> 't4' AS t4 FROM xq WHERE id = 1;

-- prepared statements (custom and generic plans) across updates
PREPARE look(text) AS SELECT seen @> $1 FROM xq WHERE id = 1;
SET plan_cache_mode = force_generic_plan;
EXECUTE look('p1');
EXECUTE look('p1');
UPDATE xq SET seen = seen || 'p1';
EXECUTE look('p1');
EXECUTE look('p2');
UPDATE xq SET seen = seen || 'p2';
EXECUTE look('p2');
RESET plan_cache_mode;
EXECUTE look('p2');
DEALLOCATE look;

-- PL/pgSQL: a loop that updates the filter and asks after each change, with
-- both a query and a simple expression on a variable; a function that keeps
-- its call sites for the whole transaction
CREATE FUNCTION xq_loop(pfx text, n int) RETURNS TABLE (rounds int, right_answers int)
LANGUAGE plpgsql AS $$
DECLARE
	has_now bool;
	has_next bool;
	f scalablebloom;
	last int;
BEGIN
	rounds := 0; right_answers := 0;
	FOR i IN 1..n LOOP
		-- a change every third round: the rounds between read a cached value
		last := i - (i - 1) % 3;
		IF last = i THEN
			UPDATE xq SET seen = seen || (pfx || i) WHERE id = 1;
		END IF;
		SELECT seen @> (pfx || last), seen @> (pfx || (last + 1)) INTO has_now, has_next
		FROM xq WHERE id = 1;
		SELECT seen INTO f FROM xq WHERE id = 1;
		rounds := rounds + 1;
		IF has_now AND NOT has_next AND f @> (pfx || last) AND NOT f @> (pfx || (last + 1)) THEN
			right_answers := right_answers + 1;
		END IF;
	END LOOP;
	RETURN NEXT;
END
$$;
SELECT * FROM xq_loop('loop-', 30);
BEGIN;
SELECT * FROM xq_loop('xact-', 10);
SELECT seen @> 'xact-10' AS in_xact FROM xq WHERE id = 1;
ROLLBACK;
SELECT seen @> 'loop-28' AS kept, seen @> 'loop-31' AS absent, seen @> 'xact-1' AS rolled_back
FROM xq WHERE id = 1;

-- many values, a small cache: eviction keeps every answer right
SET sbf.cache_size = '16kB';
CREATE TABLE xq_many (id int PRIMARY KEY, seen scalablebloom NOT NULL);
INSERT INTO xq_many
SELECT i, (SELECT sbf_agg(x) FROM (SELECT 'pad-' || i || '-' || j AS x
								   FROM generate_series(1, 3000) j
								   UNION ALL SELECT 'only-' || i) s)
FROM generate_series(1, 9) i;
SELECT count(*) AS probes,
	   count(*) FILTER (WHERE m.seen @> ('only-' || m.id)) AS own,
	   count(*) FILTER (WHERE m.seen @> ('only-' || (m.id % 9 + 1))) AS neighbours
FROM generate_series(1, 3) g, xq_many m;
SELECT count(*) FILTER (WHERE m.seen @> ('only-' || m.id)) AS own FROM xq_many m;
SELECT count(*) FILTER (WHERE m.seen @> ('only-' || m.id)) AS own FROM xq_many m;
UPDATE xq_many SET seen = seen || ('only-' || (id + 1));
SELECT count(*) FILTER (WHERE m.seen @> ('only-' || (m.id + 1))) AS updated FROM xq_many m;

-- the cache off: still right
SET sbf.cache_size = 0;
SELECT count(*) FILTER (WHERE m.seen @> ('only-' || (m.id + 1))) AS updated FROM xq_many m;
RESET sbf.cache_size;

-- # and sbf_info read header, directory and HyperLogLog of a stored value by
-- slices: the same figures as on a copy held in memory, also for a value
-- whose directory is longer than one TOAST chunk (over 50 segments)
CREATE TABLE xq_big (id int PRIMARY KEY, seen scalablebloom NOT NULL);
INSERT INTO xq_big VALUES
	(1, (SELECT sbf_agg('e' || i) FROM generate_series(1, 700000) i)),
	(2, sbf_add(sbf_empty(10, 0.01, 1, 1), ARRAY(SELECT 'x' || i FROM generate_series(1, 900) i))),
	(3, sbf_empty(5, 0.01));
SELECT id, octet_length(seen::bytea) AS bytes, jsonb_array_length(sbf_info(seen)->'segments') AS segments,
	   # seen = # (seen::bytea::scalablebloom) AS same_count,
	   sbf_info(seen) = sbf_info(seen::bytea::scalablebloom) AS same_info,
	   (sbf_info(seen)->>'bytes')::int = octet_length(seen::bytea) + 4 AS bytes_ok
FROM xq_big ORDER BY id;
SELECT abs((# seen) - 700000) < 700000 * 3 * 1.04 / sqrt(512) AS count_ok FROM xq_big WHERE id = 1;

DROP FUNCTION xq_loop(text, int);
DROP TABLE xq, xq_many, xq_big;
