-- = and <> on scalablebloom and sbf_hashset (1.3): equal means the same
-- canonical bytes.  Equal sets built the same way compare equal; the same
-- elements built another way are a different value.  A hash operator class
-- makes DISTINCT, GROUP BY, UNION, hash joins and hash indexes work; the
-- btree classes (1.4) are tested in sbf_order.
SET extra_float_digits = 0;
-- three groups of disjoint sets, each element in about four rows
CREATE TABLE eq_rows AS
	SELECT (g % 700) % 3 AS grp, 'e:' || (g % 700) AS e FROM generate_series(1, 3000) g;

-- the same set built the same way: equal, whatever the row order
SELECT (SELECT sbf_agg(e ORDER BY e) FROM eq_rows)
     = (SELECT sbf_agg(e ORDER BY e DESC) FROM eq_rows) AS agg_any_order_equal;
SELECT (SELECT sbf_agg(e ORDER BY e) FROM eq_rows)
    <> (SELECT sbf_agg(e ORDER BY e DESC) FROM eq_rows) AS agg_any_order_differ;
-- the same elements built differently: grown by || against sbf_agg, or
-- another error_rate, give other bytes, so not equal
SELECT (SELECT sbf_agg(e) FROM eq_rows)
     = (SELECT sbf_add(sbf_empty(), array_agg(e ORDER BY e)) FROM eq_rows) AS agg_equals_grown;
SELECT (SELECT sbf_agg(e) FROM eq_rows)
     = (SELECT sbf_agg(e, 0.02) FROM eq_rows) AS agg_equals_other_rate;
-- a different set: not equal; one more element makes a difference
SELECT (SELECT sbf_agg(e) FROM eq_rows) <> (SELECT sbf_agg(e) FROM eq_rows WHERE e <> 'e:1') AS differ_by_one;
-- small (exact) filters: equal adds in another order give the same bytes
SELECT sbf_empty() || 'a' || 'b' = sbf_empty() || 'b' || 'a' AS exact_add_order_equal,
       sbf_empty() || 'a' = sbf_empty() || 'b' AS exact_different,
       sbf_empty() = sbf_empty() AS empty_equal,
       sbf_empty() = sbf_empty(2000) AS other_capacity_equal;
-- unions are canonical: f || g = g || f
SELECT sbf_union(a, b, 0.05) = sbf_union(b, a, 0.05) AS union_symmetric
FROM (SELECT sbf_agg(e) FILTER (WHERE grp = 0) AS a, sbf_agg(e) FILTER (WHERE grp = 1) AS b
      FROM eq_rows) s;
-- windowed filters too
SELECT sbf_window_agg(e, timestamptz '2026-01-01 00:00+00' + grp * interval '1 day')
     = sbf_window_agg(e, timestamptz '2026-01-01 00:00+00' + grp * interval '1 day' ORDER BY e DESC)
       AS window_equal
FROM eq_rows;
-- NULL: = and <> are strict
SELECT (NULL::scalablebloom = sbf_empty()) IS NULL AS eq_null,
       (sbf_empty() <> NULL::scalablebloom) IS NULL AS ne_null;
-- equal values hash equal
SELECT sbf_hash_value(a) = sbf_hash_value(b) AS hash_equal,
       sbf_hash_value_extended(a, 7) = sbf_hash_value_extended(b, 7) AS hash_ext_equal,
       sbf_hash_value_extended(a, 0) <> sbf_hash_value_extended(a, 7) AS seed_matters
FROM (SELECT sbf_agg(e ORDER BY e) AS a, sbf_agg(e ORDER BY e DESC) AS b FROM eq_rows) s;

-- DISTINCT, GROUP BY, UNION, count(DISTINCT) over a table of filters
CREATE TABLE eq_filters AS
	SELECT grp, (grp % 2) AS parity, sbf_agg(e) AS f FROM eq_rows GROUP BY grp;
