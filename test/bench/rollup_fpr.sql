-- rollup_fpr.sql: the 30-day rollup of the README's "Rolling up" section,
-- measured.  30 days of 2,000 distinct objects each (60,000 in all), one
-- sbf_hashset and one sbf_agg filter per day; the 30-day filter built from
-- the daily sets with sbf_build(sbf_hashset_union_agg(h)), probed with
-- 200,000 objects that were never added.  Prints bytes per element of the
-- daily sets and filters, and the rollup's measured false-positive rate
-- against its bound.  Deterministic (the hash is fixed); about 10 s.
-- Run, with sbf installed in the installation PG_CONFIG names, with
--   PG_CONFIG=/path/bin/pg_config bash test/pg_tmp.sh psql -f test/bench/rollup_fpr.sql
-- (or psql -f against any database with sbf 1.1 or later).
\set QUIET on
\pset footer off
CREATE EXTENSION IF NOT EXISTS sbf;
CREATE TEMP TABLE interactions AS
SELECT d AS day, 'sku:' || (d * 100000 + i) AS object
FROM generate_series(1, 30) d, generate_series(1, 2000) i;
CREATE TEMP TABLE days AS
SELECT day, sbf_hashset_agg(object) AS h, sbf_agg(object) AS f
FROM interactions GROUP BY day;

\echo 'daily values: bytes per element'
SELECT round(avg(octet_length(h::bytea)::numeric / (# h)), 2) AS hashset,
	   round(avg(octet_length(f::bytea)::numeric / (# h)), 2) AS filter
FROM days;

CREATE TEMP TABLE rollup AS
SELECT sbf_build(sbf_hashset_union_agg(h)) AS f, sbf_hashset_union_agg(h) AS h FROM days;

\echo '30-day rollup built with sbf_build(sbf_hashset_union_agg(h))'
SELECT # h AS elements, octet_length(h::bytea) AS hashset_bytes,
	   octet_length(f::bytea) AS filter_bytes,
	   f::bytea = (SELECT sbf_agg(object)::bytea FROM interactions) AS same_as_sbf_agg,
	   (SELECT bool_and(f @> object) FROM interactions) AS no_false_negatives,
	   round((sbf_info(f)->>'fpr_bound')::numeric, 5) AS fpr_bound
FROM rollup;
SELECT count(*) FILTER (WHERE f @> ('absent:' || i)) AS false_positives,
	   200000 AS probes,
	   round(count(*) FILTER (WHERE f @> ('absent:' || i)) / 200000.0 * 100, 3) AS fpr_percent
FROM rollup, generate_series(1, 200000) i;
