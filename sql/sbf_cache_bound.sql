-- sbf_cache_bound: sbf.cache_size bounds the session cache by what a kept
-- copy costs, its raw (detoasted) size, whatever the value's stored size.  A
-- compressed value of a few kB that detoasts to megabytes is never kept by a
-- smaller cache; pg_backend_memory_contexts shows what the cache holds.

-- bytes held by the session cache's memory context (0 before its first use)
CREATE FUNCTION cb_cache_bytes() RETURNS bigint LANGUAGE sql AS $$
	SELECT coalesce(sum(total_bytes), 0)::bigint FROM pg_backend_memory_contexts
	WHERE name = 'scalablebloom session cache'
$$;

-- Sparse filters (2,100 elements in a large capacity: segmented, mostly zero
-- bits) compress well; the same filters stored uncompressed do not shrink.
CREATE TABLE cb (id int PRIMARY KEY, label text NOT NULL, f scalablebloom NOT NULL);
CREATE TABLE cb_src (cap bigint PRIMARY KEY, f scalablebloom NOT NULL);
INSERT INTO cb_src
SELECT cap, sbf_add(sbf_empty(cap), ARRAY(SELECT 'e' || i FROM generate_series(1, 2100) i))
FROM (VALUES (370000), (870000), (2050000)) v(cap);
-- the default STORAGE external: out of line, uncompressed
INSERT INTO cb SELECT 1, 'external 0.6 MB', f FROM cb_src WHERE cap = 370000;
INSERT INTO cb SELECT 2, 'external 1.5 MB', f FROM cb_src WHERE cap = 870000;
-- STORAGE extended: compressed (pglz, then lz4), then out of line; pglz
-- named, since the default compression is lz4 from PostgreSQL 19 on
ALTER TABLE cb ALTER COLUMN f SET STORAGE extended;
ALTER TABLE cb ALTER COLUMN f SET COMPRESSION pglz;
INSERT INTO cb SELECT 3, 'pglz 0.6 MB', f FROM cb_src WHERE cap = 370000;
INSERT INTO cb SELECT 4, 'pglz 3.6 MB', f FROM cb_src WHERE cap = 2050000;
ALTER TABLE cb ALTER COLUMN f SET COMPRESSION lz4;
INSERT INTO cb SELECT 5, 'lz4 3.6 MB', f FROM cb_src WHERE cap = 2050000;
SELECT id, label, octet_length(f::bytea) / 100000 AS raw_100kb,
	   pg_column_size(f) < 200000 AS stored_under_200kb,
	   pg_column_compression(f) AS compression
FROM cb ORDER BY id;

-- A value enters the cache on its second read by the session (a query each).
CREATE FUNCTION cb_read(fid int) RETURNS TABLE (hits bigint, misses bigint)
LANGUAGE plpgsql AS $$
BEGIN
	FOR i IN 1..3 LOOP
		EXECUTE 'SELECT count(*) FILTER (WHERE f @> (''e'' || g)),
						count(*) FILTER (WHERE NOT f @> (''e'' || g))
				 FROM cb, generate_series(1, 2100) g WHERE id = $1'
		INTO hits, misses USING fid;
	END LOOP;
	RETURN NEXT;
END
$$;

SET sbf.cache_size = '1MB';
SELECT cb_cache_bytes() < 65536 AS cache_empty;
-- 0.6 MB uncompressed fits: kept
SELECT * FROM cb_read(1);
SELECT cb_cache_bytes() BETWEEN 500000 AND 1048576 AS kept_06_external;
-- 1.5 MB uncompressed does not fit: not kept, and the kept one stays
SELECT * FROM cb_read(2);
SELECT cb_cache_bytes() BETWEEN 500000 AND 1048576 AS not_kept_15_external;
-- 3.6 MB compressed to a few kB does not fit either: its raw size counts
SELECT * FROM cb_read(4);
SELECT cb_cache_bytes() BETWEEN 500000 AND 1048576 AS not_kept_36_pglz;
SELECT * FROM cb_read(5);
SELECT cb_cache_bytes() BETWEEN 500000 AND 1048576 AS not_kept_36_lz4;
-- the cache off empties it; a compressed value whose raw size fits is kept
SET sbf.cache_size = 0;
SELECT * FROM cb_read(1);
SELECT cb_cache_bytes() < 65536 AS emptied;
SET sbf.cache_size = '1MB';
SELECT * FROM cb_read(3);
SELECT cb_cache_bytes() BETWEEN 500000 AND 1048576 AS kept_06_pglz;

-- with a cache of 8MB every one of them is kept; the total stays below it
SET sbf.cache_size = '8MB';
SELECT * FROM cb_read(4);
SELECT cb_cache_bytes() BETWEEN 3500000 AND 8388608 AS kept_36_pglz;
SELECT * FROM cb_read(2);
SELECT cb_cache_bytes() BETWEEN 5000000 AND 8388608 AS kept_36_and_15;
SELECT * FROM cb_read(5);
SELECT cb_cache_bytes() <= 8388608 AS within_8mb;
RESET sbf.cache_size;

DROP TABLE cb, cb_src;
DROP FUNCTION cb_read(int), cb_cache_bytes();
