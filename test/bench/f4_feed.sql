-- The feed workload of the f4_*.sh benchmarks (issue 27), psql variables:
--   users   number of ordinary users (f4 default 50000)
--   alpha   Pareto shape of their interaction counts (f4 default 1.1)
-- User 1 has 1,000,000 interactions; users 2..users+1 have
-- least(20000, floor(U^(-1/alpha))) interactions, U uniform in (0, 1]: a
-- Pareto law with minimum 1, cut at 20,000 (at alpha 1.1 the median user has
-- 1, the mean about 8; one in a thousand has 500 or more).  Objects are
-- 'o:<id>' with a skewed popularity over 5M ids (id = 5M * V^2), so a user's
-- interactions repeat some objects.  Fixed seed: the same rows on every
-- server of one PostgreSQL major (and, measured, on 15 and 18).
SELECT setseed(0.27);
CREATE UNLOGGED TABLE feed (user_id int NOT NULL, object text NOT NULL);
INSERT INTO feed
SELECT u.user_id, 'o:' || floor(5000000 * random() ^ 2)::bigint
FROM (SELECT g AS user_id,
			 CASE WHEN g = 1 THEN 1000000
				  ELSE least(20000, floor((1.0 - random()) ^ (-1.0 / :alpha)))::int END AS n
	  FROM generate_series(1, :users + 1) g) u,
	 generate_series(1, u.n) i;
VACUUM ANALYZE feed;
