-- sbf demo: build per-user filters from an interaction log, then score
-- candidate posts for one user, as a feed-ranking service would.
\set ON_ERROR_STOP on
\pset footer off
SELECT setseed(0.42);
CREATE EXTENSION sbf;

\echo '--- 1. a sample interaction log: 2,000 users, 200,000 interactions'
CREATE TABLE interactions AS
SELECT 1 + (random() ^ 2 * 1999)::int AS user_id,
       (ARRAY['sku:', 'brand:', 'voucher:'])[1 + (random() * 2)::int]
         || (random() ^ 3 * 20000)::int AS object
FROM generate_series(1, 200000);

\echo '--- 2. one filter per user, in one statement'
CREATE TABLE user_filters AS
  SELECT user_id, sbf_agg(object) AS seen FROM interactions GROUP BY user_id;
SELECT count(*) AS users,
       pg_size_pretty(sum(pg_column_size(seen))) AS filter_bytes,
       pg_size_pretty(sum(pg_column_size(seen)) / count(*)) AS per_user
FROM user_filters;

\echo '--- 3. candidate posts carry 1-5 objects each'
CREATE TABLE posts AS
SELECT post_id,
       ARRAY(SELECT (ARRAY['sku:', 'brand:', 'voucher:'])[1 + (random() * 2)::int]
                    || (random() ^ 3 * 20000)::int
             FROM generate_series(1, 1 + (post_id % 5))) AS objects
FROM generate_series(1, 5000) AS post_id;

\echo '--- 4. score 120 candidates for the heaviest user (top 10 shown)'
SELECT user_id AS heavy_user FROM interactions
GROUP BY user_id ORDER BY count(*) DESC LIMIT 1 \gset
SELECT p.post_id, p.objects, sbf_matches(f.seen, p.objects) AS hits
FROM posts p, user_filters f
WHERE f.user_id = :heavy_user AND p.post_id BETWEEN 1 AND 120
ORDER BY hits DESC, post_id LIMIT 10;

\echo '--- 5. the filter against the exact answer for those 120 candidates'
WITH scored AS (
  SELECT p.post_id, o AS object, f.seen @> o AS probably,
         EXISTS (SELECT 1 FROM interactions i
                 WHERE i.user_id = :heavy_user AND i.object = o) AS exact
  FROM posts p CROSS JOIN LATERAL unnest(p.objects) AS o, user_filters f
  WHERE f.user_id = :heavy_user AND p.post_id BETWEEN 1 AND 120)
SELECT count(*) AS checks,
       count(*) FILTER (WHERE exact) AS truly_seen,
       count(*) FILTER (WHERE exact AND NOT probably) AS false_negatives,
       count(*) FILTER (WHERE probably AND NOT exact) AS false_positives
FROM scored;

\echo '--- 6. keep it current, and look inside'
UPDATE user_filters SET seen = seen || 'sku:42' WHERE user_id = :heavy_user;
SELECT seen @> 'sku:42' AS has_sku_42, # seen AS distinct_objects,
       (SELECT count(DISTINCT object) FROM interactions
         WHERE user_id = :heavy_user) + 1 AS exact_at_most
FROM user_filters WHERE user_id = :heavy_user;
SELECT jsonb_pretty(sbf_info(seen)) AS info
FROM user_filters WHERE user_id = :heavy_user;

\echo '--- 7. windows (1.2): only what the user saw in the last 30 days, or 7'
-- give the log a time: the interactions spread over the 60 days before 1 December 2026
ALTER TABLE interactions ADD COLUMN at timestamptz;
UPDATE interactions SET at = timestamptz '2026-12-01 00:00+00' - random() * interval '60 days';
CREATE TABLE recent_filters AS
  SELECT user_id, sbf_window_agg(object, at, '1 day', 30, 0.01) AS seen
  FROM interactions GROUP BY user_id;
SELECT count(*) AS users,
       pg_size_pretty(sum(pg_column_size(seen)) / count(*)) AS per_user
FROM recent_filters;
-- hits of the heavy user's 120 candidates: ever, last 30 days, last 7 days,
-- and the exact count of objects seen in the last 7 days
SELECT sum(sbf_matches(f.seen, p.objects)) AS hits_ever,
       sum(sbf_matches(r.seen, p.objects)) AS hits_30_days,
       sum(sbf_matches(r.seen, p.objects, timestamptz '2026-12-01 00:00+00' - interval '7 days'))
         AS hits_7_days,
       sum((SELECT count(*) FROM unnest(p.objects) o
            WHERE EXISTS (SELECT 1 FROM interactions i
                          WHERE i.user_id = :heavy_user AND i.object = o
                            AND i.at >= timestamptz '2026-12-01 00:00+00' - interval '7 days')))
         AS exact_7_days
FROM posts p, user_filters f, recent_filters r
WHERE f.user_id = :heavy_user AND r.user_id = :heavy_user AND p.post_id BETWEEN 1 AND 120;
-- a nightly job slides every window to today; the buckets that fall out are
-- freed.  On 20 December the 30 buckets held are the days from 21 November on:
-- of the heavy user's distinct objects, those last seen before then are gone
UPDATE recent_filters SET seen = sbf_expire(seen, timestamptz '2026-12-20 00:00+00');
WITH objs AS (
  SELECT object, max(at) >= timestamptz '2026-11-21 00:00+00' AS in_window
  FROM interactions WHERE user_id = :heavy_user GROUP BY object)
SELECT (SELECT count(*) FROM objs) AS distinct_objects,
       (SELECT count(*) FROM objs WHERE in_window) AS exact_in_window,
       sbf_matches(seen, ARRAY(SELECT object FROM objs WHERE in_window)) AS hits_in_window,
       sbf_matches(seen, ARRAY(SELECT object FROM objs WHERE NOT in_window)) AS hits_forgotten
FROM recent_filters WHERE user_id = :heavy_user;