INSERT INTO eq_filters SELECT grp + 10, parity, f FROM eq_filters;   -- each filter twice
SELECT count(*) AS rows, (SELECT count(*) FROM (SELECT DISTINCT f FROM eq_filters) d) AS distinct_filters
FROM eq_filters;
SELECT count(*) AS copies, min(grp) AS first_grp FROM eq_filters GROUP BY f ORDER BY first_grp;
SELECT count(*) AS union_rows FROM (SELECT f FROM eq_filters UNION SELECT f FROM eq_filters) u;
SELECT count(*) AS intersect_rows FROM (SELECT f FROM eq_filters WHERE grp < 10
                                        INTERSECT SELECT f FROM eq_filters WHERE grp >= 10) i;
-- a hash join on =
SET enable_mergejoin = off; SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT a.grp, b.grp FROM eq_filters a JOIN eq_filters b ON a.f = b.f;
SELECT a.grp, b.grp FROM eq_filters a JOIN eq_filters b ON a.f = b.f AND a.grp < b.grp ORDER BY 1, 2;
RESET enable_mergejoin; RESET enable_nestloop;

-- stored values: TOASTed (external) and compared with a computed copy
CREATE TABLE eq_big (id int, f scalablebloom);
INSERT INTO eq_big SELECT 1, sbf_agg(g) FROM generate_series(1, 20000) g;
SELECT pg_column_size(f) > 8000 AS out_of_line,
       f = (SELECT sbf_agg(g) FROM generate_series(1, 20000) g) AS stored_equals_computed
FROM eq_big;

-- a hash index serves =
CREATE INDEX eq_filters_f_hash ON eq_filters USING hash (f);
SET enable_seqscan = off;
PREPARE eq_lookup(scalablebloom) AS SELECT grp FROM eq_filters WHERE f = $1 ORDER BY grp;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE eq_lookup(NULL);
SELECT f AS grp1_filter FROM eq_filters WHERE grp = 1 \gset
EXECUTE eq_lookup(:'grp1_filter');
RESET plan_cache_mode; RESET enable_seqscan;

-- sbf_hashset: the same set, however it was put together, is the same value
CREATE TABLE eq_sets AS
	SELECT grp, sbf_hashset_agg(e) AS h FROM eq_rows GROUP BY grp;
SELECT (SELECT sbf_hashset_union_agg(h) FROM eq_sets) = (SELECT sbf_hashset_agg(e) FROM eq_rows)
       AS union_of_parts_equals_whole,
       (SELECT sbf_hashset_union(a.h, b.h) FROM eq_sets a, eq_sets b WHERE a.grp = 0 AND b.grp = 1)
     = (SELECT sbf_hashset_union(b.h, a.h) FROM eq_sets a, eq_sets b WHERE a.grp = 0 AND b.grp = 1)
       AS union_symmetric,
       (SELECT h FROM eq_sets WHERE grp = 0) <> (SELECT h FROM eq_sets WHERE grp = 1) AS parts_differ;
-- sbf_build of equal sets gives equal filters, equal to sbf_agg's
SELECT sbf_build(sbf_hashset_union_agg(h)) = (SELECT sbf_agg(e) FROM eq_rows) AS build_equals_agg
FROM eq_sets;
-- DISTINCT and GROUP BY over hash sets, TOASTed values among them
INSERT INTO eq_sets SELECT grp + 10, h FROM eq_sets;
INSERT INTO eq_sets SELECT 99, sbf_hashset_agg(g) FROM generate_series(1, 100000) g;
INSERT INTO eq_sets SELECT 98, sbf_hashset_agg(g) FROM generate_series(1, 100000) g;
SELECT count(DISTINCT grp) AS rows, (SELECT count(*) FROM (SELECT DISTINCT h FROM eq_sets) d) AS distinct_sets
FROM eq_sets;
SELECT count(*) AS copies, min(grp), max(grp) FROM eq_sets GROUP BY h ORDER BY 2;
SELECT pg_column_size(a.h) > 100000 AS large, sbf_hashset_hash_value(a.h) = sbf_hashset_hash_value(b.h) AS hash_equal
FROM eq_sets a, eq_sets b WHERE a.grp = 98 AND b.grp = 99;
SELECT (NULL::sbf_hashset = NULL::sbf_hashset) IS NULL AS eq_null;
CREATE INDEX eq_sets_h_hash ON eq_sets USING hash (h);

DROP TABLE eq_rows, eq_filters, eq_big, eq_sets;
