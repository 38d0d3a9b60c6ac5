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
