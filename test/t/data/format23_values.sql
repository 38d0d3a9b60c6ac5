-- format23_values.sql: makes format23_values.tsv, the format-2 and format-3
-- values (and sbf_hashset values) that test/t/006_upgrade.pl loads, with the
-- answers sbf 1.2 gave for them.  Run it against a server with the sbf 1.2
-- library installed (the code of release 1.2, commit 232b1eb: build it from
-- `git archive 232b1eb`), in an empty database:
--   psql -X -q -v ON_ERROR_STOP=1 -f format23_values.sql > format23_values.tsv
-- Columns: id, what, kind (element type), spec (the elements: for each
-- [prefix, n] pair, prefix || g for g in 1..n; for bigint, prefix::bigint + g;
-- a windowed element also has [.., at0, step]: it was added at
-- at0 + g * step), the value's text form, and what 1.2 answered: # f,
-- sbf_info(f), the g of the absent probes (as in format1_values.sql) that
-- answered true, the ordinals of the members (in spec order) that answered
-- false (only expired window members may), and sbf_matches over members and
-- absent probes (NULL for bytea).  The sbf_hashset rows (kind
-- 'hashset:<type>') carry the hash set's text form and # instead, and NULL
-- for the filter answers.  Every timestamp is fixed, so the answers do not
-- depend on when this ran.
CREATE EXTENSION sbf VERSION '1.2';
SET TimeZone = 'UTC';

CREATE TEMP TABLE spec (id int PRIMARY KEY, what text, kind text, spec jsonb);
INSERT INTO spec VALUES
	(1, 'exact form: sbf_empty() || 60 text elements', 'text', '[["x:", 60]]'),
	(2, 'exact form: sbf_empty(5000, 0.001) || 100 bigints', 'bigint', '[["2000000", 100]]'),
	(3, 'sbf_agg of 3000 text elements', 'text', '[["a:", 3000]]'),
	(4, 'sbf_agg of 2000 bigints at 0.001', 'bigint', '[["3000000", 2000]]'),
	(5, 'sbf_agg of 1500 bytea elements at 0.05', 'bytea', '[["b:", 1500]]'),
	(6, 'sbf_empty(100) || text[]: five segments', 'text', '[["g:", 3000]]'),
	(7, 'sbf_empty(50, 0.05, 3, 0.7) grown by single bigint adds', 'bigint', '[["4000000", 600]]'),
	(8, 'sbf_empty(20, 0.01, 2, 0.9) grown by single bytea adds', 'bytea', '[["y:", 200]]'),
	(9, 'union (OVERLAP) of two sbf_empty(4000) filters sharing 500 elements', 'text',
		'[["u:", 2000], ["v:", 1000], ["u:", 500]]'),
	(10, 'sbf_delta of 6 grown by 2000 adds (CHAIN)', 'text', '[["d:", 2000]]'),
	(11, 'sbf_window_agg(text, at): 3000 elements over 20 days', 'text',
		'[["w:", 3000, "2026-01-01 00:00+00", "00:09:36"]]'),
	(12, 'sbf_window_agg(bigint, at, 1 hour, 24, 0.001) over 30 hours', 'bigint',
		'[["5000000", 1500, "2026-01-01 00:00+00", "00:01:12"]]'),
	(13, 'sbf_window_agg(bytea, at, 1 day, 7, 0.02) over 7 days', 'bytea',
		'[["wy:", 700, "2026-01-01 00:00+00", "00:14:24"]]'),
	(14, 'sbf_window_empty() grown by live adds with at (arrays and singles)', 'text',
		'[["l:", 1200, "2026-01-01 00:00+00", "00:24:00"], ["s:", 100, "2026-01-10 00:00+00", "01:00:00"]]'),
	(15, '14 after sbf_expire at 2026-02-05', 'text',
		'[["l:", 1200, "2026-01-01 00:00+00", "00:24:00"], ["s:", 100, "2026-01-10 00:00+00", "01:00:00"]]'),
	(16, 'sbf_window_empty(''1 hour'', 24, 0.001) grown by live bigint adds, then expired', 'bigint',
		'[["6000000", 480, "2026-01-01 00:00+00", "00:05:00"]]'),
	(17, 'sbf_empty(), no elements', 'text', '[]'),
	(18, 'sbf_window_empty(), no elements', 'text', '[]'),
	(21, 'sbf_hashset_agg(text)', 'hashset:text', '[["h:", 1000]]'),
	(22, 'sbf_hashset_agg(bigint)', 'hashset:bigint', '[["7000000", 800]]'),
	(23, 'sbf_hashset_agg(bytea)', 'hashset:bytea', '[["hy:", 300]]'),
	(24, 'sbf_hashset_union of 21 and more text', 'hashset:text', '[["h:", 1000], ["h2:", 400]]');

