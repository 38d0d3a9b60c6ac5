-- agg_adds_sweep.sql: bytes of a value sbf_agg wrote for n elements after t
-- more were added (sbf_add with arrays, t growing by 15% a step from n/20,
-- or from n/2 for the small n, to 30n or 300n), one line "n t bytes" per
-- step.  Run by test/bench/agg_adds_sweep.sh on each build; the same
-- elements on both.
\set ON_ERROR_STOP 1
CREATE EXTENSION IF NOT EXISTS sbf;
CREATE TEMP TABLE sweep (n int, t int, bytes int);
DO $$
DECLARE
	n int;
	t int;
	f scalablebloom;
	done int;
	m float8;
BEGIN
	FOREACH n IN ARRAY ARRAY[1, 3, 8, 12, 20, 30, 100, 300, 1000, 3000] LOOP
		SELECT sbf_agg('a' || i) INTO f FROM generate_series(1, n) i;
		done := 0;
		m := CASE WHEN n < 30 THEN 0.5 ELSE 0.05 END;
		WHILE m <= CASE WHEN n < 30 THEN 300 ELSE 30 END LOOP
			t := ceil(n * m);
			IF t > done THEN
				f := sbf_add(f, ARRAY(SELECT 'b' || i FROM generate_series(done + 1, t) i));
				done := t;
				INSERT INTO sweep VALUES (n, t, pg_column_size(f));
			END IF;
			m := m * 1.15;
		END LOOP;
	END LOOP;
END $$;
COPY (SELECT n, t, bytes FROM sweep ORDER BY n, t) TO STDOUT WITH (DELIMITER ' ');
