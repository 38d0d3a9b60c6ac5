-- sbf demo: build per-user filters from an interaction log, then score
-- candidate posts for one user, as a feed-ranking service would.  Each step
-- says what it shows and what to conclude.  The data are random (seeded), so
-- counts vary a little from run to run of other PostgreSQL versions.
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
\echo '    Shows: sbf_agg builds each user''s filter, right-sized for that user''s distinct objects.'
\echo '    Conclude: a few hundred bytes per user.  Most users here saw few objects, so a fixed'
\echo '    part (header, HyperLogLog, or 8 bytes an element in the exact small form) dominates'
\echo '    bytes_per_distinct; a heavy user''s filter (step 6) nears the 1.2 bytes of the Bloom optimum.'
CREATE TABLE user_filters AS
  SELECT user_id, sbf_agg(object) AS seen FROM interactions GROUP BY user_id;
SELECT count(*) AS users,
       pg_size_pretty(sum(pg_column_size(seen))) AS filter_bytes,
       pg_size_pretty(sum(pg_column_size(seen)) / count(*)) AS per_user,
       round(sum(pg_column_size(seen))
             / (SELECT count(*) FROM (SELECT DISTINCT user_id, object FROM interactions) d), 2)
         AS bytes_per_distinct
FROM user_filters;

\echo '--- 3. candidate posts carry 1-5 objects each'
CREATE TABLE posts AS
SELECT post_id,
       ARRAY(SELECT (ARRAY['sku:', 'brand:', 'voucher:'])[1 + (random() * 2)::int]
                    || (random() ^ 3 * 20000)::int
             FROM generate_series(1, 1 + (post_id % 5))) AS objects
FROM generate_series(1, 5000) AS post_id;

\echo '--- 4. score 120 candidates for the heaviest user (top 10 shown)'
\echo '    Shows: sbf_matches counts, per post, the objects the user has probably seen.'
\echo '    Conclude: one call per candidate row; the ranking service demotes posts with hits.'
SELECT user_id AS heavy_user FROM interactions
GROUP BY user_id ORDER BY count(*) DESC LIMIT 1 \gset
SELECT p.post_id, p.objects, sbf_matches(f.seen, p.objects) AS hits
FROM posts p, user_filters f
WHERE f.user_id = :heavy_user AND p.post_id BETWEEN 1 AND 120
ORDER BY hits DESC, post_id LIMIT 10;

\echo '--- 5. the filter against the exact answer for those 120 candidates'
\echo '    Shows: every (post, object) pair checked with @> and against the log itself.'
\echo '    Conclude: false_negatives is always 0 (a filter never misses what was added);'
\echo '    false positives are expected: about (checks - truly_seen) x fpr_estimate of the filter,'
\echo '    the expected count printed beside them (a handful at most, often 0).'
WITH scored AS (
  SELECT p.post_id, o AS object, f.seen @> o AS probably,
         EXISTS (SELECT 1 FROM interactions i
                 WHERE i.user_id = :heavy_user AND i.object = o) AS exact
  FROM posts p CROSS JOIN LATERAL unnest(p.objects) AS o, user_filters f
  WHERE f.user_id = :heavy_user AND p.post_id BETWEEN 1 AND 120)
SELECT count(*) AS checks,
       count(*) FILTER (WHERE exact) AS truly_seen,
       count(*) FILTER (WHERE exact AND NOT probably) AS false_negatives,
       count(*) FILTER (WHERE probably AND NOT exact) AS false_positives,
       round(((count(*) - count(*) FILTER (WHERE exact))
              * (SELECT (sbf_info(seen)->>'fpr_estimate')::float8 FROM user_filters
                 WHERE user_id = :heavy_user))::numeric, 2) AS expected_false_positives
FROM scored;

\echo '--- 6. keep it current, and look inside'
\echo '    Shows: an add with ||, then the filter''s distinct count next to the exact count.'
\echo '    Conclude: # is an estimate (count_source says which: the segments'' insert counts,'
\echo '    corrected for skipped false positives, or the HyperLogLog after unions); it may sit'
\echo '    slightly above or below the exact count, here within the printed error.'
UPDATE user_filters SET seen = seen || 'sku:42' WHERE user_id = :heavy_user;
SELECT seen @> 'sku:42' AS has_sku_42,
       # seen AS distinct_estimate,
       e.exact AS distinct_exact,
       round(100.0 * ((# seen) - e.exact) / e.exact, 2) AS error_pct,
       sbf_info(seen)->>'count_source' AS count_source
FROM user_filters,
     LATERAL (SELECT count(DISTINCT object) AS exact
              FROM (SELECT object FROM interactions WHERE user_id = :heavy_user
                    UNION ALL SELECT 'sku:42') o) e
WHERE user_id = :heavy_user;
\echo '    The filter in one line (sbf_info has every field, per segment too):'
SELECT sbf_info(seen)->>'form' AS form,
       jsonb_array_length(sbf_info(seen)->'segments') AS segments,
       (sbf_info(seen)->>'bytes')::int AS bytes,
       round((sbf_info(seen)->>'bytes')::numeric / (# seen), 2) AS bytes_per_object,
       round((sbf_info(seen)->>'error_rate')::numeric, 4) AS error_rate,
       round((sbf_info(seen)->>'fpr_bound')::numeric, 4) AS fpr_bound,
       round((sbf_info(seen)->>'fpr_estimate')::numeric, 4) AS fpr_estimate
FROM user_filters WHERE user_id = :heavy_user;

\echo '--- 7. windows (1.2): only what the user saw in the last 30 days, or 7'
\echo '    Shows: sbf_window_agg keeps 30 daily buckets; sbf_matches with since looks at fewer.'
\echo '    Conclude: hits shrink as the window narrows, and hits_7_days is at least exact_7_days'
\echo '    (no false negatives; more only by a rare false positive, or by the bucket that holds'
\echo '    since, which counts whole).'
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
\echo '    A nightly sbf_expire slides the window: what was last seen before it is forgotten.'
\echo '    Conclude: hits_in_window equals exact_in_window (no false negatives), and'
\echo '    hits_forgotten are false positives: expect about expected_fp of them (the forgotten'
\echo '    objects times the window''s fpr_bound), give or take its square root.'
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
       sbf_matches(seen, ARRAY(SELECT object FROM objs WHERE NOT in_window)) AS hits_forgotten,
       round(((SELECT count(*) FROM objs WHERE NOT in_window)
              * (sbf_info(seen)->>'fpr_bound')::float8)::numeric, 2) AS expected_fp
FROM recent_filters WHERE user_id = :heavy_user;

\echo '--- what to conclude'
\echo '    0 false negatives in every check above; false positives near their expected counts;'
\echo '    distinct counts are estimates close to the exact ones; a few hundred bytes per user.'