CREATE TEMP VIEW members AS
	SELECT s.id, s.kind, row_number() OVER (PARTITION BY s.id ORDER BY p.o, g) AS ord,
		   CASE WHEN s.kind LIKE '%bigint' THEN ((p.p ->> 0)::bigint + g)::text
				ELSE (p.p ->> 0) || g END AS e,
		   (p.p ->> 2)::timestamptz + g * (p.p ->> 3)::interval AS at
	FROM spec s
		 CROSS JOIN LATERAL jsonb_array_elements(s.spec) WITH ORDINALITY p(p, o)
		 CROSS JOIN LATERAL generate_series(1, (p.p ->> 1)::int) g;

CREATE TEMP TABLE filters (id int PRIMARY KEY, f scalablebloom);
INSERT INTO filters
	SELECT 1, sbf_empty() || array_agg(e ORDER BY ord) FROM members WHERE id = 1
	UNION ALL SELECT 2, sbf_empty(5000, 0.001) || array_agg(e::bigint ORDER BY ord)
		FROM members WHERE id = 2
	UNION ALL SELECT 3, sbf_agg(e) FROM members WHERE id = 3
	UNION ALL SELECT 4, sbf_agg(e::bigint, 0.001) FROM members WHERE id = 4
	UNION ALL SELECT 5, sbf_agg(convert_to(e, 'UTF8'), 0.05) FROM members WHERE id = 5
	UNION ALL SELECT 6, sbf_empty(100) || array_agg(e ORDER BY ord) FROM members WHERE id = 6
	UNION ALL SELECT 9, sbf_union(
		sbf_empty(4000) || ARRAY(SELECT e FROM members WHERE id = 9 AND ord <= 2000 ORDER BY ord),
		sbf_empty(4000) || ARRAY(SELECT e FROM members WHERE id = 9 AND ord > 2000 ORDER BY ord))
	UNION ALL SELECT 11, sbf_window_agg(e, at) FROM members WHERE id = 11
	UNION ALL SELECT 12, sbf_window_agg(e::bigint, at, '1 hour', 24, 0.001) FROM members WHERE id = 12
	UNION ALL SELECT 13, sbf_window_agg(convert_to(e, 'UTF8'), at, '1 day', 7, 0.02)
		FROM members WHERE id = 13
	UNION ALL SELECT 17, sbf_empty()
	UNION ALL SELECT 18, sbf_window_empty();

INSERT INTO filters
	SELECT 10, sbf_delta(f) || ARRAY(SELECT e FROM members WHERE id = 10 ORDER BY ord)
	FROM filters WHERE id = 6;

-- single adds, one statement per element; live windowed adds, one array a
-- day and then single elements
DO $$
DECLARE
	a scalablebloom := sbf_empty(50, 0.05, 3, 0.7);
	b scalablebloom := sbf_empty(20, 0.01, 2, 0.9);
	w scalablebloom := sbf_window_empty();
	h scalablebloom := sbf_window_empty('1 hour', 24, 0.001);
	r record;
