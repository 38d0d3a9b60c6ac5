-- btree operator classes on scalablebloom and sbf_hashset (1.4): <, <=, >=, >
-- compare the canonical bytes (memcmp over the common length, then the
-- length), the order of bytea.  The order means nothing beyond "the same
-- bytes sort together"; it makes count(DISTINCT), ORDER BY and unique
-- indexes work, consistently with = and the hash classes.
SET extra_float_digits = 0;

-- the classes and their operators
SELECT c.opcname, c.opcdefault, m.amname,
       (SELECT string_agg(o.amopstrategy || ':' || o.amopopr::regoperator::text, ' ' ORDER BY o.amopstrategy)
        FROM pg_amop o WHERE o.amopfamily = c.opcfamily) AS ops,
       (SELECT string_agg(p.amprocnum || ':' || p.amproc::regproc::text, ' ' ORDER BY p.amprocnum)
        FROM pg_amproc p WHERE p.amprocfamily = c.opcfamily) AS procs
FROM pg_opclass c JOIN pg_am m ON m.oid = c.opcmethod
WHERE c.opcintype IN ('scalablebloom'::regtype, 'sbf_hashset'::regtype) AND m.amname = 'btree'
ORDER BY c.opcname;
-- every operator has its commutator, negator and estimators
SELECT o.oprname, o.oprleft::regtype, o.oprcom::regoperator AS commutator,
       o.oprnegate::regoperator AS negator, o.oprrest, o.oprjoin
FROM pg_operator o
WHERE o.oprleft IN ('scalablebloom'::regtype, 'sbf_hashset'::regtype)
  AND o.oprright = o.oprleft AND o.oprname IN ('<', '<=', '>=', '>')
ORDER BY o.oprleft::regtype::text, o.oprname;

-- filters of several sizes and forms (exact, segmented, TOASTed), each twice
CREATE TABLE ord_f (id int, f scalablebloom);
INSERT INTO ord_f
	SELECT n, sbf_agg('e:' || g) FROM generate_series(1, 12) n, generate_series(1, n * n * 80) g GROUP BY n;
INSERT INTO ord_f SELECT id + 100, f FROM ord_f;
INSERT INTO ord_f VALUES (200, sbf_empty()), (201, sbf_empty() || 'a'), (202, sbf_empty() || 'a' || 'b'),
	(203, NULL);
SELECT count(*) AS rows, count(f) AS non_null, count(DISTINCT f) AS count_distinct,
       (SELECT count(*) FROM (SELECT DISTINCT f FROM ord_f WHERE f IS NOT NULL) d) AS distinct_hash,
       max(pg_column_size(f)) > 8000 AS some_toasted
FROM ord_f;
-- ORDER BY f is the order of the bytes; equal values sort together
SELECT array_agg(id ORDER BY f, id) = array_agg(id ORDER BY f::bytea, id) AS order_is_bytes,
       array_agg(id ORDER BY f DESC, id) = array_agg(id ORDER BY f::bytea DESC, id) AS desc_is_bytes
FROM ord_f WHERE f IS NOT NULL;
SELECT count(*) FILTER (WHERE sbf_cmp(f, g) > 0) AS out_of_order,
       count(*) FILTER (WHERE sbf_cmp(f, g) = 0) AS equal_neighbours
FROM (SELECT f, lead(f) OVER (ORDER BY f) AS g FROM ord_f WHERE f IS NOT NULL) s WHERE g IS NOT NULL;
-- < <= = >= > and sbf_cmp agree over every pair: exactly one of <, =, >
SELECT count(*) AS pairs,
       count(*) FILTER (WHERE (a.f < b.f)::int + (a.f = b.f)::int + (a.f > b.f)::int <> 1) AS not_trichotomous,
       count(*) FILTER (WHERE (a.f <= b.f) <> (a.f < b.f OR a.f = b.f)) AS le_wrong,
       count(*) FILTER (WHERE (a.f >= b.f) <> (b.f <= a.f)) AS ge_wrong,
       count(*) FILTER (WHERE (a.f < b.f) <> (b.f > a.f)) AS commutator_wrong,
       count(*) FILTER (WHERE sign(sbf_cmp(a.f, b.f)) <> CASE WHEN bytea(a.f) < bytea(b.f) THEN -1
                                                              WHEN bytea(a.f) > bytea(b.f) THEN 1 ELSE 0 END) AS cmp_wrong,
       count(*) FILTER (WHERE (a.f = b.f) <> (sbf_cmp(a.f, b.f) = 0)) AS cmp_eq_wrong,
       count(*) FILTER (WHERE a.f = b.f AND sbf_hash_value(a.f) <> sbf_hash_value(b.f)) AS hash_wrong
