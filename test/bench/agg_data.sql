-- agg_data.sql: the synthetic interaction log of the aggregate benchmarks
-- (agg_bench_run.sh, agg_quick_run.sh); psql variable scale (1 = 5.64M rows).
-- 3 heavy users with 1.1M-1.3M rows (times scale), then users k = 1..2000
-- with 250000 * scale / k rows (Zipf, exponent 1); objects: 70% sku (1M
-- ids), 20% brand (5k), 10% voucher (20k), each with a power-law popularity
-- (id = size * u^3 or u^2).  Rows are shuffled so that groups interleave as
-- in a real log.  Deterministic: setseed.
SELECT setseed(0.42);
CREATE UNLOGGED TABLE interactions (user_id int NOT NULL, object text NOT NULL);
INSERT INTO interactions
SELECT user_id,
	   CASE WHEN r < 0.7 THEN 'sku:' || floor(1000000 * r2 ^ 3)::int
			WHEN r < 0.9 THEN 'brand:' || floor(5000 * r2 ^ 2)::int
			ELSE 'voucher:' || floor(20000 * r2 ^ 2)::int END
FROM (SELECT u AS user_id, random() AS r, random() AS r2, random() AS shuffle
	  FROM (SELECT u, CASE WHEN u <= 3 THEN ((1000000 + 100000 * u) * :scale)::int
						   ELSE floor(250000.0 * :scale / (u - 3))::int END AS n
			FROM generate_series(1, 2003) u) users,
		   generate_series(1, n) i) s
ORDER BY shuffle;
ALTER TABLE interactions SET (parallel_workers = 2);
VACUUM ANALYZE interactions;
