-- lifecycle_sizes.sql: bytes and count errors of filters built three ways,
-- runnable against sbf 1.0 and later alike.
--   grown: sbf_empty() with the n elements added (the same as n times ||)
--   agg:   sbf_agg over the n elements
--   union: sbf_union of two sbf_agg halves.  Since 1.1 a union whose
--          false-positive bound would pass its error_rate is refused, and two
--          right-sized 1% halves pass 1%, so where sbf_union takes an
--          error_rate (1.1 and later) the union is given error_rate 0.02
--          (two halves of at most 0.01 each); 1.0's two-argument sbf_union
--          is used where it is the only one.  The segments, and so the bytes
--          and the count, are the same either way; only the result's
--          error_rate differs.
-- Run by test/bench/lifecycle_sizes.sh.
\pset footer off
CREATE EXTENSION IF NOT EXISTS sbf;
CREATE TEMP TABLE sizes (n int, path text, bytes int, count bigint);
DO $$
DECLARE
	n int;
	f scalablebloom;
	budget text := CASE WHEN to_regprocedure('sbf_union(scalablebloom, scalablebloom, float8)') IS NULL
						THEN '' ELSE ', 0.02' END;
BEGIN
	FOREACH n IN ARRAY ARRAY[1, 10, 100, 1000, 10000, 100000, 1000000] LOOP
		f := sbf_add(sbf_empty(), ARRAY(SELECT 'e' || i FROM generate_series(1, n) i));
		INSERT INTO sizes VALUES (n, 'grown', pg_column_size(f), # f);
		SELECT sbf_agg('e' || i) INTO f FROM generate_series(1, n) i;
		INSERT INTO sizes VALUES (n, 'agg', pg_column_size(f), # f);
		IF n >= 10 THEN
			EXECUTE format('SELECT sbf_union((SELECT sbf_agg(''e'' || i) FROM generate_series(1, $1 / 2) i),
									  (SELECT sbf_agg(''e'' || i) FROM generate_series($1 / 2 + 1, $1) i)%s)',
						   budget)
			INTO f USING n;
			INSERT INTO sizes VALUES (n, 'union', pg_column_size(f), # f);
		END IF;
	END LOOP;
END $$;
SELECT n, path, bytes, count,
	   round(100.0 * (count - n) / n, 3) AS count_error_pct
FROM sizes ORDER BY path, n;
