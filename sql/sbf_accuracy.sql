-- sbf_accuracy: no false negatives on every path, false-positive rates within
-- their bound, HyperLogLog within its error.  The hash is fixed, so every
-- number here is deterministic; only booleans and bounds are printed.

-- 100,000 distinct elements added one at a time with ||
CREATE TEMP TABLE one_by_one (f scalablebloom);
DO $$
DECLARE
	f scalablebloom := sbf_empty();
BEGIN
	FOR i IN 1..100000 LOOP
		f := f || ('k' || i);
	END LOOP;
	INSERT INTO one_by_one VALUES (f);
END $$;

-- the same elements added as one array
CREATE TEMP TABLE by_array AS
SELECT sbf_add(sbf_empty(), ARRAY(SELECT 'k' || i FROM generate_series(1, 100000) i)) AS f;

-- both paths build the same bytes
SELECT a.f::bytea = b.f::bytea AS same_bytes FROM one_by_one a, by_array b;

-- what such a filter looks like
SELECT jsonb_array_length(sbf_info(f)->'segments') AS segments,
	   sbf_info(f)->'hll'->>'form' AS hll,
	   (sbf_info(f)->>'fpr_bound')::float8 <= 0.01 AS bound_ok
FROM one_by_one;

-- zero false negatives: @>, <@, sbf_contains, one call per element.  The
-- filter is read into memory once (the cast detoasts it): until lookups cache
-- detoasted values, each call on the stored value would copy it whole.
WITH m AS MATERIALIZED (SELECT f::bytea::scalablebloom AS f FROM one_by_one)
SELECT count(*) FILTER (WHERE NOT f @> ('k' || i)) AS misses_op,
	   count(*) FILTER (WHERE NOT ('k' || i) <@ f) AS misses_commutator,
	   count(*) FILTER (WHERE NOT sbf_contains(f, 'k' || i)) AS misses_function
FROM m, generate_series(1, 100000) i;

-- zero false negatives: lookups on the stored (TOASTed) value itself
SELECT count(*) FILTER (WHERE NOT f @> ('k' || i)) AS misses_stored
FROM one_by_one, generate_series(1, 100000, 500) i;

-- zero false negatives: sbf_matches over the whole set
SELECT sbf_matches(f, ARRAY(SELECT 'k' || i FROM generate_series(1, 100000) i)) AS hits
FROM one_by_one;

-- zero false negatives after a trip through text and bytea
SELECT sbf_matches(f::text::scalablebloom,
				   ARRAY(SELECT 'k' || i FROM generate_series(1, 100000) i)) AS hits_text,
	   sbf_matches(f::bytea::scalablebloom,
				   ARRAY(SELECT 'k' || i FROM generate_series(1, 100000) i)) AS hits_bytea
FROM one_by_one;

-- 20,000 bigint elements one at a time, then checked as a bigint[]
CREATE TEMP TABLE bigints (f scalablebloom);
DO $$
DECLARE
	f scalablebloom;			-- starts NULL: the first add makes a default filter
BEGIN
	FOR i IN 1..20000 LOOP
		f := f || (i::bigint * 7919);
	END LOOP;
	INSERT INTO bigints VALUES (f);
END $$;
WITH m AS MATERIALIZED (SELECT f::bytea::scalablebloom AS f FROM bigints)
SELECT sbf_matches(f, ARRAY(SELECT i::bigint * 7919 FROM generate_series(1, 20000) i)) AS hits,
	   (SELECT count(*) FROM generate_series(1, 20000) i
		WHERE NOT f @> (i::bigint * 7919)) AS misses
FROM m;

-- zero false negatives through union: halves built apart, then united
SELECT sbf_matches(sbf_union(a, b), ARRAY(SELECT 'k' || i FROM generate_series(1, 100000) i)) AS hits,
	   sbf_matches(b || a, ARRAY(SELECT 'k' || i FROM generate_series(1, 100000) i)) AS hits_op
FROM (SELECT sbf_add(sbf_empty(), ARRAY(SELECT 'k' || i FROM generate_series(1, 50000) i)) a,
			 sbf_add(sbf_empty(), ARRAY(SELECT 'k' || i FROM generate_series(50001, 100000) i)) b) s;

-- measured false-positive rate on 100,000 absent elements, for growth 1, 2
-- and 4 and three error rates: fp <= n (e + 3 sigma), sigma = sqrt(e(1-e)/n)
WITH params(growth, error_rate) AS (
	VALUES (1, 0.01), (2, 0.01), (4, 0.01), (2, 0.001), (4, 0.05)
), filters AS (
	SELECT growth, error_rate,
		   sbf_add(sbf_empty(1000, error_rate, growth),
				   ARRAY(SELECT 'k' || i FROM generate_series(1, 100000) i)) AS f
	FROM params
)
SELECT growth, error_rate,
	   round(error_rate + 3 * sqrt(error_rate * (1 - error_rate) / 100000), 5) AS bound,
	   sbf_matches(f, ARRAY(SELECT 'absent' || i FROM generate_series(1, 100000) i))
		   <= 100000 * (error_rate + 3 * sqrt(error_rate * (1 - error_rate) / 100000)) AS fpr_ok,
	   sbf_matches(f, ARRAY(SELECT 'k' || i FROM generate_series(1, 100000) i)) = 100000 AS no_false_negatives
FROM filters ORDER BY error_rate, growth;

-- the same for the bigint filter (default parameters) on 100,000 absent bigints
SELECT sbf_matches(f, ARRAY(SELECT -i::bigint FROM generate_series(1, 100000) i))
		   <= 100000 * (0.01 + 3 * sqrt(0.01 * 0.99 / 100000)) AS fpr_ok
FROM bigints;

-- the estimated FPR reported by sbf_info is close to the measured one
SELECT abs(est - measured) < 0.003 AS estimate_close
FROM (SELECT (sbf_info(f)->>'fpr_estimate')::float8 AS est,
			 sbf_matches(f, ARRAY(SELECT 'absent' || i FROM generate_series(1, 100000) i)) / 100000.0 AS measured
	  FROM one_by_one) s;

-- HyperLogLog (p = 9, 512 registers): within 3 standard errors, 3 * 1.04 / sqrt(512)
SELECT abs((# f) - 100000) / 100000.0 < 3 * 1.04 / sqrt(512) AS cardinality_ok
FROM one_by_one;
