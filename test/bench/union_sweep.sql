-- union_sweep.sql: bytes of unions of values sbf_agg wrote, one line "op na
-- nb shared rate bytes" per case (bytes -1 where the union is refused):
-- "pair" sbf_union(a, b, rate) of a of na elements and b of nb, sharing
-- about half of the smaller (shared 1) or nothing (0); "days" sbf_union_agg
-- (f, rate) over na days of nb elements each, a day sharing half of its
-- elements with the day before.  Run by test/bench/union_sweep.sh on each
-- build; the same elements on both.
\set ON_ERROR_STOP 1
CREATE EXTENSION IF NOT EXISTS sbf;
CREATE TEMP TABLE sweep (op text, na int, nb int, shared int, rate float8, bytes int);
CREATE FUNCTION pg_temp.agg_of(p text, lo int, n int) RETURNS scalablebloom
	LANGUAGE sql RETURN (SELECT sbf_agg(p || i) FROM generate_series(lo, lo + n - 1) i);
DO $$
DECLARE
	na int;
	nb int;
	sh int;
	r float8;
	u scalablebloom;
BEGIN
	FOREACH na IN ARRAY ARRAY[1, 3, 8, 10, 30, 100, 300, 1000, 3000, 10000] LOOP
		FOREACH nb IN ARRAY ARRAY[1, 3, 8, 10, 30, 100, 300, 1000, 3000, 10000] LOOP
			CONTINUE WHEN nb < na;
			FOREACH sh IN ARRAY ARRAY[0, 1] LOOP
				FOREACH r IN ARRAY ARRAY[0.01, 0.02, 0.05, 0.1] LOOP
					BEGIN
						u := sbf_union(pg_temp.agg_of('e', 1, na),
									   pg_temp.agg_of('e', CASE WHEN sh = 1 THEN na / 2 + 1 ELSE na + 1 END, nb), r);
						INSERT INTO sweep VALUES ('pair', na, nb, sh, r, pg_column_size(u));
					EXCEPTION WHEN invalid_parameter_value THEN
						INSERT INTO sweep VALUES ('pair', na, nb, sh, r, -1);
					END;
				END LOOP;
			END LOOP;
		END LOOP;
	END LOOP;
	FOREACH na IN ARRAY ARRAY[3, 10, 30] LOOP
		FOREACH nb IN ARRAY ARRAY[1, 5, 30, 100, 300, 1000] LOOP
			FOREACH r IN ARRAY ARRAY[0.05, 0.1, 0.3] LOOP
				BEGIN
					SELECT sbf_union_agg(f, r) INTO u
					FROM (SELECT pg_temp.agg_of('d', d * greatest(nb / 2, 1), nb) AS f
						  FROM generate_series(1, na) d) s;
					INSERT INTO sweep VALUES ('days', na, nb, 1, r, pg_column_size(u));
				EXCEPTION WHEN invalid_parameter_value THEN
					INSERT INTO sweep VALUES ('days', na, nb, 1, r, -1);
				END;
			END LOOP;
		END LOOP;
	END LOOP;
END $$;
\pset format unaligned
\pset tuples_only on
\pset fieldsep ' '
SELECT op, na, nb, shared, rate, bytes FROM sweep ORDER BY op, na, nb, shared, rate;
