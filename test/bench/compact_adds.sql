-- compact_adds.sql: bytes of a value sbf_agg wrote for n elements after k
-- more elements added one at a time (f || e), 1.4's way (the compact form
-- rewritten in place while the new fingerprints fit its bits, docs/format5.md
-- section 3) beside adds to its segmented form (what 1.4 did before, and what
-- it still does past the room: the value's sbf_union with an empty filter is
-- that form).  k = 1, then 10%, 25%, 50% and 100% of n.  Every element added
-- is found after.  Run by test/bench/compact_adds.sh.
\pset footer off
CREATE EXTENSION IF NOT EXISTS sbf;
CREATE TEMP TABLE adds (n int, k int, in_place int, in_place_form text, segmented int,
						missing int);
DO $$
DECLARE
	n int;
	k int;
	f scalablebloom;
	g scalablebloom;
	done int;
BEGIN
	FOREACH n IN ARRAY ARRAY[30, 100, 300, 1000, 3000] LOOP
		SELECT sbf_agg('a' || i) INTO f FROM generate_series(1, n) i;
		g := sbf_union(f, sbf_empty());
		done := 0;
		FOREACH k IN ARRAY ARRAY[1, n / 10, n / 4, n / 2, n] LOOP
			WHILE done < k LOOP
				done := done + 1;
				f := f || ('b' || done);
				g := g || ('b' || done);
			END LOOP;
			INSERT INTO adds
			SELECT n, k, pg_column_size(f), sbf_info(f)->>'form', pg_column_size(g),
				   (SELECT count(*) FROM generate_series(1, n) i
					WHERE NOT f @> ('a' || i)) +
				   (SELECT count(*) FROM generate_series(1, k) i
					WHERE NOT f @> ('b' || i));
		END LOOP;
	END LOOP;
END $$;
SELECT n, k, in_place, in_place_form, segmented,
	   round(in_place::numeric / segmented, 2) AS ratio, missing
FROM adds ORDER BY n, k;

-- the time of those adds: the elements the room takes, added one at a time to
-- sbf_agg's value of n, in place while the room lasts, against the same adds
-- to its segmented form; the median of 5 runs, and the ratio (one run:
-- timings on a shared machine are noisy, ratios within one run are not)
CREATE TEMP TABLE add_times (n int, run int, path text, ms float8);
DO $$
DECLARE
	n int;
	r int;
	f scalablebloom;
	g scalablebloom;
	room int;
	t timestamptz;
BEGIN
	FOREACH n IN ARRAY ARRAY[100, 1000, 3000] LOOP
		FOR r IN 1 .. 5 LOOP
			SELECT sbf_agg('a' || i) INTO f FROM generate_series(1, n) i;
			g := sbf_union(f, sbf_empty());
			room := floor(0.01 ^ 1.04 * 2 ^ (sbf_info(f)->>'fingerprint_bits')::int) - n;
			t := clock_timestamp();
			FOR i IN 1 .. room LOOP
				f := f || ('b' || i);
			END LOOP;
			INSERT INTO add_times VALUES (n, r, 'in place',
				extract(epoch FROM clock_timestamp() - t) * 1000 / greatest(room, 1));
			t := clock_timestamp();
			FOR i IN 1 .. room LOOP
				g := g || ('b' || i);
			END LOOP;
			INSERT INTO add_times VALUES (n, r, 'segmented',
				extract(epoch FROM clock_timestamp() - t) * 1000 / greatest(room, 1));
		END LOOP;
	END LOOP;
END $$;
SELECT n, round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE path = 'in place'))::numeric * 1000, 2) AS in_place_us_per_add,
	   round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE path = 'segmented'))::numeric * 1000, 2) AS segmented_us_per_add,
	   round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE path = 'in place') /
			  percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE path = 'segmented'))::numeric, 2) AS ratio
FROM add_times GROUP BY n ORDER BY n;
