-- lifecycle_sizes.sql: bytes and count errors of filters built three ways,
-- runnable against sbf 1.0 and 1.1 alike (only 1.0's SQL is used).
--   grown: sbf_empty() with the n elements added (the same as n times ||)
--   agg:   sbf_agg over the n elements
--   union: sbf_union of two sbf_agg halves
-- Run by test/bench/lifecycle_sizes.sh.
\pset footer off
CREATE EXTENSION IF NOT EXISTS sbf;
CREATE TEMP TABLE sizes (n int, path text, bytes int, count bigint);
DO $$
DECLARE
	n int;
	f scalablebloom;
BEGIN
	FOREACH n IN ARRAY ARRAY[1, 10, 100, 1000, 10000, 100000, 1000000] LOOP
		f := sbf_add(sbf_empty(), ARRAY(SELECT 'e' || i FROM generate_series(1, n) i));
		INSERT INTO sizes VALUES (n, 'grown', pg_column_size(f), # f);
		SELECT sbf_agg('e' || i) INTO f FROM generate_series(1, n) i;
		INSERT INTO sizes VALUES (n, 'agg', pg_column_size(f), # f);
		IF n >= 10 THEN
			SELECT sbf_union((SELECT sbf_agg('e' || i) FROM generate_series(1, n / 2) i),
							 (SELECT sbf_agg('e' || i) FROM generate_series(n / 2 + 1, n) i))
			INTO f;
			INSERT INTO sizes VALUES (n, 'union', pg_column_size(f), # f);
		END IF;
	END LOOP;
END $$;
SELECT n, path, bytes, count,
	   round(100.0 * (count - n) / n, 3) AS count_error_pct
FROM sizes ORDER BY path, n;
