-- The feed workload of the f4_*.sh benchmarks (issue 27), psql variables:
--   users   number of ordinary users (f4 default 20000)
--   zipf    exponent s of their interaction counts (f4 default 1.0)
-- User 1 has 1,000,000 interactions; ordinary user k (k = 1..users, user_id
-- k + 1) has max(1, floor(20000 / k^s)) interactions: a Zipf law by rank from
-- 20,000 down to 1 (at s = 1 and 20,000 users: half of them have 1, 100 have
-- 200 or more, 211,000 rows in all).  Objects are 'o:<id>' with a skewed
-- popularity over 5M ids (id = 5M * V^2, V uniform), so a user's
-- interactions repeat some objects.  Fixed seed: the same rows on every
-- server (the scripts print an md5 of them).
SELECT setseed(0.27);
CREATE UNLOGGED TABLE feed (user_id int NOT NULL, object text NOT NULL);
INSERT INTO feed
SELECT u.user_id, 'o:' || floor(5000000 * random() ^ 2)::bigint
FROM (SELECT 1 AS user_id, 1000000 AS n
	  UNION ALL
	  SELECT k + 1, greatest(1, floor(20000 / k ^ :zipf))::int FROM generate_series(1, :users) k) u,
	 generate_series(1, u.n) i;
VACUUM ANALYZE feed;
