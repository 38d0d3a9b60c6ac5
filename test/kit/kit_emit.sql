-- kit_emit.sql: the records of test/kit/kit.txt for every row of kcase
-- (kit_cases.sql), with the answers of this server.  Prints one record a
-- line (psql -At); the format is test/kit/README.md's.
SET TimeZone = 'UTC';

-- an element as a kit field: text and bytea as the hex of the UTF-8 bytes,
-- bigint in decimal
CREATE FUNCTION pg_temp.lhex(ptype text, e text) RETURNS text
	LANGUAGE sql IMMUTABLE
	RETURN CASE ptype WHEN 'bigint' THEN e::bigint::text
		ELSE encode(convert_to(e, 'UTF8'), 'hex') END;
-- ... and as a whole field: '-' for an empty element
CREATE FUNCTION pg_temp.ehex(ptype text, e text) RETURNS text
	LANGUAGE sql IMMUTABLE
	RETURN coalesce(nullif(pg_temp.lhex(ptype, e), ''), '-');
-- a time as a kit field: microseconds since 1970-01-01 UTC, '-' for none
CREATE FUNCTION pg_temp.us(t timestamptz) RETURNS text
	LANGUAGE sql IMMUTABLE
	RETURN coalesce((extract(epoch FROM t) * 1000000)::bigint::text, '-');
CREATE FUNCTION pg_temp.us_ts(us bigint) RETURNS timestamptz
	LANGUAGE sql IMMUTABLE
	RETURN to_timestamp(0) + us * interval '1 microsecond';
CREATE FUNCTION pg_temp.tf(b boolean) RETURNS text
	LANGUAGE sql IMMUTABLE
	RETURN CASE WHEN b THEN 't' ELSE 'f' END;
-- the server's answer of sbf_contains(f, element of type ptype[, since])
CREATE FUNCTION pg_temp.has(f scalablebloom, ptype text, e text, since timestamptz)
	RETURNS boolean LANGUAGE sql STABLE
	RETURN CASE WHEN since IS NULL THEN
		CASE ptype WHEN 'bigint' THEN sbf_contains(f, e::bigint)
				   WHEN 'bytea' THEN sbf_contains(f, convert_to(e, 'UTF8'))
				   ELSE sbf_contains(f, e) END
	ELSE
		CASE ptype WHEN 'bigint' THEN sbf_contains(f, e::bigint, since)
				   WHEN 'bytea' THEN sbf_contains(f, convert_to(e, 'UTF8'), since)
				   ELSE sbf_contains(f, e, since) END
	END;
-- a matches record over elements es of type ptype (text or bigint)
CREATE FUNCTION pg_temp.matches_rec(f scalablebloom, ptype text, es text[], since timestamptz)
	RETURNS text LANGUAGE sql STABLE
	RETURN CASE ptype WHEN 'bigint' THEN 'matches_bigint ' ELSE 'matches ' END ||
		pg_temp.us(since) || ' ' ||
		CASE WHEN since IS NULL THEN
			CASE ptype WHEN 'bigint' THEN sbf_matches(f, es::bigint[]) ELSE sbf_matches(f, es) END
		ELSE
			CASE ptype WHEN 'bigint' THEN sbf_matches(f, es::bigint[], since) ELSE sbf_matches(f, es, since) END
		END || ' ' ||
		coalesce(nullif(array_to_string(ARRAY(SELECT pg_temp.lhex(ptype, e) FROM unnest(es) WITH ORDINALITY u(e, o) ORDER BY o), ','), ''), '-');
-- absent probe g of a type: never a member of any case
CREATE FUNCTION pg_temp.absent(ptype text, g int) RETURNS text
	LANGUAGE sql IMMUTABLE
	RETURN CASE ptype WHEN 'bigint' THEN (1000000000000 + g)::text ELSE 'absent:' || g END;

CREATE TEMP TABLE out (cs int, part int, sub bigint, line text);

-- the members each case probes: all up to 100, else every k-th
CREATE TEMP TABLE sample AS
	SELECT c.seq AS cs, u.o, u.e, c.ats[u.o] AS at,
		   (u.o - 1) % greatest(1, ceil(cardinality(c.members) / 100.0)::int) = 0 AS picked
	FROM kcase c, unnest(c.members) WITH ORDINALITY u(e, o)
	WHERE c.f IS NOT NULL;
