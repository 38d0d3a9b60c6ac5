-- f4_sizes.sql: sizes and measured false-positive rates of filters built by
-- sbf_agg, grown by adds and united, runnable against sbf 1.2 and later
-- (run by f4_sizes.sh on each build).  psql variables:
--   maxn     largest sbf_agg filter (10 .. maxn by powers of 10)
--   probes   non-members probed per filter (negative bigints: every element
--            added is positive, so each probe that answers true is a false
--            positive)
--   grow     first-segment capacities c of the grown filters: sbf_empty(c)
--            gets elements added in chunks up to 1000·c, measured at 10·c,
--            100·c and 1000·c
--   unionn   elements of each side of the unions
-- Prints one row per filter: case|n|bytes|rate|fpr_bound|error_rate|
-- members found / members probed|version|kinds.
\pset footer off
SELECT set_config('f4.maxn', :'maxn', false), set_config('f4.probes', :'probes', false),
	   set_config('f4.grow', :'grow', false), set_config('f4.unionn', :'unionn', false) \gset
CREATE TEMP TABLE f4 (ord serial, kase text, n bigint, f scalablebloom);
-- the kinds of a value's segments from sbf_info, e.g. "blocked x10+fused";
-- a windowed value's from its buckets' "kinds" (1.3), else its form
CREATE FUNCTION pg_temp.kinds(i jsonb) RETURNS text LANGUAGE sql AS $$
	SELECT coalesce((SELECT string_agg(k || CASE WHEN c > 1 THEN 'x' || c ELSE '' END, '+' ORDER BY k)
					 FROM (SELECT k, count(*) AS c
						   FROM (SELECT s->>'kind' AS k FROM jsonb_array_elements(
									CASE jsonb_typeof(i->'segments') WHEN 'array' THEN i->'segments' END) s
								 UNION ALL
								 SELECT jsonb_array_elements_text(w->'kinds')
								 FROM jsonb_array_elements(CASE jsonb_typeof(i->'window') WHEN 'array'
															   THEN i->'window' END) w) a
						   GROUP BY k) t),
					i->>'form')
$$;

-- one filter per size: sbf_agg at its default error_rate 0.01
DO $$
DECLARE
	n bigint := 10;
BEGIN
	WHILE n <= current_setting('f4.maxn')::bigint LOOP
		INSERT INTO f4 (kase, n, f) SELECT 'agg', n, sbf_agg(x) FROM generate_series(1, n) x;
		n := n * 10;
	END LOOP;
END $$;

-- 1000x growth by adds at 1%: sbf_empty(c, 0.01), then the elements
-- 1..1000c added in chunks (sbf_add of an array is a series of adds)
DO $$
DECLARE
	c bigint;
	f scalablebloom;
	done bigint;
	step bigint;
	chunk bigint;
BEGIN
	FOREACH c IN ARRAY string_to_array(current_setting('f4.grow'), ' ')::bigint[] LOOP
		f := sbf_empty(c, 0.01);
		done := 0;
		FOREACH step IN ARRAY ARRAY[10, 100, 1000] LOOP
			WHILE done < step * c LOOP
				chunk := least(step * c - done, 1000000);
				f := sbf_add(f, ARRAY(SELECT x FROM generate_series(done + 1, done + chunk) x));
				done := done + chunk;
			END LOOP;
			INSERT INTO f4 (kase, n, f) VALUES (format('grown c=%s', c), done, f);
		END LOOP;
	END LOOP;
END $$;

-- unions, each given the error_rate its two sides' budgets need (0.02):
--   agg+agg          two sbf_agg halves (1.3: fused segments, appended)
--   grown+grown      two filters grown by adds from sbf_empty(1000) (same
--                    geometry: blocked or bloom segments may OR)
--   agg+grown        mixed kinds
--   union_agg        sbf_union_agg of 10 sbf_agg filters of unionn/5, 0.1
DO $$
DECLARE
	n bigint := current_setting('f4.unionn')::bigint;
	a1 scalablebloom; a2 scalablebloom; g1 scalablebloom; g2 scalablebloom;
BEGIN
	SELECT sbf_agg(x) INTO a1 FROM generate_series(1, n) x;
	SELECT sbf_agg(x) INTO a2 FROM generate_series(n + 1, 2 * n) x;
	g1 := sbf_add(sbf_empty(1000, 0.01), ARRAY(SELECT x FROM generate_series(1, n) x));
	g2 := sbf_add(sbf_empty(1000, 0.01), ARRAY(SELECT x FROM generate_series(n + 1, 2 * n) x));
	INSERT INTO f4 (kase, n, f) VALUES
		('union agg+agg', 2 * n, sbf_union(a1, a2, 0.02)),
		('union grown+grown', 2 * n, sbf_union(g1, g2, 0.02)),
		('union agg+grown', 2 * n, sbf_union(a1, g2, 0.02));
	INSERT INTO f4 (kase, n, f)
	SELECT 'union_agg of 10', 2 * n, sbf_union_agg(f, 0.1)
	FROM (SELECT d, sbf_agg(x) AS f FROM generate_series(1, 2 * n) x,
			LATERAL (SELECT (x - 1) / ((2 * n + 9) / 10) AS d) dd GROUP BY d) s;
END $$;

-- a windowed filter: 30 daily buckets of 20,000 distinct elements each
-- (sbf_window_agg's defaults: buckets of 1 day, 30 of them, error_rate 0.01)
INSERT INTO f4 (kase, n, f)
SELECT 'window 30x20000', 600000,
	   sbf_window_agg(x, timestamptz '2026-01-01 12:00+00' + ((x - 1) / 20000) * interval '1 day')
FROM generate_series(1, 600000) x;

SELECT kase, n, octet_length(f::bytea),
	   sbf_matches(f, ARRAY(SELECT -x FROM generate_series(1, current_setting('f4.probes')::bigint) x))::float8
		   / current_setting('f4.probes')::bigint,
	   (sbf_info(f)->>'fpr_bound')::float8, (sbf_info(f)->>'error_rate')::float8,
	   sbf_matches(f, ARRAY(SELECT x FROM generate_series(1, least(n, current_setting('f4.probes')::bigint)) x))
		   || '/' || least(n, current_setting('f4.probes')::bigint),
	   sbf_info(f)->>'version',
	   pg_temp.kinds(sbf_info(f))
FROM f4 ORDER BY ord;
