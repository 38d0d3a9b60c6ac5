-- sbf_spill: aggregate states past a threshold tied to work_mem spill their
-- hashes to temporary files; the result is the bytes of the in-memory build.
-- sbf.spill_threshold (hashes, for tests) forces spilling at a tiny size.

-- temporary blocks the top plan node wrote (EXPLAIN's BUFFERS count the
-- BufFile writes of the aggregate's spill)
CREATE FUNCTION pg_temp.temp_written(query text) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
	plan json;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON, COSTS OFF, TIMING OFF) ' || query INTO plan;
	RETURN (plan->0->'Plan'->>'Temp Written Blocks')::bigint;
END $$;

-- files in this cluster's temporary directories right now
CREATE FUNCTION pg_temp.temp_files() RETURNS bigint
LANGUAGE sql AS $$ SELECT count(*) FROM pg_ls_tmpdir() $$;

-- 30,000 distinct elements in 90,000 rows, each element three times, in an
-- order unrelated to the elements
CREATE TABLE spill_rows AS
SELECT (i * 7919) % 30011 AS id, 'obj:' || ((i * 7919) % 30011) AS object, i % 7 AS g
FROM generate_series(1, 30000) i, generate_series(1, 3) r;
ANALYZE spill_rows;

-- the default threshold is work_mem / 24 bytes: at the default 4MB,
-- 174,762 hashes, so this group stays in memory
SELECT pg_temp.temp_written('SELECT sbf_agg(id) FROM spill_rows') AS in_memory_temp_blocks;
SELECT current_setting('sbf.spill_threshold') AS spill_threshold;
SELECT md5(sbf_agg(id)::bytea) AS mem_ids, md5(sbf_agg(object, 0.001)::bytea) AS mem_objects,
	   md5(sbf_hashset_agg(object)::bytea) AS mem_set
FROM spill_rows \gset
SELECT md5(string_agg(md5(f::bytea), ',' ORDER BY g)) AS mem_grouped
FROM (SELECT g, sbf_agg(object) AS f FROM spill_rows GROUP BY g) s \gset

-- a threshold of 1,000 hashes: the group spills (about 30 runs)
SET sbf.spill_threshold = 1000;
SELECT pg_temp.temp_written('SELECT sbf_agg(id) FROM spill_rows') > 0 AS spilled;
SELECT pg_temp.temp_written('SELECT sbf_hashset_agg(id) FROM spill_rows') > 0 AS set_spilled;

-- the same bytes as the in-memory build, in any row order
SELECT md5(sbf_agg(id)::bytea) = :'mem_ids' AS same_ids,
	   md5(sbf_agg(object, 0.001)::bytea) = :'mem_objects' AS same_objects_with_rate,
	   md5(sbf_hashset_agg(object)::bytea) = :'mem_set' AS same_set
FROM spill_rows;
SELECT md5(sbf_agg(id ORDER BY id)::bytea) = :'mem_ids' AS ascending,
	   md5(sbf_agg(id ORDER BY id DESC)::bytea) = :'mem_ids' AS descending,
	   md5(sbf_agg(id ORDER BY md5(object))::bytea) = :'mem_ids' AS shuffled
FROM spill_rows;

-- one group whose full buffers are first distinct (once the group has
-- spilled, each is written as a run of its own), then hold each element
-- three times in a row (merged into the array first), then distinct again:
-- the bytes of the build in memory
SET sbf.spill_threshold = 0;
SELECT md5(sbf_agg(x)::bytea) AS mem_mixed
FROM (SELECT generate_series(100001, 120000) AS x UNION ALL SELECT i / 3 FROM generate_series(0, 59999) i
	  UNION ALL SELECT generate_series(200001, 220000)) s \gset
SET sbf.spill_threshold = 1000;
SELECT md5(sbf_agg(x)::bytea) = :'mem_mixed' AS mixed_buffers_same
FROM (SELECT generate_series(100001, 120000) AS x UNION ALL SELECT i / 3 FROM generate_series(0, 59999) i
	  UNION ALL SELECT generate_series(200001, 220000)) s;

-- sized for the real distinct count: the filter's count and bits are those
-- of the in-memory build, and sbf_build of the spilled set gives the same bytes
SELECT (sbf_info(sbf_agg(id))->'segments'->0->>'capacity')::bigint AS capacity,
	   jsonb_array_length(sbf_info(sbf_agg(id))->'segments') AS segments
