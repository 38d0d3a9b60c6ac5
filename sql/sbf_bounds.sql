-- Issue 39 (1.4): unions canonical with every form, geometry no writer
-- produces refused, # bounded by its directory, sbf_info in one walk.
SET extra_float_digits = 0;

-- unions with the exact form are canonical: f || e (e exact) adds e's
-- hashes to f, then puts the result in a union's canonical order, so that
-- (f || e) || (f || e), (f || e) || e and f || (f || e) keep its bytes and
-- its directory count; the argument order does not matter
CREATE TEMP TABLE bu AS
	SELECT sbf_agg(g) AS f, sbf_empty() || 'a' || 'b' AS e FROM generate_series(1, 5000) g;
SELECT sbf_info(e) ->> 'form' AS e_form,
       (SELECT string_agg(s ->> 'kind', ',') FROM jsonb_array_elements(sbf_info(f || e) -> 'segments') s) AS fe_kinds
FROM bu;
SELECT f || f = f AS f_self, (f || e) || (f || e) = f || e AS fe_self, (f || e) || e = f || e AS fe_e,
       f || (f || e) = f || e AS f_fe, f || e = e || f AS fe_symmetric, e || e = e AS e_self,
       sbf_info((f || e) || (f || e)) ->> 'count_source' AS source_after,
       sbf_info(f || e) ->> 'count_source' AS source_before,
       (f || e) || (f || e) @> 'a'::text AND (f || e) @> 'b'::text AS has_e
FROM bu;
-- the next add after (f || e) || (f || e) is the one after f || e
SELECT ((f || e) || (f || e)) || 'c' = (f || e) || 'c' AS same_next_add
FROM bu;

-- a grown aggregate (sbf_agg, then adds) holds a segment appended after
-- the built one and smaller than it, out of a union's canonical order:
-- fa || fa and sbf_union(fa, fa) are fa byte for byte (a union of copies),
-- so its count source and next add stay; a union of fa with itself at
-- another error_rate is a full union, in the canonical order (the smaller
-- segment first) with every element; fa with g is the same either way round
CREATE TEMP TABLE bg AS
	SELECT sbf_agg(g) || 'x' || 'y' AS fa, sbf_agg(g) FILTER (WHERE g <= 300) AS g
	FROM generate_series(1, 5000) g;
SELECT (SELECT string_agg((s ->> 'capacity') || ':' || (s ->> 'kind'), ',')
        FROM jsonb_array_elements(sbf_info(fa) -> 'segments') s) AS fa_segments,
       fa || fa = fa AS fa_self, sbf_union(fa, fa) = fa AS fa_union_self,
       sbf_info(fa || fa) ->> 'count_source' = sbf_info(fa) ->> 'count_source' AS same_source,
       (fa || fa) || 'z' = fa || 'z' AS same_next_add
FROM bg;
SELECT (SELECT string_agg((s ->> 'capacity') || ':' || (s ->> 'kind'), ',')
        FROM jsonb_array_elements(sbf_info(c) -> 'segments') s) AS full_union_segments,
       c @> 'x'::text AND c @> 'y'::text AND c @> 1::bigint AND c @> 5000::bigint AS full_union_has_all,
       sbf_union(fa, g, 0.05) = sbf_union(g, fa, 0.05) AS with_g_symmetric
FROM (SELECT fa, g, sbf_union(fa, fa, 0.02) AS c FROM bg) s;
DROP TABLE bg;

-- issue 39's crafted value (test/fuzz/corpus/fuzz_validate/v4-thin-bloom,
-- 132 bytes): two bloom segments of m = 1 bit whose counts sum to 105; #
-- answered 85,242,318,145.  Refused: no writer gives 60 elements 1 bit
SELECT code, message, detail FROM sbf_regress.try($$SELECT # 'sbf1:BAABCQIAAgAAAAAAexSuR+F6hD/NzMzMzMzsP+gDAAAAAAAAPAAAAAAAAAAyAAAAAAAAAPyp8dJNYnA/AQAAAAAAAAABAQAAAAAAADwAAAAAAAAANwAAAAAAAAD8qfHSTWJwPwEAAAAAAAAAAQEAAAAAAAABAAAAAAAAAAEAAAAAAAAA'::scalablebloom$$);
SELECT code FROM sbf_regress.try($$SELECT decode('0400010902000200000000007b14ae47e17a843fcdccccccccccec3fe8030000000000003c000000000000003200000000000000fca9f1d24d62703f010000000000000001010000000000003c000000000000003700000000000000fca9f1d24d62703f0100000000000000010100000000000001000000000000000100000000000000', 'hex')::scalablebloom$$);
-- every value of the regress and format corpora still reads (006_upgrade,
-- test/t/data): here, a grown filter of many segments at tightening 1
SELECT abs((# f) - 3000) < 300 AS count_within_10pct, jsonb_array_length(sbf_info(f) -> 'segments') > 10 AS many
FROM (SELECT sbf_empty(10, 0.1, 1, 1.0) || ARRAY(SELECT 'g' || i FROM generate_series(1, 3000) i) AS f) s;

-- sbf_info on hundreds of segments answers (one walk of the directory;
-- test/unit/test_bounds.c counts the walk's steps)
SELECT jsonb_array_length(sbf_info(f) -> 'segments') > 500 AS many_segments,
       (sbf_info(f) ->> 'cardinality')::bigint > 0 AS counted
FROM (SELECT sbf_empty(1, 0.4, 1, 1.0) || ARRAY(SELECT 'h' || i FROM generate_series(1, 4096) i) AS f) s;
-- the bits per element the README's sizing table states for sbf_agg of
-- 10,000 elements at 1% (9.33, test/bench/f4_sizes.sh table 1), and the
-- 1,000-element figure (13.54): fails when a build no longer fits them
SELECT octet_length(sbf_agg(g)::bytea) * 8.0 / 10000 <= 9.34 AS agg_10000_within_doc,
       (SELECT octet_length(sbf_agg(h)::bytea) * 8.0 / 1000 <= 13.55 FROM generate_series(1, 1000) h)
       AS agg_1000_within_doc
FROM generate_series(1, 10000) g;
DROP TABLE bu;
