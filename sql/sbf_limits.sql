-- sbf_limits: every value that can be created can be written as text (and so
-- dumped); larger ones are refused at creation with 54000, and error rates
-- too small to size a segment are 22023 parameter errors.  The boundary is
-- tested by arithmetic (test/unit/test_core.c, limit_create_boundary) and by
-- values just past it, which are refused before anything is allocated;
-- test/t/007_text_limit.pl creates the largest value and dumps it.

\x on

-- 1.0 created this one (838,692,692 bytes), but its text form would exceed
-- 1 GB: now refused
SELECT * FROM sbf_regress.try($$SELECT sbf_empty(700000000, 0.01, 2, 1.0)$$);

-- the largest first segment at the default parameters holds 447,652,205
-- elements (804,519,924 bytes, see the unit test); one more is refused
SELECT * FROM sbf_regress.try($$SELECT sbf_empty(447652206)$$);

-- a growing filter stops at the limit too.  A format-1 value (error_rate
-- 0.4, growth 16, no tightening) whose one tiny segment claims to be full
-- with 250,000,000 elements: the next segment, for 4,000,000,000 elements,
-- would take 953 MB, which 1.0 allowed.  No writer gives 250,000,000
-- elements 2 bits: since 1.4 the validator refuses that geometry on input
-- (the add's refusal at the limit, on the same bytes, is in
-- test/unit/test_limits.c, too_large)
SELECT code, message, detail FROM sbf_regress.try(
	$$SELECT '\x0100010910000100000000009a9999999999d93f000000000000f03f80b2e60e0000000080b2e60e0000000080b2e60e0000000002000000000000009a9999999999d93f01000000000000000000000000000000'::bytea::scalablebloom$$);
\x on

\x off
-- error rates: the smallest double is a parameter error, not "too large"
\x on
SELECT * FROM sbf_regress.try($$SELECT sbf_empty(1, 5e-324)$$);

-- with the default tightening 0.9 the right-sized segment's rate e^1.04
-- decides: 1e-300 underflows
SELECT * FROM sbf_regress.try($$SELECT sbf_empty(1, 1e-300)$$);

-- without tightening every segment gets e itself: 1e-300 is fine
SELECT * FROM sbf_regress.try($$SELECT sbf_empty(1, 1e-300, 2, 1.0)$$);

-- ... down to the smallest normal double, and not below
SELECT * FROM sbf_regress.try($$SELECT sbf_empty(1, 2.2250738585072014e-308, 2, 1.0)$$);
SELECT * FROM sbf_regress.try($$SELECT sbf_empty(1, 2.2250738585072e-308, 2, 1.0)$$);

-- the hint's error_rate is accepted, and the next smaller double is not
SELECT * FROM sbf_regress.try($$SELECT sbf_empty(1, 1.5140453243167942e-296)$$);
SELECT * FROM sbf_regress.try($$SELECT sbf_empty(1, 1.514045324316794e-296)$$);

-- the aggregates check the same way
SELECT * FROM sbf_regress.try($$SELECT sbf_agg(x, 5e-324) FROM (VALUES ('a')) v(x)$$);
SELECT * FROM sbf_regress.try($$SELECT sbf_agg(x::bigint, 1e-300) FROM generate_series(1, 3) x$$);

\x off

-- the smallest error_rate builds filters that work: 3,000 elements, all
-- contained, an absent one not, every segment's rate a normal double
WITH s AS MATERIALIZED (
	SELECT sbf_empty(1000, 1.5140453243167942e-296)
		   || ARRAY(SELECT 'e' || i FROM generate_series(1, 3000) i) AS f)
SELECT (SELECT count(*) FROM generate_series(1, 3000) i WHERE NOT f @> ('e' || i)) AS misses,
	   f @> 'absent'::text AS has_absent,
	   (SELECT bool_and((s ->> 'error_rate')::float8 >= 2.2250738585072014e-308)
		FROM jsonb_array_elements(sbf_info(f) -> 'segments') s) AS normal_rates
FROM s;

-- a chain whose rates tighten to underflow ends like any other that cannot
-- take another segment.  A format-1 value as 1.0 stored it: capacity 1,
-- growth 1, tightening 1e-100, four full segments with rates 0.01, 1e-102,
-- 1e-202 and 1e-302 (each with SIZING's bits and hashes for one element:
-- 10, 489, 969 and 1,448 bits); a fifth would get 1e-402, below the
-- smallest normal double, so an add is refused
CREATE TEMP TABLE chain_end AS SELECT
	'\x0100010901000400000000007b14ae47e17a843f30058ee42eff2b2b0100000000000000010000000000000001000000000000000a000000000000007b14ae47e17a843f070000000000000001000000000000000100000000000000e9010000000000003d55984affeac12a400000000000000001000000000000000100000000000000c9030000000000006ca32796545aff15400000000000000001000000000000000100000000000000a805000000000000345686223d6e3b014000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'::bytea::scalablebloom AS f;
SELECT jsonb_array_length(sbf_info(f) -> 'segments') AS segments FROM chain_end;
\x on
SELECT * FROM sbf_regress.try($$SELECT f || 'one more' FROM chain_end$$);
\x off