ALTER TABLE sample ADD COLUMN ans boolean;
UPDATE sample s SET ans = pg_temp.has(c.f, c.typ, s.e, NULL) FROM kcase c WHERE c.seq = s.cs;
-- no false negative: every member of a plain value answers true (a windowed
-- value forgets what slid out of it)
DO $$
BEGIN
	IF EXISTS (SELECT FROM sample s JOIN kcase c ON c.seq = s.cs WHERE NOT s.ans AND c.width IS NULL) THEN
		RAISE EXCEPTION 'kit: a member answers false: %', (SELECT string_agg(DISTINCT c.name, ', ')
			FROM sample s JOIN kcase c ON c.seq = s.cs WHERE NOT s.ans AND c.width IS NULL);
	END IF;
END $$;
DELETE FROM sample WHERE NOT picked;
-- the few members probed with since and in matches (25 of the sample)
ALTER TABLE sample ADD COLUMN few boolean, ADD COLUMN fewer boolean;
UPDATE sample s SET few = (r - 1) % greatest(1, ceil(n / 25.0)::int) = 0,
	fewer = (r - 1) % greatest(1, ceil(n / 12.0)::int) = 0
FROM (SELECT cs, o, row_number() OVER (PARTITION BY cs ORDER BY o) AS r,
			 count(*) OVER (PARTITION BY cs) AS n
	  FROM sample) x
WHERE x.cs = s.cs AND x.o = s.o;

-- the case, how it was built, its count and info
INSERT INTO out
SELECT seq, 0, 0, CASE WHEN f IS NOT NULL THEN 'value ' || name || ' ' || encode(f::bytea, 'hex')
	ELSE 'hashset ' || name || ' ' || encode(h::bytea, 'hex') END
FROM kcase;
INSERT INTO out
SELECT seq, 1, 0, 'built ' || typ || ' ' || rate::text || ' ' ||
	array_to_string(ARRAY(SELECT pg_temp.lhex(typ, e) FROM unnest(members) WITH ORDINALITY u(e, o) ORDER BY o), ',')
FROM kcase WHERE built = 'agg';
INSERT INTO out
SELECT seq, 1, 0, 'built_window ' || typ || ' ' ||
	(extract(epoch FROM width) * 1000000)::bigint || ' ' || buckets || ' ' || rate::text || ' ' ||
	array_to_string(ARRAY(SELECT pg_temp.lhex(typ, e) || '@' || pg_temp.us(t)
						  FROM unnest(members, ats) WITH ORDINALITY u(e, t, o) ORDER BY o), ',')
