-- hll_card.sql: cardinality estimates of postgresql-hll (Debian
-- postgresql-15-hll) on the same keys the C driver gives sbf's HyperLogLog:
-- the text 'u<seed>:<i>' for i = 1..n, and the even lines of a word list.
--
-- Run by run.sh inside a throwaway cluster (pg_virtualenv) with
--   psql -v seeds=20 -v bigseeds=5 -v nmax=1000000 -v bignmax=10000000 -v words=FILE
-- Prints tab-separated rows: impl, params, seed, n, estimate, bytes
-- (bytes = pg_column_size of the hll value).
--
-- Configurations: the defaults (log2m 11, regwidth 5: 1280 register bytes),
-- and the two closest to sbf's 384-byte HyperLogLog (2^9 registers of 6
-- bits): log2m 9 (320 bytes, the same 512 registers) and log2m 10 (640
-- bytes).  regwidth 6 would give exactly 384 bytes, but postgresql-hll
-- returns NaN for any regwidth above 5 (citusdata/postgresql-hll#15).
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS hll;

-- checkpoints: the 1-2-5 series from 10 up to bignmax
CREATE TEMP TABLE cp AS
SELECT row_number() OVER (ORDER BY n) AS j, n
FROM (SELECT DISTINCT (f * 10::numeric ^ d)::bigint AS n
      FROM unnest(ARRAY[1, 2, 5]) f, generate_series(1, 9) d) s
WHERE n <= :bignmax;

-- one partial hll per seed and checkpoint interval (n_{j-1}, n_j]
CREATE TEMP TABLE chunks AS
SELECT s.seed, c.j,
       hll_add_agg(hll_hash_text('u' || s.seed || ':' || g)) AS d11,
       hll_add_agg(hll_hash_text('u' || s.seed || ':' || g), 9, 5) AS d9,
       hll_add_agg(hll_hash_text('u' || s.seed || ':' || g), 10, 5) AS d10
FROM generate_series(1, :seeds) s(seed)
JOIN cp c ON c.n <= CASE WHEN s.seed <= :bigseeds THEN :bignmax ELSE :nmax END
CROSS JOIN LATERAL generate_series(
    coalesce((SELECT p.n FROM cp p WHERE p.j = c.j - 1), 0) + 1, c.n) g
GROUP BY s.seed, c.j;

-- cumulative unions give the estimate at each checkpoint
CREATE TEMP TABLE cum AS
SELECT c.seed, cp.n,
       (SELECT hll_union_agg(d11) FROM chunks x WHERE x.seed = c.seed AND x.j <= c.j) AS u11,
       (SELECT hll_union_agg(d9) FROM chunks x WHERE x.seed = c.seed AND x.j <= c.j) AS u9,
       (SELECT hll_union_agg(d10) FROM chunks x WHERE x.seed = c.seed AND x.j <= c.j) AS u10
FROM chunks c JOIN cp USING (j);

-- the word list: insert the even lines (0-based), as the C driver does
CREATE TEMP TABLE words (id bigserial, w text);
\set copy_words '\\copy words (w) FROM ' :'words'
:copy_words

CREATE TEMP TABLE wcum AS
SELECT count(*) AS n,
       hll_add_agg(hll_hash_text(w)) AS u11,
       hll_add_agg(hll_hash_text(w), 9, 5) AS u9,
       hll_add_agg(hll_hash_text(w), 10, 5) AS u10
FROM words WHERE id % 2 = 1;

\pset format unaligned
\pset fieldsep '\t'
\pset tuples_only on
SELECT impl, params, seed, n, round(est::numeric, 3), bytes
FROM (SELECT 'hll' AS impl, 'log2m=11,regwidth=5' AS params, seed::text AS seed, n,
             hll_cardinality(u11) AS est, pg_column_size(u11) AS bytes FROM cum
      UNION ALL
      SELECT 'hll', 'log2m=9,regwidth=5', seed::text, n,
             hll_cardinality(u9), pg_column_size(u9) FROM cum
      UNION ALL
      SELECT 'hll', 'log2m=10,regwidth=5', seed::text, n,
             hll_cardinality(u10), pg_column_size(u10) FROM cum
      UNION ALL
      SELECT 'hll', 'log2m=11,regwidth=5', 'words', n,
             hll_cardinality(u11), pg_column_size(u11) FROM wcum
      UNION ALL
      SELECT 'hll', 'log2m=9,regwidth=5', 'words', n,
             hll_cardinality(u9), pg_column_size(u9) FROM wcum
      UNION ALL
      SELECT 'hll', 'log2m=10,regwidth=5', 'words', n,
             hll_cardinality(u10), pg_column_size(u10) FROM wcum) r
ORDER BY params, seed, n;