FROM spill_rows;
SELECT md5(sbf_build(sbf_hashset_agg(object), 0.001)::bytea) = :'mem_objects' AS build_same
FROM spill_rows;
SELECT # sbf_hashset_agg(object) AS distinct_hashes FROM spill_rows;

-- no false negatives: every element is in its filter
SELECT bool_and(f @> id) AS all_ids_found
FROM (SELECT sbf_agg(id) AS f FROM spill_rows) s, spill_rows;

-- many groups: sorted and hashed aggregation spill per group and each group
-- is closed when its context is reset
SET sbf.spill_threshold = 300;
SET enable_hashagg = off;
EXPLAIN (COSTS OFF) SELECT g, sbf_agg(object) AS f FROM spill_rows GROUP BY g;
SELECT md5(string_agg(md5(f::bytea), ',' ORDER BY g)) = :'mem_grouped' AS sorted_groups_same
FROM (SELECT g, sbf_agg(object) AS f FROM spill_rows GROUP BY g) s;
RESET enable_hashagg;
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT g, sbf_agg(object) AS f FROM spill_rows GROUP BY g;
SELECT md5(string_agg(md5(f::bytea), ',' ORDER BY g)) = :'mem_grouped' AS hashed_groups_same
FROM (SELECT g, sbf_agg(object) AS f FROM spill_rows GROUP BY g) s;
RESET enable_sort;

-- a tiny work_mem limits the merge's fan-in to 8 runs: the 100 runs are
-- first merged into longer ones, with the same result
SET sbf.spill_threshold = 300;
SET work_mem = '64kB';
SELECT md5(sbf_agg(id)::bytea) = :'mem_ids' AS multilevel_same,
	   md5(sbf_hashset_agg(object)::bytea) = :'mem_set' AS multilevel_set_same
FROM spill_rows;
RESET work_mem;
-- with work_mem alone (no test threshold): 64kB gives 2,730 hashes
SET sbf.spill_threshold = 0;
SET work_mem = '64kB';
SELECT pg_temp.temp_written('SELECT sbf_agg(id) FROM spill_rows') > 0 AS work_mem_spills;
SELECT md5(sbf_agg(id)::bytea) = :'mem_ids' AS work_mem_same FROM spill_rows;
RESET work_mem;

-- the spill file is closed when the aggregate is done (a file left open would
-- raise "temporary file leak" warnings at the end of each statement)
SET sbf.spill_threshold = 1000;
BEGIN;
SELECT md5(sbf_agg(id)::bytea) = :'mem_ids' AS same_in_transaction FROM spill_rows;
SELECT g, # sbf_hashset_agg(object) AS n FROM spill_rows GROUP BY g ORDER BY g LIMIT 2;
SELECT pg_temp.temp_files() AS files_left_before_commit;
COMMIT;

-- temp_file_limit applies: 53400 (whose message quotes the setting from 18 on),
-- and the files are gone afterwards
SET temp_file_limit = '64kB';
SELECT code, message ~ 'temp_file_limit' AS names_the_limit
FROM sbf_regress.try($$SELECT sbf_agg(id) FROM spill_rows$$);
RESET temp_file_limit;
SELECT pg_temp.temp_files() AS files_left_after_limit;

-- a cancelled build leaves no files either (the build of 50M rows takes
-- seconds; it has spilled long before the timeout; the series is in the
-- target list, so it is not materialised first)
SET sbf.spill_threshold = 1024;
SET statement_timeout = '500ms';
SELECT sbf_agg(x) FROM (SELECT generate_series(1, 50000000) AS x) s;
RESET statement_timeout;
SELECT pg_temp.temp_files() AS files_left_after_cancel;

-- a forced parallel plan: the workers' spilled partial states travel whole
-- as sbf_hashset values, and the result equals the serial build
ALTER TABLE spill_rows SET (parallel_workers = 2);
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET sbf.spill_threshold = 500;
EXPLAIN (COSTS OFF) SELECT sbf_agg(id) FROM spill_rows;
SELECT md5(sbf_agg(id)::bytea) = :'mem_ids' AS parallel_same,
	   md5(sbf_hashset_agg(object)::bytea) = :'mem_set' AS parallel_set_same
FROM spill_rows;
SELECT md5(string_agg(md5(f::bytea), ',' ORDER BY g)) = :'mem_grouped' AS parallel_grouped_same
FROM (SELECT g, sbf_agg(object) AS f FROM spill_rows GROUP BY g) s;
RESET max_parallel_workers_per_gather;
RESET sbf.spill_threshold;