FROM ord_f a, ord_f b WHERE a.f IS NOT NULL AND b.f IS NOT NULL;
-- NULL: strict
SELECT (NULL::scalablebloom < sbf_empty()) IS NULL AS lt_null, sbf_cmp(NULL, sbf_empty()) IS NULL AS cmp_null;

-- a btree index: used for =, and a unique index refuses a duplicate (23505)
-- (index entries must fit a page third: the small values)
CREATE TABLE ord_small AS SELECT * FROM ord_f WHERE pg_column_size(f) < 2000;
CREATE INDEX ord_small_btree ON ord_small (f);
ANALYZE ord_small;
SET enable_seqscan = off; SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM ord_small WHERE f = sbf_empty();
SELECT array_agg(id ORDER BY id) AS ids FROM ord_small WHERE f = sbf_empty() || 'a';
SELECT array_agg(id ORDER BY id) AS ids FROM ord_small WHERE f = (SELECT f FROM ord_f WHERE id = 3);
EXPLAIN (COSTS OFF) SELECT id FROM ord_small ORDER BY f;
SELECT array_agg(id ORDER BY f, id) = (SELECT array_agg(id ORDER BY f::bytea, id) FROM ord_small) AS index_order_is_bytes
FROM ord_small;
RESET enable_seqscan; RESET enable_bitmapscan;
CREATE TABLE ord_u (f scalablebloom UNIQUE);
INSERT INTO ord_u SELECT DISTINCT f FROM ord_small;
SELECT count(*) AS unique_rows FROM ord_u;
SELECT code, message FROM sbf_regress.try($$INSERT INTO ord_u VALUES (sbf_empty() || 'b' || 'a')$$);
SELECT code FROM sbf_regress.try($$INSERT INTO ord_u VALUES (sbf_empty() || 'c')$$);

-- sbf_hashset: the same
CREATE TABLE ord_h (id int, h sbf_hashset);
INSERT INTO ord_h
	SELECT n, sbf_hashset_agg('e:' || g) FROM generate_series(1, 12) n, generate_series(1, n * n * 40) g GROUP BY n;
INSERT INTO ord_h SELECT id + 100, h FROM ord_h;
INSERT INTO ord_h VALUES (200, NULL);
SELECT count(*) AS rows, count(DISTINCT h) AS count_distinct,
       (SELECT count(*) FROM (SELECT DISTINCT h FROM ord_h WHERE h IS NOT NULL) d) AS distinct_hash
FROM ord_h;
SELECT array_agg(id ORDER BY h, id) = array_agg(id ORDER BY h::bytea, id) AS order_is_bytes
FROM ord_h WHERE h IS NOT NULL;
SELECT count(*) AS pairs,
       count(*) FILTER (WHERE (a.h < b.h)::int + (a.h = b.h)::int + (a.h > b.h)::int <> 1) AS not_trichotomous,
       count(*) FILTER (WHERE (a.h <= b.h) <> (a.h < b.h OR a.h = b.h)) AS le_wrong,
       count(*) FILTER (WHERE (a.h >= b.h) <> (b.h <= a.h)) AS ge_wrong,
       count(*) FILTER (WHERE (a.h = b.h) <> (sbf_hashset_cmp(a.h, b.h) = 0)) AS cmp_eq_wrong,
       count(*) FILTER (WHERE (a.h < b.h) <> (sbf_hashset_cmp(a.h, b.h) < 0)) AS cmp_lt_wrong
FROM ord_h a, ord_h b WHERE a.h IS NOT NULL AND b.h IS NOT NULL;
CREATE TABLE ord_hu (h sbf_hashset);
CREATE UNIQUE INDEX ord_hu_h ON ord_hu (h);
INSERT INTO ord_hu SELECT DISTINCT h FROM ord_h WHERE pg_column_size(h) < 2000;
SELECT code, message FROM sbf_regress.try(
	$$INSERT INTO ord_hu SELECT sbf_hashset_agg('e:' || g ORDER BY g DESC) FROM generate_series(1, 40) g$$);

DROP TABLE ord_f, ord_small, ord_u, ord_h, ord_hu;
