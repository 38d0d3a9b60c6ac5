-- sbf_cancel: crafted values that cost far more work than their bytes
-- suggest (issue 19).  A statement that touches one ends within 750 ms of
-- its statement_timeout: it finishes in time, or it is cancelled (57014)
-- less than 750 ms after the timeout.  1.1 overshot by 1 to 15 seconds; the
-- checks in the loops come every few ms, but on a loaded 2-core machine the
-- scheduler alone was seen to add 240 ms, so the margin is not 100 ms.

-- 'ok' when the statement finished before the statement_timeout set for
-- the calling statement, or was cancelled within 750 ms of it; else how late
CREATE FUNCTION pg_temp.within_timeout(stmt text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	timeout interval := current_setting('statement_timeout')::interval;
	late interval;
BEGIN
	BEGIN
		EXECUTE stmt;
		late := clock_timestamp() - statement_timestamp() - timeout;
		RETURN CASE WHEN late < interval '0' THEN 'ok'
			ELSE format('finished %s after the timeout', late) END;
	EXCEPTION WHEN query_canceled THEN
		late := clock_timestamp() - statement_timestamp() - timeout;
		RETURN CASE WHEN late < interval '750 ms' THEN 'ok'
			ELSE format('cancelled %s after the timeout', late) END;
	END;
END $$;

-- hashes 0 .. N-1 at Rice parameter 0 cost 2 bits each, 32 times denser
-- than a real set: 134,217,724 hashes (1 GB decoded) in 33.5 MB, stored
-- compressed in about 400 kB
CREATE TEMP TABLE dense (h sbf_hashset);
INSERT INTO dense VALUES (decode('0100000000000000' || 'fcffff0700000000'
	|| repeat('55', 33554431), 'hex')::sbf_hashset);
SELECT pg_column_size(h) < 1000000 AS compressed, octet_length(h::bytea) AS bytes FROM dense;
-- the count is bounded by the body before anything is allocated: one more
-- hash than 2 bits each can hold is refused
SELECT (decode('0100000000000000' || '0900000000000000' || '5501', 'hex')::sbf_hashset) IS NULL;
SELECT # decode('0100000000000000' || '0800000000000000' || '5555', 'hex')::sbf_hashset AS n;

-- 1. the Rice walk, the load, the merge, the copy and the encoder
SET statement_timeout = '100ms';
SELECT pg_temp.within_timeout('SELECT # h FROM dense') AS count;
SELECT pg_temp.within_timeout('SELECT # sbf_hashset_union(h, h) FROM dense') AS "union";
SELECT pg_temp.within_timeout(
	'SELECT # sbf_hashset_union_agg(h) FROM (SELECT h FROM dense UNION ALL SELECT h FROM dense) s') AS union_agg;
SELECT pg_temp.within_timeout('SELECT sbf_build(h) IS NULL FROM dense') AS build;
RESET statement_timeout;

-- 2. sbf_union_agg_merge as the transition of a user's aggregate, fed
-- exact filters (error 1e-100, growth 1, tightening 1): it converts each
-- as sbf_union_agg's step does, so 64 filters take milliseconds, not
-- seconds of adds that each scan thousands of segments
CREATE TEMP TABLE exact64 AS
SELECT g, sbf_add(sbf_empty(64, 1e-100, 1, 1.0),
				  ARRAY(SELECT (g * 100000 + i)::text FROM generate_series(1, 2048) i)) AS f
FROM generate_series(1, 64) g;
SELECT count(*) AS n, bool_and(octet_length(f::bytea) = 52 + 8 * 2048) AS exact_16kb FROM exact64;
CREATE AGGREGATE pg_temp.merge_all(scalablebloom) (
	SFUNC = sbf_union_agg_merge, STYPE = scalablebloom);
SET statement_timeout = '2s';
SELECT pg_temp.within_timeout('SELECT pg_temp.merge_all(f ORDER BY g) FROM exact64') AS merge;
RESET statement_timeout;
SELECT sbf_info(u) ->> 'form' AS form, jsonb_array_length(sbf_info(u) -> 'segments') AS segments, u @> '100001' AS first, u @> '6402048' AS last,
	   u @> 'absent' AS absent
FROM (SELECT pg_temp.merge_all(f ORDER BY g) AS u FROM exact64) s;
-- 3. sbf_agg_combine as the transition of a user's aggregate, fed a
-- streamed state of 4,095 segments and 65,536 hashes: 4,094 of one element
-- (3 bits, k = 2, rate 0.25, as SIZING sizes them: since 1.4 the validator
-- refuses geometry no writer produces) and a last one for 65,536 (189,097
-- bits): every add scans every segment, and the adds check interrupts by
-- that work
CREATE TEMP TABLE streamed (ord int, h sbf_hashset);
INSERT INTO streamed VALUES
	(1, decode('0103000000000000' || '0000000000000000' || '7b14ae47e17a843f'
		|| '02000109' || '0200' || 'ff0f' || '00000000' || '7b14ae47e17a843f'
		|| 'cdccccccccccec3f' || 'e803000000000000'
		|| repeat('0100000000000000' || '0000000000000000' || '0300000000000000'
				  || '000000000000d03f' || '0200' || '0000' || '00000000', 4094)
		|| '0000010000000000' || '0000000000000000' || 'a9e2020000000000'
		|| '000000000000d03f' || '0200' || '0000' || '00000000'
		|| repeat('0000000000000000', 4094 + 2955), 'hex')::sbf_hashset),
	(2, (SELECT sbf_hashset_agg(i) FROM generate_series(1, 65536) i));
CREATE AGGREGATE pg_temp.combine_all(sbf_hashset) (
	SFUNC = sbf_agg_combine, STYPE = sbf_hashset);
SET statement_timeout = '100ms';
SELECT pg_temp.within_timeout('SELECT pg_temp.combine_all(h ORDER BY ord) FROM streamed') AS combine;
RESET statement_timeout;