FROM kcase WHERE built = 'window';
INSERT INTO out
SELECT seq, 2, 0, 'cardinality ' || CASE WHEN f IS NOT NULL THEN (# f)::text ELSE sbf_hashset_count(h)::text END
FROM kcase;
INSERT INTO out
SELECT seq, 3, 0, 'info ' || sbf_info(f)::text FROM kcase WHERE f IS NOT NULL;

-- members (true, or false once expired from a window)
INSERT INTO out
SELECT s.cs, 10, s.o, 'contains ' || c.typ || ' ' || pg_temp.ehex(c.typ, s.e) || ' - ' || pg_temp.tf(s.ans)
FROM sample s JOIN kcase c ON c.seq = s.cs;
-- members of text and bytea cases as the other of the two (the same bytes,
-- the same hash), members of bigint cases as text (another hash)
INSERT INTO out
SELECT s.cs, 11, s.o, 'contains ' || t || ' ' || pg_temp.ehex(t, s.e) || ' - ' ||
	pg_temp.tf(pg_temp.has(c.f, t, s.e, NULL))
FROM sample s JOIN kcase c ON c.seq = s.cs,
	 LATERAL (SELECT CASE c.typ WHEN 'text' THEN 'bytea' ELSE 'text' END) x(t)
WHERE s.few;
-- absent probes: the first 40 and every one of 3000 the server answers true for
INSERT INTO out
SELECT c.seq, 12, g, 'contains ' || c.typ || ' ' || pg_temp.ehex(c.typ, p) || ' - ' || pg_temp.tf(a)
FROM kcase c, generate_series(1, 3000) g,
	 LATERAL (SELECT pg_temp.absent(c.typ, g)) x(p),
	 LATERAL (SELECT pg_temp.has(c.f, c.typ, p, NULL)) y(a)
WHERE c.f IS NOT NULL AND (g <= 40 OR a);
-- bigint extremes on bigint cases
INSERT INTO out
SELECT c.seq, 12, 10000 + x.o, 'contains bigint ' || x.v || ' - ' || pg_temp.tf(pg_temp.has(c.f, 'bigint', x.v, NULL))
FROM kcase c, unnest(ARRAY['0', '-1', '-9223372036854775808', '9223372036854775807']) WITH ORDINALITY x(v, o)
WHERE c.f IS NOT NULL AND c.typ = 'bigint';

-- since: windowed members at the edges of their bucket (its first
-- microsecond, the last one and the next bucket's first), far past and far
-- future; plain values ignore since
CREATE TEMP TABLE wsince AS
	SELECT c.seq AS cs, s.o, s.e,
		   (extract(epoch FROM c.width) * 1000000)::bigint AS w,
		   (extract(epoch FROM s.at) * 1000000)::bigint AS at_us
	FROM sample s JOIN kcase c ON c.seq = s.cs
	WHERE s.few AND c.width IS NOT NULL;
INSERT INTO out
SELECT ws.cs, 13, ws.o * 10 + k, 'contains ' || c.typ || ' ' || pg_temp.ehex(c.typ, ws.e) || ' ' || sus || ' ' ||
	pg_temp.tf(pg_temp.has(c.f, c.typ, ws.e, pg_temp.us_ts(sus)))
FROM wsince ws JOIN kcase c ON c.seq = ws.cs,
	 LATERAL (VALUES (1, floor(ws.at_us::numeric / ws.w)::bigint * ws.w),
					 (2, (floor(ws.at_us::numeric / ws.w)::bigint + 1) * ws.w - 1),
					 (3, (floor(ws.at_us::numeric / ws.w)::bigint + 1) * ws.w)) v(k, sus);
INSERT INTO out
SELECT s.cs, 13, 1000000 + s.o * 10 + k, 'contains ' || c.typ || ' ' || pg_temp.ehex(c.typ, s.e) || ' ' ||
	pg_temp.us(t) || ' ' || pg_temp.tf(pg_temp.has(c.f, c.typ, s.e, t))
FROM sample s JOIN kcase c ON c.seq = s.cs,
	 LATERAL (VALUES (1, '1970-01-01 00:00+00'::timestamptz), (2, '2100-01-01 00:00+00'),
					 (3, '2026-03-01 00:00+00')) v(k, t)
WHERE s.few AND s.o <= 5 * greatest(1, ceil(cardinality(c.members) / 100.0)::int);

-- matches: empty, members, absent, mixed; windowed: since every bucket edge
INSERT INTO out
SELECT c.seq, 20, k, pg_temp.matches_rec(c.f, pt, es, NULL)
FROM kcase c,
	 LATERAL (SELECT CASE c.typ WHEN 'bigint' THEN 'bigint' ELSE 'text' END) x(pt),
	 LATERAL (VALUES
		(1, '{}'::text[]),
		(2, ARRAY(SELECT e FROM sample s WHERE s.cs = c.seq ORDER BY o)),
		(3, ARRAY(SELECT pg_temp.absent(pt, g) FROM generate_series(1, 120) g)),
		(4, ARRAY(SELECT e FROM (SELECT e, o FROM sample s WHERE s.cs = c.seq AND s.few
								 UNION ALL SELECT pg_temp.absent(pt, g), -g FROM generate_series(1, 100) g) z
				  ORDER BY o))) v(k, es)
WHERE c.f IS NOT NULL;
-- bigint cases: text probes (another hash: only false positives count)
INSERT INTO out
SELECT c.seq, 20, 5, pg_temp.matches_rec(c.f, 'text',
	ARRAY(SELECT e FROM sample s WHERE s.cs = c.seq AND s.few ORDER BY o), NULL)
FROM kcase c WHERE c.f IS NOT NULL AND c.typ = 'bigint';
-- edges: the first and the last microsecond of each bucket from two before
-- the oldest a window holds to one past the newest member
INSERT INTO out
SELECT c.seq, 21, b * 2 + k, pg_temp.matches_rec(c.f, CASE c.typ WHEN 'bigint' THEN 'bigint' ELSE 'text' END,
	ARRAY(SELECT e FROM sample s WHERE s.cs = c.seq AND s.fewer ORDER BY o), pg_temp.us_ts(sus))
FROM kcase c,
	 LATERAL (SELECT (extract(epoch FROM c.width) * 1000000)::bigint AS w,
					 floor((extract(epoch FROM max(t)) * 1000000) / (extract(epoch FROM c.width) * 1000000))::bigint AS newest
			  FROM unnest(c.ats) t) n,
	 LATERAL generate_series(n.newest - c.buckets - 1, n.newest + 1) b,
	 LATERAL (VALUES (0, b * n.w), (1, b * n.w + n.w - 1)) v(k, sus)
WHERE c.width IS NOT NULL AND c.f IS NOT NULL AND n.newest IS NOT NULL;

SELECT line FROM out ORDER BY cs, part, sub;
