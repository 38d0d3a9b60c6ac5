-- sbf_lifecycle: format 2 -- the exact small form, counts, sbf_delta, and
-- format-1 values written by sbf 1.0

-- SQLSTATE of a statement ('00000' when it succeeds)
CREATE FUNCTION pg_temp.state(stmt text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE stmt;
	RETURN '00000';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE;
END $$;

-- a default filter grown by || to n elements (one add per element, as a
-- live UPDATE would)
CREATE FUNCTION pg_temp.grown(n int, prefix text DEFAULT 'e') RETURNS scalablebloom
LANGUAGE plpgsql AS $$
DECLARE
	f scalablebloom;
BEGIN
	FOR i IN 1..n LOOP
		f := f || (prefix || i);
	END LOOP;
	RETURN f;
END $$;

---------------------------------------------------------------------------
-- sizes at small n: tens of bytes, <= 64 + 8n up to n = 100
---------------------------------------------------------------------------
SELECT pg_column_size(sbf_empty()) AS empty,
	   pg_column_size(NULL::scalablebloom || 'x') AS null_plus_one,
	   pg_column_size(sbf_empty() || 'x') AS one,
	   sbf_info(NULL::scalablebloom || 'x')->>'form' AS form;

SELECT n, pg_column_size(pg_temp.grown(n)) AS bytes,
	   pg_column_size(pg_temp.grown(n)) <= 64 + 8 * n AS within_64_plus_8n,
	   sbf_info(pg_temp.grown(n))->>'form' AS form
FROM unnest(ARRAY[1, 2, 10, 50, 100]) n;

-- sbf_agg: the compact form up to 4,096 elements (its sorted fingerprints:
-- sbf_compact.sql), up to 8 of them at 63 bits, which answers as 1.3's exact
-- form did (1.3 wrote that form up to 13 elements: 61 bytes for one, 136
-- for 10)
SELECT n, pg_column_size(f) AS bytes, sbf_info(f)->>'form' AS form
FROM (SELECT n, (SELECT sbf_agg('a' || i) FROM generate_series(1, n) i) AS f
	  FROM unnest(ARRAY[1, 10, 14, 15, 100]) n) s;

-- stored in a table, a short value takes a 1-byte header
CREATE TEMP TABLE small_users AS
SELECT u AS user_id, pg_temp.grown(u % 5 + 1, 'u' || u || ':') AS seen
FROM generate_series(1, 1000) u;
SELECT max(pg_column_size(seen)) AS max_bytes, avg(pg_column_size(seen))::int AS avg_bytes
FROM small_users;

---------------------------------------------------------------------------
-- the exact form: zero false positives, an exact count
---------------------------------------------------------------------------
CREATE TEMP TABLE ex AS SELECT pg_temp.grown(200) AS f;
SELECT sbf_info(f)->>'form' AS form, sbf_info(f)->'hashes' AS hashes,
	   # f AS count, sbf_info(f)->>'count_source' AS count_source,
	   sbf_info(f)->'fpr_bound' AS fpr_bound, sbf_info(f)->'fpr_estimate' AS fpr_estimate
FROM ex;
SELECT count(*) FILTER (WHERE f @> ('e' || i)) AS present
FROM ex, generate_series(1, 200) i;
SELECT count(*) FILTER (WHERE f @> ('absent' || i)) AS false_positives
FROM ex, generate_series(1, 100000) i;
-- duplicates change nothing
SELECT (f || 'e1' || 'e200')::bytea = f::bytea AS duplicates_ignored FROM ex;
-- exact counts at every small n
SELECT bool_and(# pg_temp.grown(n) = n) AS counts_exact
FROM generate_series(0, 150, 10) n;
-- the text form round-trips the exact form
SELECT f::text::scalablebloom::bytea = f::bytea AS text_round_trip,
	   f::bytea::scalablebloom::bytea = f::bytea AS bytea_round_trip
FROM ex;

---------------------------------------------------------------------------
-- conversion to segments: when they are smaller, with no false negative
---------------------------------------------------------------------------
CREATE TEMP TABLE conv AS
SELECT n, pg_temp.grown(n) AS f FROM generate_series(270, 285) n;
SELECT min(n) FILTER (WHERE sbf_info(f)->>'form' = 'segments') AS converted_at,
	   max(n) FILTER (WHERE sbf_info(f)->>'form' = 'exact') AS last_exact
FROM conv;
-- just before, the exact form is no larger than the segments just after
SELECT (SELECT pg_column_size(f) FROM conv WHERE n = 276) AS last_exact_bytes,
	   (SELECT pg_column_size(f) FROM conv WHERE n = 277) AS first_segments_bytes;
SELECT bool_and((SELECT bool_and(f @> ('e' || i)) FROM generate_series(1, n) i))
		   AS no_false_negatives
FROM conv;
SELECT jsonb_array_length(sbf_info(f)->'segments') AS segments,
	   sbf_info(f)->'segments'->0->'capacity' AS capacity,
	   sbf_info(f)->'segments'->0->'count' AS count,
	   sbf_info(f)->>'count_source' AS count_source,
	   # f AS cardinality
FROM conv WHERE n = 285;
-- a small capacity converts sooner, a large one never past SBF_EXACT_MAX
SELECT sbf_info(sbf_empty(1) || ARRAY(SELECT 'c' || i FROM generate_series(1, 200) i))->>'form' AS capacity_1,
	   sbf_info(sbf_empty(100000000) || ARRAY(SELECT 'c' || i FROM generate_series(1, 2048) i))->>'form' AS at_max,
	   sbf_info(sbf_empty(100000000) || ARRAY(SELECT 'c' || i FROM generate_series(1, 2049) i))->>'form' AS past_max;

-- an exact value stored out of line (8 kB, 1,000 hashes under a large
-- capacity) answers through every lookup path
CREATE TEMP TABLE big_exact AS
SELECT sbf_empty(100000) || ARRAY(SELECT 'x' || i FROM generate_series(1, 1000) i) AS f;
SELECT sbf_info(f)->>'form' AS form, pg_column_size(f) AS bytes,
	   (SELECT count(*) FROM generate_series(1, 1000) i WHERE f @> ('x' || i)) AS found,
	   (SELECT count(*) FROM generate_series(1, 1000) i WHERE f @> ('y' || i)) AS false_positives,
	   sbf_matches(f, ARRAY['x1', 'x1000', 'y1', NULL]) AS matches
FROM big_exact;
SELECT count(*) AS hits
FROM big_exact b, generate_series(1, 2000) i WHERE b.f @> ('x' || i);

---------------------------------------------------------------------------
-- unions with an exact side are exact
---------------------------------------------------------------------------
CREATE TEMP TABLE u AS
SELECT pg_temp.grown(60, 'a') AS a, pg_temp.grown(60, 'b') AS b,
	   pg_temp.grown(40, 'a') AS a40;
SELECT sbf_info(a || b)->>'form' AS form, # (a || b) AS count,
	   (a || b)::bytea = (b || a)::bytea AS order_independent,
	   (a || a40)::bytea = a::bytea AS subset_changes_nothing,
	   (a || a)::bytea = a::bytea AS self_union
FROM u;
SELECT count(*) FILTER (WHERE (a || b) @> ('absent' || i)) AS false_positives
FROM u, generate_series(1, 100000) i;
-- too big for the exact form together: converts, still finds everything
SELECT sbf_info(x)->>'form' AS form,
	   (SELECT bool_and(x @> ('a' || i) AND x @> ('b' || i)) FROM generate_series(1, 200) i) AS all_found
FROM (SELECT pg_temp.grown(200, 'a') || pg_temp.grown(200, 'b') AS x) s;
-- exact with segments: the exact side's hashes are added, in either order
SELECT (s || e)::bytea = (e || s)::bytea AS order_independent,
	   sbf_info(s || e)->>'count_source' AS count_source,
	   (SELECT bool_and((s || e) @> ('a' || i)) FROM generate_series(1, 60) i) AS all_found
FROM (SELECT pg_temp.grown(60, 'a') AS e,
			 sbf_add(sbf_empty(), ARRAY(SELECT 'z' || i FROM generate_series(1, 5000) i)) AS s) q;
-- two segmented filters: the HyperLogLog answers (they may overlap)
SELECT sbf_info(x || y)->>'count_source' AS count_source
FROM (SELECT sbf_add(sbf_empty(), ARRAY(SELECT 'x' || i FROM generate_series(1, 5000) i)) AS x,
			 sbf_add(sbf_empty(), ARRAY(SELECT 'y' || i FROM generate_series(1, 5000) i)) AS y) q;
-- sbf_union_agg converts small filters to segments one by one (its bytes must
-- not depend on how rows are split), so its count is the HyperLogLog's
SELECT sbf_info(f)->>'form' AS form, # f AS count
FROM (SELECT sbf_union_agg(seen) AS f FROM small_users WHERE user_id <= 20) s;

---------------------------------------------------------------------------
-- format-1 values (written by sbf 1.0) read, answer the same, and grow
---------------------------------------------------------------------------
CREATE TEMP TABLE v1 AS
SELECT 'sbf1:AQABCQIAAQAMAAAAexSuR+F6hD/NzMzMzMzsP+gDAAAAAAAA6AMAAAAAAAADAAAAAAAAACo4AAAAAAAA+6nx0k1iUD8KAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABAAAAAAAAAAAAAAAAAAAAAABAAAAAAAAAAABAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAAAAAAAAAAAAAAACAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAEAAAAAAAAAAAAAAAAACAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAABAAAAAAAAAAAAAAAAAAAAAAAAAEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABAAAAAAAAAAAAQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAACAAAAAAAAAAAAAAABAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAEAAAAAAAAgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAAAAAAAAAAAAAAAAAAAAAABAAAAAAAAAAAElAAABSQAAAWUBAA=='::scalablebloom AS small,
	   'sbf1:AQABCQIAAQBQAAAAexSuR+F6hD/NzMzMzMzsP+gDAAAAAAAAFAAAAAAAAAAUAAAAAAAAAMgAAAAAAAAAVjeXb9YIgT8HAAAAAAAAAKVJVQ+txbt9cO7qVCMzeWxBoalMC8sLnoAAAAAAAAAAAQAAAAEgAAADLwAAAWYAAAKVAAABzQAAA88AAAT1AAAFBAEAATABAAI5AQABOwEAAUsBAAOOAQABwAEAAskBAAHKAQADzAEABM8BAAHuAQA='::scalablebloom AS agg20,
	   'sbf1:AQEBCQIABACAAQAAexSuR+F6hD/NzMzMzMzsP2QAAAAAAAAAZAAAAAAAAABkAAAAAAAAAJ4FAAAAAAAA+6nx0k1iUD8KAAAAAAAAAMgAAAAAAAAAyAAAAAAAAABoCwAAAAAAAJHLf0i/fU0/CgAAAAAAAACQAQAAAAAAAJABAAAAAAAAJxcAAAAAAADO0D/BxYpKPwoAAAAAAAAAIAMAAAAAAAAsAQAAAAAAAP0uAAAAAAAAuwhTlEvjRz8KAAAAAAAAAIyJx0/JnFNl7ryDBRpyVm13BKuDmSSUSewC+V/Sf+18Ck8bLFMkLy4Y2Uks1stuIf+PBJqzcgPU4mPZM/7b3wHKWbZ7LyPIK7R8fOYfJQoi6BCf5f84a4coGUy5s4/SVqvKaHyDgof9tZSWLUuTVW6pzYCxlkK6hgpsUZuvbHbfSvN64FrpgdcnE53YKBQXWUQWC4vmeHthcohWhuMyjFQsMEwTsbBvjxIEsJPa/btuB1aFPwAAAAAhrlCMwsOrR8VQAqmP0NxEZBcS0F3GUxNKzWB/kpbptIb8rnuzs0EEIedwB9ddNN0TQThZwTD+wVrvxZZe5tIJu1Ho/CvlW5G3NAxB7tP9RPqfEqjOMH29YG2VbRTlksNxPa5kwOYjspEs9BIaw9EBa3UK4oxC1tDGHjzr7rfEnR43WcwHEnyUVzVqno6fHrRCXbTU0TJwmN2cgDX+ixIXaayTWsIv8mEFNn35pACaEy2vN3IJ4vS/lolNl1Q26TqfG47XUFJMqQoiCXLJU5u+r+EbnEhH+qorWqvDIBQS+Y8K1LSK32ZhPxHfiKw7l5iDLr3Axq6q8v9z6on2wmNhKmO1RCr0k57Mmw8ExLLRNACxWz5ctPVlMd2AH++Uuq+im6/Z50Bxj3vPdpr2SxnBbabGjZooVgqgaC4n2AoSnZ3BvbJWVkwIjh1R1wJdKMbiFbpnHvFwXkXL9NBHG5iR4ij9i3ZmABCDbmI9PQAAAKWzx4mJD6q8JoQ2dRVpsYOqBbUu1wrTGWEjYZ+vNz9Vj5lhzXaN151x8QpCu5tnQIFSpRQB8deXrcDKkzLhEe/cSQmVaojBTydWi0+ooULliZP3VJ7eQFkdaJNj+BJfRr6Kat8s5knGyat8hnCIcf/DjxqZNKJoRCY3OLZXSAT3feOdlDrb87adbNw5/pgNodSSl21iNHP4VZoYNVDOiYIqkGWsdLzqlM9c5XocsKUwx+gF60vTAUyc56NyqpaHR+YvL12s2eD7DDrTcpxJ4uIVBxEmHhxP9jryrWsPkydTvtDs2wtBKdtLXB5iHg2ukqDJh6DEJCVZZwMlxGI1LPje6aLSmvqJfF7cM9RRQUMHD2h4IpFvCzl67nsUSNolJa9RTY7QlrXGBtAACq1BX9mh5j51vH9BbLFNhh3L1NXChOC0GeB7UOkk2wMQLTkjGObe5sKS6/HpVWCB/pAxcx908OX3GAmxUKO0GXZIC5m7FfXUaAoNzul1PRgJPc5hvKCOVWhJk0zA98mdgIvuHILlTmeWxFcZCnVQUGJdnGnwZOzDXefjmTBCJTw1dribnhneqdoa4G9xgSuRPJ02lR+Nss6SNcVEtdg5k/ee9J4sbUCXhh1wIoVvec9yBUHwv5WshE4Ak3BxqLljCvZJF9f4YPeN2dM3LXBRDuEQBwnJfCe5//kWjRuxulYEd+47yURYiuZ5vjsRLj81+F4UrpSv7TkZSqcnRb3aEpsUlqIgVv+pJioFyvUiPLkVJavIKbgBN2s//NF6Ke4MLpWtm1RiGT6Gvj0Wu7p0Texk+tRB6Y91dXqkax+nhTDf6s3yNOnAdpH6F30SQjC5IzzoPJvg599Fppo1vNbQfrDyk/DQM9xQFIyQkKd6F3K31Hk3PZexToSX+jNzV18Ea9xHFi1M+hcOAqEFTbhmEBAIdMbYePcl1VeLEVQgnBdweJqcpwaA/S9hiDXXzO5EWuljHCcMy28IcQAAAIgAAADEAAAACBgkBZcAkAUgLgSIxRgCNYE4gQcIhBAACwUgQBZIufGyoErIjAEgANkTAAoBBWCAgBCAUSTiwQEgQEeEgQQgDAAEIIAAEAYQIgAEFAiEQglCARCBBooAjVIAgAJhQBAxByBEgAADAEAAYQEEEAECDIgkUyuhAQDGBEOwREYEQUKkgIlQQaAABkAKsACBBiAYgABdIukQoAQAgkCAAACpAhIQBAiIBQSgAIBCCmCFgRQAKCIAACAFUAGOIkKCABJKAYACJuAQDAAkGDgmCwIAAQDFQwiasJAQCgJhJGZXACCACBAMBgBGBQCRBAEQGgQowAiCBAQCWOhpAEEB4IBADBKgSaoAFgBAEIEQUUCKoAMCAEQVEUACEEAoEDAYwIgAQwIYwk4gZcEIhAIAQKCAICQHnEEMCUAgMRGbgbEAQDJAYQAABCAIQKYEhCAIYMQnQBACwYAAQUMABUBcAUGgoGIMsCCEAMhjAmAQAoAYABBIAAhIkQBAcIJYoAQShAUQNQQEQQQQAwhEGIAIQFIFVAAcEiIExEAAogCwFQwBiNpVCAIYEwCyECEAAihDI8wAAUUCIIBwlkACKQACEMA2gBACKQCYQA+kBEECAjAgAiEBhEAACBhgBAAkAQAAUAwA5AIAJEAAwsAOIEABkkGFBIdgUCEKIMIAEQAASIPIB4TIAQkRMBAUhbVgEqApCnHRAgAAhIUCBwqAAGAIABeiwAAIoCwCcgjABgYBGEHkAQaGQBQAGpAMBVAJciBIYhkAQAIIfQgCACAQIKByjQBAAMQFhsMgwoAQmQQAAggqxIEhACDEBExIAoIxQGAAEBECACyBgAEJACKgFmACIY1gRMACgBCAKRC4BMrQRIDEEqAApIxQMACABgABQABoBABoBhESIIQiAEBZBhglECAXCxcwCQaCAABP4AEoABYAAB0KIkgCAGIA0AgAAgBIARYS+BAdYgFUgAQApDuAIgBAkYAgAewAEiEBBCQTARZAhAcJIyEECAQTAZChDCBANAIACwQXIgoUjshRq4YAHAAKYc0aoggEDdCgQhAEAgAoIAAQoCgE0QGBQCQ/IGGOAggAYACCsAZArQMKCAEozhQSIBIEBgKERBAiUEkApEIOil4CgagAABmhAogKEQEABJgAAClSE4AIwAgEBgBgBIQ6IgAUYBAQYpAgSAUFLMBIkJqJLIQpACAAQAI0IwEAAAAQgIMhEBBCAUEBAYFABASSFAAAACqKAgEAEAQFgEBAKEGZELAwoCEAIhEiAQIFAkACpCgIioABQAgggCCAURBGABIIACihEmJNCAJEIQAODSIDymAAAgAYSQgAQAQBdAHBRClAQgBbwFwAWgASAFYCFAYgNSQQFkQLAhADR0T2BZANMkCKAQNyAABCAMAgBJHAZEEqEQCAAAIAKBEAEhABiAMwAACQBBRgAAMIoAIIwOAMQ0DMgERCCSBhQMAECUCIAHjwBmEBghQBEKIIUCBAAChNIAABA1eMEBkIgDC5AQQEIIOgAClQCnGHgSHQEAGAJEEkPgABQgAJkEhFkRmACISkQwRQAA0goGB0IIAEwIYQCAAAwAAAJJABQAFEIIgIS4IGhQJ6ACABAkAAGQQKAgAKAQUIiIARhUYAEAAAoYQGIYgAAlgAEQCIChmAogAgIOPBBUCWAhIF5MAEAoAWgkEMiCZDWpCiGAIAIGA0BEQgFADKKIAAiJEABBVEAAEOFgARQwIgxEEhAAACU0RAQAllYDIBAAAXoBzjUIAFELhqFIgAMAwAhYoIQBQhglISAEAADwAAHBA8AIQ0CipUBTQMEkAAIgAwRNGEBIAMIRlJgFCCQTcCkASgAkAuGwRAgAgBkiioAuUHyAAMBgAgACAYCQpQFHIISziDIwEUAgIoCAYTAAIKIQECBAARQAAVJQDAWjZMsAgAFEqGQAAEEAAAJiCEQDRAEgrAQAIOAUFRAEEG1ACEAAQpAQSAIABACAAiGBRRBATCUACDMQTDIAQDAQTCYAjEIRxCMAxDMQQBcQiDEQgCYQBCEAiCQARBMACAAAhCgAhDMAiCIAzEIAzBAARAMAxEAAgFAAjAEAgBAAhCEQhAEAiEEAzBEACBEAABcBBDUQBGAAyIURBCcASCMATCAABDEABDIAyCUBRHQBwEEQACIAxEIAiDQAgFAASEMByEAAyCAAQCgAwBIACEIAxCIASCIBRAQRBDQQyCEQQEIAQBEAiEMACDEAjBEAgEEAwEEAiFAASAECBDQAwDIQSDcASDABRCEAyEIACEAADCABDCIABCEBTEMAxCMAwGAAyDUABDAQAEMAQAIAiCMBzCEAxCIAzDMBCCMAwFEQwAEQhDUATCEBiBIABDIACCEAgDESSBcBgBYQQCEQxCEBSAEAACIARAAQxDQRxCIQgBIQiBEAiBAADBEABCEQQBYAxGAADCIBgDIAiKIAyEEQBGEQyEIBCBEQgDIAyFAASDAAiDIAiAQARCMARBIAQDEAwDIAw='::scalablebloom AS grown;
-- 1.0 answered: # 3, 20, 999; 0, 133 and 45 false positives in 20000 probes;
-- sbf_matches 4; the text form round-trips byte for byte
SELECT sbf_info(small)->'version' AS version, # small AS small, # agg20 AS agg20,
	   # grown AS grown, sbf_info(grown)->>'count_source' AS count_source,
	   sbf_matches(grown, ARRAY['g1', 'g500', 'g1000', 'nope', 'g2']) AS matches,
	   md5(grown::text) = '9125a5bc1683a5a75b68d8901ea02798' AS text_unchanged
FROM v1;
SELECT count(*) FILTER (WHERE small @> ('absent' || i)) AS fp_small,
	   count(*) FILTER (WHERE agg20 @> ('absent' || i)) AS fp_agg20,
	   count(*) FILTER (WHERE grown @> ('absent' || i)) AS fp_grown
FROM v1, generate_series(1, 20000) i;
SELECT small @> 'sku:1' AND small @> 'sku:2' AND small @> 'brand:5' AS small_found,
	   (SELECT bool_and(agg20 @> ('o' || i)) FROM generate_series(1, 20) i) AS agg20_found,
	   (SELECT bool_and(grown @> ('g' || i)) FROM generate_series(1, 1000) i) AS grown_found
FROM v1;
-- a write relabels it format 2 (the layout is the same), its count stays
-- the HyperLogLog's, and everything is still found
SELECT sbf_info(g)->'version' AS version, sbf_info(g)->>'count_source' AS count_source,
	   # g AS count,
	   (SELECT bool_and(g @> ('g' || i)) FROM generate_series(1, 1000) i) AND g @> 'new'
		   AS all_found,
	   jsonb_array_length(sbf_info(g)->'segments') -
	   jsonb_array_length(sbf_info(grown)->'segments') AS segments_added
FROM (SELECT grown, grown || 'new' AS g FROM v1) s;
SELECT (SELECT bool_and(g @> ('g' || i)) FROM generate_series(1, 1000) i) AND
	   (SELECT bool_and(g @> ('n' || i)) FROM generate_series(1, 5000) i) AS grows_and_finds,
	   (sbf_info(g)->>'fpr_bound')::float8 <= 0.01 AS fpr_bound_kept
FROM (SELECT sbf_add(grown, ARRAY(SELECT 'n' || i FROM generate_series(1, 5000) i)) AS g FROM v1) s;
-- and unites with format-2 values, either way round
SELECT sbf_info(small || e)->'version' AS version,
	   (small || e) @> 'sku:1' AND (small || e) @> 'a1' AS found,
	   (e || small) @> 'sku:1' AND (e || small) @> 'a1' AS found_reversed
FROM v1, (SELECT pg_temp.grown(10, 'a') AS e) q;

---------------------------------------------------------------------------
-- malformed exact forms are refused by every input path
---------------------------------------------------------------------------
CREATE TEMP TABLE exbase AS SELECT (sbf_empty() || 'p' || 'q' || 'r')::bytea AS b;
SELECT octet_length(b) AS bytes FROM exbase;
SELECT label, pg_temp.state(format('SELECT %L::bytea::scalablebloom', v.b)) AS bytea_cast,
	   pg_temp.state(format('SELECT %L::scalablebloom',
			'sbf1:' || translate(encode(v.b, 'base64'), E'\n', ''))) AS text_input
FROM exbase e, LATERAL (VALUES
	('valid',                  e.b),
	('dense flag',             set_byte(e.b, 1, 3)),
	('overlap flag',           set_byte(e.b, 1, 6)),
	('version 1 exact',        set_byte(e.b, 0, 1)),
	('reserved field',         set_byte(e.b, 6, 1)),
	('count too small',        set_byte(e.b, 8, 2)),
	('count too large',        set_byte(e.b, 8, 4)),
	('count past the maximum', set_byte(set_byte(e.b, 8, 1), 9, 8)),
	('first capacity 0',       overlay(e.b PLACING '\x0000000000000000'::bytea FROM 37 FOR 8)),
	('first error 0.5',        overlay(e.b PLACING '\x000000000000e03f'::bytea FROM 45 FOR 8)),
	('hashes unsorted',        substr(e.b, 1, 52) || substr(e.b, 61, 8) || substr(e.b, 53, 8) || substr(e.b, 69, 8)),
	('hash repeated',          substr(e.b, 1, 52) || substr(e.b, 53, 8) || substr(e.b, 53, 8) || substr(e.b, 69, 8)),
	('truncated',              substr(e.b, 1, 70)),
	('trailing byte',          e.b || '\x00'::bytea)
) AS v(label, b);

---------------------------------------------------------------------------
-- sbf_delta: live adds in a small second column, merged later
---------------------------------------------------------------------------
CREATE TEMP TABLE feed (user_id int, seen scalablebloom, recent scalablebloom);
INSERT INTO feed
SELECT 1, sbf_add(sbf_empty(), ARRAY(SELECT 's' || i FROM generate_series(1, 20000) i)), NULL;
UPDATE feed SET recent = sbf_delta(seen);
-- the delta is empty and exact; its first segment is the one seen would append
SELECT sbf_info(recent)->>'form' AS form, pg_column_size(recent) AS bytes,
	   sbf_info(recent)->'continues_chain' AS continues_chain,
	   (sbf_info(recent)->'first_segment'->>'capacity')::bigint =
		   (SELECT max((s->>'capacity')::bigint) * 2
			FROM jsonb_array_elements(sbf_info(seen)->'segments') s) AS next_capacity,
	   (sbf_info(recent)->'first_segment'->>'error_rate')::float8 <
		   0.01 - (sbf_info(seen)->>'fpr_bound')::float8 AS within_budget_left
FROM feed;
-- live updates touch only the small column
DO $$
BEGIN
	FOR i IN 1..50 LOOP
		UPDATE feed SET recent = recent || ('r' || i);
	END LOOP;
END $$;
SELECT pg_column_size(recent) AS recent_bytes, # recent AS recent_count,
	   seen @> 'r7' OR recent @> 'r7' AS found_in_either,
	   seen @> 's7' OR recent @> 's7' AS old_found
FROM feed;
-- merged while small: exact adds, the budget is untouched
SELECT (sbf_info(seen || recent)->>'fpr_bound')::float8 =
	   (sbf_info(seen)->>'fpr_bound')::float8 AS bound_unchanged,
	   sbf_info(seen || recent)->>'count_source' AS count_source
FROM feed;
-- a delta that outgrew the exact form and grew segments of its own: the
-- merge keeps fpr_bound <= error_rate, round after round
DO $$
BEGIN
	FOR round IN 1..4 LOOP
		UPDATE feed SET recent = sbf_add(recent,
			ARRAY(SELECT 'd' || round || ':' || i FROM generate_series(1, 60000) i));
		UPDATE feed SET seen = seen || recent, recent = NULL;
		UPDATE feed SET recent = sbf_delta(seen);
	END LOOP;
END $$;
SELECT (sbf_info(seen)->>'fpr_bound')::float8 <= 0.01 AS bound_ok,
	   jsonb_array_length(sbf_info(seen)->'segments') AS segments,
	   (SELECT bool_and(seen @> ('d' || r || ':' || i))
		FROM generate_series(1, 4) r, generate_series(1, 60000, 97) i) AS all_found,
	   (SELECT count(*) FILTER (WHERE seen @> ('absent' || i))
		FROM generate_series(1, 20000) i) < 200 AS fpr_below_1_percent
FROM feed;
-- sbf_delta of an exact filter is an empty copy of its parameters; of NULL
-- a default empty filter
SELECT sbf_delta(sbf_empty(10) || 'a')::bytea = sbf_empty(10)::bytea AS exact_delta,
	   sbf_delta(NULL)::bytea = sbf_empty()::bytea AS null_delta;
-- a delta of a 1.0 value continues it as well
SELECT (sbf_info(grown || sbf_add(sbf_delta(grown),
			ARRAY(SELECT 'k' || i FROM generate_series(1, 5000) i)))->>'fpr_bound')::float8 <= 0.01
		   AS v1_bound_ok
FROM v1;

---------------------------------------------------------------------------
-- counts: within 0.1% for sbf_agg, 1% for || growth, at 100,000
---------------------------------------------------------------------------
SELECT abs((# f) - 100000) <= 100 AS agg_within_01_percent,
	   sbf_info(f)->>'count_source' AS count_source
FROM (SELECT sbf_agg(i) AS f FROM generate_series(1, 100000) i) s;
SELECT abs((# f) - 100000) <= 1000 AS grown_within_1_percent,
	   sbf_info(f)->>'count_source' AS count_source
FROM (SELECT sbf_add(sbf_empty(), ARRAY(SELECT 'c' || i FROM generate_series(1, 100000) i)) AS f) s;