-- past 4,194,304 hashes in all runs (more than the fused kind takes), the
-- default threshold makes about 25 runs: distinct elements are counted and
-- built in one merge (no run shares a hash, so the blocked filter sized for
-- their sum is the one); a hash in two runs, found in the merge's first
-- slice or only later (one repeat of the first row), means a count first;
-- each gives the bytes of sbf_build over the same set built in memory, also
-- when repeats leave fewer than 4,194,304 distinct
SELECT md5(sbf_build(sbf_hashset_agg(x))::bytea) AS big_ref
FROM generate_series(1, 4300000) x \gset
SELECT md5(sbf_agg(x)::bytea) = :'big_ref' AS distinct_one_merge
FROM generate_series(1, 4300000) x;
SELECT md5(sbf_agg(x)::bytea) = :'big_ref' AS one_late_repeat
FROM (SELECT generate_series(1, 4300000) AS x UNION ALL SELECT 1) s;
SELECT md5(sbf_agg(x)::bytea) = :'big_ref' AS early_repeats
FROM (SELECT generate_series(1, 4300000) AS x UNION ALL SELECT generate_series(1, 100000)) s;
SELECT md5(sbf_agg(x)::bytea) = (SELECT md5(sbf_build(sbf_hashset_agg(y))::bytea)
								 FROM generate_series(1, 3000000) y) AS repeats_below_fused_max
FROM (SELECT generate_series(1, 3000000) AS x UNION ALL SELECT generate_series(1, 1300000)) s;

-- a spilled set's encoding is written in one merge when the Rice parameter
-- guessed from the runs' sum is the one chosen (distinct elements, or a few
-- repeats: the count is written afterwards), in two when repeats make it
-- another (each element twice); each is the bytes of the set in memory
-- (300,000 hashes stay in memory with a work_mem of 64MB)
SET work_mem = '64MB';
SELECT pg_temp.temp_written('SELECT sbf_hashset_agg(x) FROM generate_series(1, 300000) x') AS set_in_memory_temp_blocks;
SELECT md5(sbf_hashset_agg(x)::bytea) AS set_300k FROM generate_series(1, 300000) x \gset
RESET work_mem;
SELECT pg_temp.temp_written('SELECT sbf_hashset_agg(x) FROM generate_series(1, 300000) x') > 0 AS set_spilled_300k;
SELECT md5(sbf_hashset_agg(x)::bytea) = :'set_300k' AS set_distinct_one_merge
FROM generate_series(1, 300000) x;
SELECT md5(sbf_hashset_agg(x)::bytea) = :'set_300k' AS set_few_repeats_one_merge
FROM (SELECT generate_series(1, 300000) AS x UNION ALL SELECT generate_series(1, 3000)) s;
SELECT md5(sbf_hashset_agg(x)::bytea) = :'set_300k' AS set_each_twice_two_merges
FROM (SELECT generate_series(1, 300000) AS x UNION ALL SELECT generate_series(1, 300000)) s;
-- so are parallel workers' spilled partial states of distinct elements
-- (flattened for the leader: sized by the one merge, then copied)
CREATE TABLE spill_distinct AS SELECT generate_series(1, 300000) AS x;
ALTER TABLE spill_distinct SET (parallel_workers = 2);
SET max_parallel_workers_per_gather = 2;
SET min_parallel_table_scan_size = 0;
SET sbf.spill_threshold = 5000;
EXPLAIN (COSTS OFF) SELECT sbf_hashset_agg(x) FROM spill_distinct;
SELECT md5(sbf_hashset_agg(x)::bytea) = :'set_300k' AS set_parallel_flattened
FROM spill_distinct;
RESET sbf.spill_threshold;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
DROP TABLE spill_distinct;

-- sbf.huge_pages (default on) offers the kernel the arrays of 2 MB and more
-- for transparent huge pages; it never changes a result: 300,000 distinct
-- (a spilled group with 2.4 MB of merged hashes, a fused build's 4.4 MB of
-- scratch, a 2.4 MB hash set) give the same bytes either way
SHOW sbf.huge_pages;
SET sbf.huge_pages = off;
CREATE TEMP TABLE hp_off AS
SELECT sbf_agg(x) AS f, sbf_hashset_agg(x) AS h FROM generate_series(1, 300000) x;
SET sbf.huge_pages = on;
SELECT f::bytea = (SELECT sbf_agg(x)::bytea FROM generate_series(1, 300000) x) AS same_filter,
	   h::bytea = (SELECT sbf_hashset_agg(x)::bytea FROM generate_series(1, 300000) x) AS same_set
FROM hp_off;
RESET sbf.huge_pages;
