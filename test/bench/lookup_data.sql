-- Data of the lookup benchmark (test/bench/lookup_bench.sh), psql variables:
--   scale   multiplies the Zipf users' rows (1: about 0.5M rows)
--   nposts  number of candidate posts
--   nreq    number of prepared requests per user class
--
-- The interaction log follows the aggregates benchmark (agg_bench_run.sh):
-- user 1 is the heavy user with 1.1M rows, users k = 2..2001 have
-- 60000 * scale / k rows (Zipf); objects are 70% sku (1M ids), 20% brand
-- (5k), 10% voucher (20k), each with a power-law popularity.  Posts carry
-- 1-5 objects drawn from the same distribution.
SELECT setseed(0.42);
CREATE UNLOGGED TABLE interactions (user_id int NOT NULL, object text NOT NULL);
INSERT INTO interactions
SELECT user_id,
	   CASE WHEN r < 0.7 THEN 'sku:' || floor(1000000 * r2 ^ 3)::int
			WHEN r < 0.9 THEN 'brand:' || floor(5000 * r2 ^ 2)::int
			ELSE 'voucher:' || floor(20000 * r2 ^ 2)::int END
FROM (SELECT u AS user_id, random() AS r, random() AS r2
	  FROM (SELECT u, CASE WHEN u = 1 THEN 1100000
						   ELSE floor(60000.0 * :scale / u)::int END AS n
			FROM generate_series(1, 2001) u) users,
		   generate_series(1, n) i) s;

-- the candidates: posts with 1-5 objects
CREATE TABLE posts (post_id int PRIMARY KEY, objects text[] NOT NULL);
INSERT INTO posts
SELECT p, ARRAY(SELECT CASE WHEN r < 0.7 THEN 'sku:' || floor(1000000 * r2 ^ 3)::int
							WHEN r < 0.9 THEN 'brand:' || floor(5000 * r2 ^ 2)::int
							ELSE 'voucher:' || floor(20000 * r2 ^ 2)::int END
				FROM (SELECT random() AS r, random() AS r2 FROM generate_series(1, n)) o)
FROM (SELECT p, 1 + floor(random() * 5)::int AS n FROM generate_series(1, :nposts) p) s;

-- (b) exact: one row per distinct (user, object), btree
-- (c) exact arrays: the distinct objects of a user as text[]
-- (both skipped when psql variable slim is set: lookup_compare.sh)
\if :{?slim}
\else
CREATE TABLE user_objects AS SELECT DISTINCT user_id, object FROM interactions;
ALTER TABLE user_objects ADD PRIMARY KEY (user_id, object);

CREATE TABLE user_arrays AS
SELECT user_id, array_agg(object ORDER BY object) AS objects
FROM user_objects GROUP BY user_id;
ALTER TABLE user_arrays ADD PRIMARY KEY (user_id);
\endif

-- (d) sbf
CREATE TABLE user_filters AS
SELECT user_id, sbf_agg(object) AS seen FROM interactions GROUP BY user_id;
ALTER TABLE user_filters ADD PRIMARY KEY (user_id);

-- requests: a user and 120 random candidate posts; class 'typical' draws
-- users 10..1000 (roughly 60 to 6,000 interactions), class 'heavy' is user 1
-- on every request (the same heavy user asking again and again, as a feed
-- does on every scroll), class 'random' draws any of users 2..2001, so that
-- consecutive requests rarely share a filter
CREATE TABLE requests (req_id int PRIMARY KEY, class text NOT NULL, user_id int NOT NULL,
					   post_ids int[] NOT NULL);
INSERT INTO requests
SELECT r, 'typical', 10 + floor(random() * 991)::int,
	   ARRAY(SELECT 1 + floor(random() * :nposts)::int FROM generate_series(1, 120) WHERE r > 0)
FROM generate_series(1, :nreq) r;
INSERT INTO requests
SELECT :nreq + r, 'heavy', 1,
	   ARRAY(SELECT 1 + floor(random() * :nposts)::int FROM generate_series(1, 120) WHERE r > 0)
FROM generate_series(1, :nreq) r;
INSERT INTO requests
SELECT 2 * :nreq + r, 'random', 2 + floor(random() * 2000)::int,
	   ARRAY(SELECT 1 + floor(random() * :nposts)::int FROM generate_series(1, 120) WHERE r > 0)
FROM generate_series(1, :nreq) r;

-- the single-lookup micro benchmark: one filter of about 10 kB and one of
-- about 10 MB, each holding keys 'k1'..'kN'
CREATE TABLE sized_filters (id int PRIMARY KEY, seen scalablebloom NOT NULL, n int NOT NULL);
INSERT INTO sized_filters
SELECT id, (SELECT sbf_agg('k' || i) FROM generate_series(1, n) i), n
FROM (VALUES (1, 8000), (2, 8300000)) v(id, n);

VACUUM ANALYZE;
