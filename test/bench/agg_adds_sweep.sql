-- agg_adds_sweep.sql: bytes of a value sbf_agg wrote for n elements after t
-- more were added: "batch" (sbf_add with arrays, t growing by 15% a step
-- from n/20, or from n/2 for the small n, to 30n or 300n) and "single" (one
-- element at a time with ||, every step, to 1,500 or 4n), one line "mode n
-- t bytes" per step.  Run by test/bench/agg_adds_sweep.sh on each build;
-- the same elements on both.
\set ON_ERROR_STOP 1
CREATE EXTENSION IF NOT EXISTS sbf;
CREATE TEMP TABLE sweep (mode text, n int, t int, bytes int);
DO $$
DECLARE
	n int;
	t int;
	f scalablebloom;
	done int;
	m float8;
BEGIN
	FOREACH n IN ARRAY ARRAY[1, 3, 5, 8, 9, 10, 11, 12, 20, 30, 64, 100, 265, 300, 1000, 3000] LOOP
		SELECT sbf_agg('a' || i) INTO f FROM generate_series(1, n) i;
		done := 0;
		m := CASE WHEN n < 30 THEN 0.5 ELSE 0.05 END;
		WHILE m <= CASE WHEN n < 30 THEN 300 ELSE 30 END LOOP
			t := ceil(n * m);
			IF t > done THEN
				f := sbf_add(f, ARRAY(SELECT 'b' || i FROM generate_series(done + 1, t) i));
				done := t;
				INSERT INTO sweep VALUES ('batch', n, t, pg_column_size(f));
			END IF;
			m := m * 1.15;
		END LOOP;
	END LOOP;
END $$;
DO $$
DECLARE
	n int;
	t int;
	f scalablebloom;
BEGIN
	FOREACH n IN ARRAY ARRAY[1, 3, 8, 10, 12, 30, 64, 100, 265, 300] LOOP
		SELECT sbf_agg('a' || i) INTO f FROM generate_series(1, n) i;
		FOR t IN 1..(CASE WHEN n < 100 THEN 1500 ELSE 4 * n END) LOOP
			f := f || ('b' || t);
			INSERT INTO sweep VALUES ('single', n, t, pg_column_size(f));
		END LOOP;
	END LOOP;
END $$;
COPY (SELECT mode, n, t, bytes FROM sweep ORDER BY mode, n, t) TO STDOUT WITH (DELIMITER ' ');
