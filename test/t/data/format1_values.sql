-- format1_values.sql: makes format1_values.tsv, the format-1 values that
-- test/t/006_upgrade.pl loads, with the answers sbf 1.0 gave for them.
-- Run it against a server with the sbf 1.0 library installed (the code of
-- release 1.0), in an empty database:
--   psql -X -q -v ON_ERROR_STOP=1 -f format1_values.sql > format1_values.tsv
-- Columns: id, what, kind (element type), spec (the elements: for each
-- [prefix, n] pair, prefix || g for g in 1..n; for bigint, prefix::bigint + g),
-- the value's text form, and what 1.0 answered: # f, sbf_info(f), the g of
-- the absent probes (see probes below) that answered true, and sbf_matches
-- over members and absent probes (NULL for bytea, which has no matches).
CREATE EXTENSION sbf VERSION '1.0';

CREATE TEMP TABLE spec (id int PRIMARY KEY, what text, kind text, spec jsonb);
INSERT INTO spec VALUES
	(1, 'sbf_agg of 1000 text elements', 'text', '[["a:", 1000]]'),
	(2, 'sbf_agg of 500 bigints at error_rate 0.001', 'bigint', '[["1000000", 500]]'),
	(3, 'grown by a batch add from sbf_empty(100)', 'text', '[["g:", 3000]]'),
	(4, 'sbf_empty(50, 0.05, 3, 0.7) grown by single adds', 'text', '[["p:", 1000]]'),
	(5, 'union of a grown filter (3) and an sbf_agg one', 'text', '[["g:", 3000], ["u:", 500]]'),
	(6, 'sbf_agg of 300 bytea elements', 'bytea', '[["b:", 300]]'),
	(7, 'sbf_empty(), no elements', 'text', '[]'),
	(8, 'the seed''s fixed segments: growth 1, no tightening', 'text', '[["s:", 400]]'),
	(9, 'one element added to NULL', 'bigint', '[["42", 1]]');

CREATE TEMP VIEW members AS
	SELECT s.id, s.kind,
		   CASE WHEN s.kind = 'bigint' THEN ((p ->> 0)::bigint + g)::text
				ELSE (p ->> 0) || g END AS e
	FROM spec s
		 CROSS JOIN LATERAL jsonb_array_elements(s.spec) p
		 CROSS JOIN LATERAL generate_series(1, (p ->> 1)::int) g;

CREATE TEMP TABLE filters (id int PRIMARY KEY, f scalablebloom);
INSERT INTO filters
	SELECT 1, sbf_agg(e) FROM members WHERE id = 1
	UNION ALL SELECT 2, sbf_agg(e::bigint, 0.001) FROM members WHERE id = 2
	UNION ALL SELECT 3, sbf_empty(100) || array_agg(e) FROM members WHERE id = 3
	UNION ALL SELECT 6, sbf_agg(convert_to(e, 'UTF8')) FROM members WHERE id = 6
	UNION ALL SELECT 7, sbf_empty()
	UNION ALL SELECT 8, sbf_add(sbf_empty(50, 0.01, 1, 1.0), array_agg(e)) FROM members WHERE id = 8
	UNION ALL SELECT 9, NULL::scalablebloom || 43::bigint;

-- single adds, one statement per element
DO $$
DECLARE
	x scalablebloom := sbf_empty(50, 0.05, 3, 0.7);
	e text;
BEGIN
	FOR e IN SELECT m.e FROM members m WHERE m.id = 4 LOOP
		x := x || e;
	END LOOP;
	INSERT INTO filters VALUES (4, x);
END $$;

INSERT INTO filters
	SELECT 5, f || (SELECT sbf_agg(e) FROM members WHERE id = 5 AND e LIKE 'u:%')
	FROM filters WHERE id = 3;

-- absent probes: never members of any filter
CREATE TEMP VIEW probes AS
	SELECT g, 'absent:' || g AS t, 1000000000000 + g AS b,
		   convert_to('absent:' || g, 'UTF8') AS y
	FROM generate_series(1, 5000) g;

COPY (
	SELECT s.id, s.what, s.kind, s.spec, f::text, # f, sbf_info(f)::text,
		   ARRAY(SELECT p.g FROM probes p
				 WHERE CASE s.kind WHEN 'bigint' THEN f @> p.b
								   WHEN 'bytea' THEN f @> p.y
								   ELSE f @> p.t END
				 ORDER BY p.g),
		   CASE s.kind
			   WHEN 'text' THEN sbf_matches(f, ARRAY(SELECT e FROM members m WHERE m.id = s.id)
												 || ARRAY(SELECT t FROM probes))
			   WHEN 'bigint' THEN sbf_matches(f, ARRAY(SELECT e::bigint FROM members m WHERE m.id = s.id)
												   || ARRAY(SELECT b FROM probes))
		   END
	FROM spec s JOIN filters USING (id)
	ORDER BY s.id
) TO STDOUT;