BEGIN
	FOR r IN SELECT e FROM members WHERE id = 7 ORDER BY ord LOOP
		a := a || r.e::bigint;
	END LOOP;
	FOR r IN SELECT e FROM members WHERE id = 8 ORDER BY ord LOOP
		b := sbf_add(b, convert_to(r.e, 'UTF8'));
	END LOOP;
	FOR r IN SELECT date_trunc('day', at) AS d, array_agg(e ORDER BY ord) AS es
			 FROM members WHERE id = 14 AND e LIKE 'l:%' GROUP BY 1 ORDER BY 1 LOOP
		w := sbf_add(w, r.es, r.d);
	END LOOP;
	FOR r IN SELECT e, at FROM members WHERE id = 14 AND e LIKE 's:%' ORDER BY ord LOOP
		w := sbf_add(w, r.e, r.at);
	END LOOP;
	FOR r IN SELECT e, at FROM members WHERE id = 16 ORDER BY ord LOOP
		h := sbf_add(h, r.e::bigint, r.at);
	END LOOP;
	INSERT INTO filters VALUES (7, a), (8, b), (14, w),
		(15, sbf_expire(w, '2026-02-05 00:00+00')),
		(16, sbf_expire(h, '2026-01-03 06:00+00'));
END $$;

CREATE TEMP TABLE hashsets (id int PRIMARY KEY, h sbf_hashset);
INSERT INTO hashsets
	SELECT 21, sbf_hashset_agg(e) FROM members WHERE id = 21
	UNION ALL SELECT 22, sbf_hashset_agg(e::bigint) FROM members WHERE id = 22
	UNION ALL SELECT 23, sbf_hashset_agg(convert_to(e, 'UTF8')) FROM members WHERE id = 23;
INSERT INTO hashsets
	SELECT 24, sbf_hashset_union(h, (SELECT sbf_hashset_agg(e) FROM members
									 WHERE id = 24 AND e LIKE 'h2:%'))
	FROM hashsets WHERE id = 21;

-- absent probes: never members of any value
CREATE TEMP VIEW probes AS
	SELECT g, 'absent:' || g AS t, 1000000000000 + g AS b,
		   convert_to('absent:' || g, 'UTF8') AS y
	FROM generate_series(1, 5000) g;

CREATE FUNCTION pg_temp.has(f scalablebloom, kind text, e text) RETURNS boolean
	LANGUAGE sql IMMUTABLE
	RETURN CASE kind WHEN 'bigint' THEN f @> e::bigint
					 WHEN 'bytea' THEN f @> convert_to(e, 'UTF8')
					 ELSE f @> e END;

COPY (
	SELECT s.id, s.what, s.kind, s.spec, f::text, # f, sbf_info(f)::text,
		   ARRAY(SELECT p.g FROM probes p
				 WHERE CASE s.kind WHEN 'bigint' THEN f @> p.b
								   WHEN 'bytea' THEN f @> p.y
								   ELSE f @> p.t END
				 ORDER BY p.g),
		   ARRAY(SELECT m.ord FROM members m
				 WHERE m.id = s.id AND NOT pg_temp.has(f, s.kind, m.e) ORDER BY m.ord),
		   CASE s.kind
			   WHEN 'text' THEN sbf_matches(f, ARRAY(SELECT e FROM members m WHERE m.id = s.id)
												 || ARRAY(SELECT t FROM probes))
			   WHEN 'bigint' THEN sbf_matches(f, ARRAY(SELECT e::bigint FROM members m WHERE m.id = s.id)
												   || ARRAY(SELECT b FROM probes))
		   END
	FROM spec s JOIN filters USING (id)
	UNION ALL
	SELECT s.id, s.what, s.kind, s.spec, h::text, # h, NULL, NULL, NULL, NULL
	FROM spec s JOIN hashsets USING (id)
	ORDER BY 1
) TO STDOUT;
