-- Data of the windowed ranking request (window_speed.sh, f4_lookup.sh):
-- bursty users over 40 days, 50,000 candidate posts, each user's 30-bucket
-- window (sbf_window_agg) and a plain filter of the same 30 days (sbf_agg),
-- and 1,000 requests of 120 candidates (1-500 typical users, 501-1000 heavy).
SET TimeZone = 'UTC';
SELECT setseed(0.21);
DROP TABLE IF EXISTS wb_rows, wb_posts, wb_filters, wb_requests;
-- users 1-200 typical, 201-205 heavy; 40 days ending 2026-02-09
CREATE UNLOGGED TABLE wb_rows AS
SELECT u AS user_id, 'o:' || (1 + floor(random() * 200000)::int) AS object,
	   timestamptz '2026-01-01' + d * interval '1 day' + random() * interval '1 day' AS at
FROM generate_series(1, 205) u, generate_series(0, 39) d,
	 LATERAL generate_series(1, CASE
		WHEN u > 200 AND d % 9 = 4 THEN 20000
		WHEN (u + d / 14) % 3 = 0 THEN 0        -- gaps of two weeks
		ELSE floor(random() * 51)::int END) i;
CREATE TABLE wb_posts AS
SELECT p AS post_id, ARRAY(SELECT 'o:' || (1 + floor(random() * 200000)::int)
						   FROM generate_series(1, 1 + (p % 6) + g * 0)) AS objects
FROM generate_series(1, 50000) p, (VALUES (0)) v(g);
ALTER TABLE wb_posts ADD PRIMARY KEY (post_id);
CREATE TABLE wb_filters AS
SELECT user_id, sbf_window_agg(object, at) AS w,
	   sbf_agg(object) FILTER (WHERE at >= timestamptz '2026-01-11') AS plain
FROM wb_rows GROUP BY user_id;
ALTER TABLE wb_filters ADD PRIMARY KEY (user_id);
-- requests: 120 random candidate posts; 1-500 typical users, 501-1000 heavy
CREATE TABLE wb_requests AS
SELECT r AS req_id, CASE WHEN r <= 500 THEN 1 + r % 200 ELSE 201 + r % 5 END AS user_id,
	   ARRAY(SELECT 1 + floor(random() * 50000)::int FROM generate_series(1, 120) g WHERE g > r * 0) AS post_ids
FROM generate_series(1, 1000) r;
ALTER TABLE wb_requests ADD PRIMARY KEY (req_id);
VACUUM ANALYZE wb_rows, wb_posts, wb_filters, wb_requests;
