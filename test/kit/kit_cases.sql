-- kit_cases.sql: the values of the cross-language test kit (test/kit/kit.txt),
-- one row of kcase each, with the elements they hold.  Run by
-- test/kit/generate.sh after it loaded the committed old-format corpora
-- (test/t/data/format1_values.tsv: 1.0's values; format23_values.tsv: 1.2's;
-- test/kit/format4_values.tsv: 1.3's; test/kit/format5_values.tsv: version
-- 5's) into corpus1, corpus23, corpus4 and corpus5; kit_emit.sql then
-- writes the records.
-- Every element and time is fixed, so the bytes and answers depend only on
-- the code of the server.
--   typ      element type of the case: text, bigint or bytea (bytea elements
--            are the UTF-8 bytes of the member strings)
--   members  the elements as strings (bigint in decimal), in add order
--   ats      for windowed values, each member's time
--   width, buckets  for windowed values: the bucket and their number
--   built    'agg' when f = sbf_agg(members, rate) (kit record built),
--            'window' when f = sbf_window_agg(members, ats, width, buckets, rate)
SET TimeZone = 'UTC';

CREATE TEMP TABLE kcase (
	seq int PRIMARY KEY,
	name text UNIQUE NOT NULL CHECK (name ~ '^[a-z0-9_.-]+$'),
	typ text NOT NULL CHECK (typ IN ('text', 'bigint', 'bytea')),
	f scalablebloom,
	h sbf_hashset,
	members text[] NOT NULL DEFAULT '{}',
	ats timestamptz[],
	width interval,
	buckets int,
	built text,
	rate float8
);

-- n elements prefix || g (g = start .. start + n - 1); bigint: base + g
CREATE FUNCTION pg_temp.el(prefix text, n int, start int DEFAULT 1) RETURNS text[]
	LANGUAGE sql IMMUTABLE
	RETURN ARRAY(SELECT prefix || g FROM generate_series(start, start + n - 1) g);
CREATE FUNCTION pg_temp.bi(base bigint, n int, start int DEFAULT 1) RETURNS text[]
	LANGUAGE sql IMMUTABLE
	RETURN ARRAY(SELECT (base + g)::text FROM generate_series(start, start + n - 1) g);
-- times at0 + g * step for g = 1 .. n
CREATE FUNCTION pg_temp.ts(at0 timestamptz, step interval, n int) RETURNS timestamptz[]
	LANGUAGE sql IMMUTABLE
	RETURN ARRAY(SELECT at0 + g * step FROM generate_series(1, n) g);

-- the aggregates over a case's members (typ decides the element type)
CREATE FUNCTION pg_temp.agg(typ text, m text[], rate float8) RETURNS scalablebloom
	LANGUAGE sql STABLE
	RETURN CASE typ
		WHEN 'bigint' THEN (SELECT sbf_agg(e::bigint, rate) FROM unnest(m) e)
		WHEN 'bytea' THEN (SELECT sbf_agg(convert_to(e, 'UTF8'), rate) FROM unnest(m) e)
		ELSE (SELECT sbf_agg(e, rate) FROM unnest(m) e) END;
CREATE FUNCTION pg_temp.wagg(typ text, m text[], a timestamptz[], w interval, b int, rate float8)
	RETURNS scalablebloom LANGUAGE sql STABLE
	RETURN CASE typ
		WHEN 'bigint' THEN (SELECT sbf_window_agg(e::bigint, t, w, b, rate) FROM unnest(m, a) u(e, t))
		WHEN 'bytea' THEN (SELECT sbf_window_agg(convert_to(e, 'UTF8'), t, w, b, rate) FROM unnest(m, a) u(e, t))
		ELSE (SELECT sbf_window_agg(e, t, w, b, rate) FROM unnest(m, a) u(e, t)) END;
-- f plus the members one array add (text and bigint) or one add each (bytea)
CREATE FUNCTION pg_temp.add_all(f scalablebloom, typ text, m text[]) RETURNS scalablebloom
	LANGUAGE plpgsql AS $$
DECLARE
	e text;
BEGIN
	IF typ = 'bigint' THEN
		RETURN sbf_add(f, m::bigint[]);
	ELSIF typ = 'text' THEN
		RETURN sbf_add(f, m);
	END IF;
	FOREACH e IN ARRAY m LOOP
		f := sbf_add(f, convert_to(e, 'UTF8'));
	END LOOP;
	RETURN f;
END $$;
-- f plus the members, one statement each
CREATE FUNCTION pg_temp.add_singles(f scalablebloom, typ text, m text[]) RETURNS scalablebloom
	LANGUAGE plpgsql AS $$
DECLARE
	e text;
BEGIN
	FOREACH e IN ARRAY m LOOP
		f := CASE typ WHEN 'bigint' THEN f || e::bigint
					  WHEN 'bytea' THEN f || convert_to(e, 'UTF8')
					  ELSE f || e END;
	END LOOP;
	RETURN f;
END $$;
-- live windowed adds: one array add per bucket-day group of text members,
-- then nothing else (the times of the members order the adds)
CREATE FUNCTION pg_temp.add_timed(f scalablebloom, typ text, m text[], a timestamptz[])
	RETURNS scalablebloom LANGUAGE plpgsql AS $$
DECLARE
	r record;
BEGIN
	FOR r IN SELECT e, t FROM unnest(m, a) WITH ORDINALITY u(e, t, o) ORDER BY t, o LOOP
		f := CASE typ WHEN 'bigint' THEN sbf_add(f, r.e::bigint, r.t)
					  WHEN 'bytea' THEN sbf_add(f, convert_to(r.e, 'UTF8'), r.t)
					  ELSE sbf_add(f, r.e, r.t) END;
	END LOOP;
	RETURN f;
END $$;

-- ---- formats 1-3: the committed corpora of sbf 1.0 and 1.2 ----
-- the members of a corpus row, as the corpus scripts expand the spec
CREATE FUNCTION pg_temp.spec_members(kind text, spec jsonb) RETURNS text[]
	LANGUAGE sql IMMUTABLE
	RETURN ARRAY(SELECT CASE WHEN kind LIKE '%bigint' THEN ((p.p ->> 0)::bigint + g)::text
						 ELSE (p.p ->> 0) || g END
				 FROM jsonb_array_elements(spec) WITH ORDINALITY p(p, o)
					  CROSS JOIN LATERAL generate_series(1, (p.p ->> 1)::int) g
				 ORDER BY p.o, g);
CREATE FUNCTION pg_temp.spec_ats(spec jsonb) RETURNS timestamptz[]
	LANGUAGE sql IMMUTABLE
	RETURN ARRAY(SELECT (p.p ->> 2)::timestamptz + g * (p.p ->> 3)::interval
				 FROM jsonb_array_elements(spec) WITH ORDINALITY p(p, o)
					  CROSS JOIN LATERAL generate_series(1, (p.p ->> 1)::int) g
				 ORDER BY p.o, g);

INSERT INTO kcase (seq, name, typ, f, members)
SELECT 100 + id, 'v1_' || n, kind, val::scalablebloom, pg_temp.spec_members(kind, spec)
FROM corpus1 JOIN (VALUES
	(1, 'bloom_agg_1000_text'), (2, 'bloom_agg_500_bigint_e0.001'),
	(3, 'bloom_grown_3000_text'), (4, 'bloom_singles_1000_text_g3_t0.7'),
	(5, 'bloom_union_text'), (6, 'bloom_agg_300_bytea'), (7, 'bloom_empty'),
	(8, 'bloom_seed_400_text_g1_t1'), (9, 'bloom_one_bigint')) n(id, n) USING (id);

INSERT INTO kcase (seq, name, typ, f, h, members, ats, width, buckets)
SELECT 200 + id, n, replace(kind, 'hashset:', ''),
	   CASE WHEN kind NOT LIKE 'hashset:%' THEN val::scalablebloom END,
	   CASE WHEN kind LIKE 'hashset:%' THEN val::sbf_hashset END,
	   pg_temp.spec_members(kind, spec),
	   CASE WHEN w IS NOT NULL THEN pg_temp.spec_ats(spec) END, w, b
FROM corpus23 JOIN (VALUES
	(1, 'v2_exact_60_text', NULL, NULL), (2, 'v2_exact_100_bigint_e0.001', NULL, NULL),
	(3, 'v2_bloom_agg_3000_text', NULL, NULL), (4, 'v2_bloom_agg_2000_bigint_e0.001', NULL, NULL),
	(5, 'v2_bloom_agg_1500_bytea_e0.05', NULL, NULL), (6, 'v2_bloom_grown_3000_text', NULL, NULL),
	(7, 'v2_bloom_singles_600_bigint_e0.05', NULL, NULL),
	(8, 'v2_bloom_singles_200_bytea_g2', NULL, NULL),
	(9, 'v2_bloom_union_overlap', NULL, NULL), (10, 'v2_bloom_delta_chain', NULL, NULL),
	(11, 'v3_window_agg_3000_text_30x1d', '1 day'::interval, 30),
	(12, 'v3_window_agg_1500_bigint_24x1h_e0.001', '1 hour', 24),
	(13, 'v3_window_agg_700_bytea_7x1d_e0.02', '1 day', 7),
	(14, 'v3_window_live_text_30x1d', '1 day', 30),
	(15, 'v3_window_live_expired_text_30x1d', '1 day', 30),
	(16, 'v3_window_live_expired_bigint_24x1h', '1 hour', 24),
	(17, 'v2_exact_empty', NULL, NULL), (18, 'v3_window_empty_30x1d', '1 day', 30),
	(21, 'hs1_agg_1000_text', NULL, NULL), (22, 'hs1_agg_800_bigint', NULL, NULL),
	(23, 'hs1_agg_300_bytea', NULL, NULL), (24, 'hs1_union_1400_text', NULL, NULL))
	n(id, n, w, b) USING (id);
-- a value that 1.2 wrote before a later add (or expiry) is not a member any more:
-- case 15's and 16's members include expired ones, answered as the server does

-- version 5 (docs/format5.md, sections 3 and 5): values holding a compact
-- segment (1-6) and values in the compact form (7-11: 6,000 elements is more
-- than a lookup plan decodes), which no writer of this release makes from
-- elements yet; made by the core
-- with the compact kind standing in (test/kit/kit_v5.c, its output committed
-- as test/kit/format5_values.tsv and checked by make -C test/kit check)
INSERT INTO kcase (seq, name, typ, f, members)
SELECT 500 + id, n, kind, val::scalablebloom, pg_temp.spec_members(kind, spec)
FROM corpus5 JOIN (VALUES
	(1, 'v5_compact_30_text'), (2, 'v5_compact_one_bigint'),
	(3, 'v5_compact_700_bytea_e0.001'), (4, 'v5_compact_grown_600_text'),
	(5, 'v5_compact_union_v4_text'), (6, 'v5_compact_union_overlap_text'),
	(7, 'v5_value_30_text'), (8, 'v5_value_one_bigint'),
	(9, 'v5_value_700_bytea_e0.001_params'), (10, 'v5_value_3000_text'),
	(11, 'v5_value_6000_text'))
	n(id, n) USING (id);

-- version 4 as 1.3's aggregates wrote it (test/kit/format4_values.tsv, taken
-- from this kit's records before 1.4 wrote those sets in the compact form):
-- fused and bloom first segments, 30 to 4,000 elements, rates 0.0001 to 0.3
INSERT INTO kcase (seq, name, typ, f, members)
SELECT 600 + id, what, kind, val::scalablebloom, pg_temp.spec_members(kind, spec)
FROM corpus4;

-- ---- what today's server writes ----
-- aggregates: the compact form (version 5, up to 4,096 elements where it is
-- smaller; up to 8 at 63 fingerprint bits, the exact form's answers) and
-- fused first segments
INSERT INTO kcase (seq, name, typ, members, built, rate)
VALUES
	(300, 'v5_value_agg_30_text', 'text', pg_temp.el('ex:', 30), 'agg', 0.01),
	(301, 'v5_value_agg_300_text', 'text', pg_temp.el('a300:', 300), 'agg', 0.01),
	(302, 'v5_value_agg_700_bigint', 'bigint', pg_temp.bi(10000000, 700), 'agg', 0.01),
	(303, 'v5_value_agg_1000_text', 'text', pg_temp.el('a1k:', 1000), 'agg', 0.01),
	(304, 'v4_fused_agg_5000_text', 'text', pg_temp.el('a5k:', 5000), 'agg', 0.01),
	(305, 'v4_fused_agg_20000_text', 'text', pg_temp.el('k', 20000), 'agg', 0.01),
	(306, 'v4_fused_agg_5000_bigint_e0.001', 'bigint', pg_temp.bi(-5000000, 5000), 'agg', 0.001),
	(307, 'v5_value_agg_3000_bytea_e0.05', 'bytea', pg_temp.el('y3k:', 3000), 'agg', 0.05),
	(308, 'v5_value_agg_4000_text_e0.0001', 'text', pg_temp.el('r4:', 4000), 'agg', 0.0001),
	(309, 'v4_bloom_agg_2000_text_e0.3', 'text', pg_temp.el('r03:', 2000), 'agg', 0.3),
	(310, 'v5_value_agg_2000_utf8', 'text',
		ARRAY(SELECT 'ü日本🎉 ' || g || ',x' FROM generate_series(1, 2000) g), 'agg', 0.01),
	(311, 'v5_value_agg_500_bytea_e0.1', 'bytea', pg_temp.el('yb:', 500), 'agg', 0.1),
	(312, 'v4_fused_agg_10000_bigint', 'bigint', pg_temp.bi(9000000000, 10000), 'agg', 0.01),
	(313, 'v5_exact_agg_1_text', 'text', ARRAY['sku:1'], 'agg', 0.01),
	(314, 'v5_exact_agg_8_bigint', 'bigint', pg_temp.bi(-7000000000, 8), 'agg', 0.01),
	(315, 'v5_exact_agg_5_bytea_e0.2', 'bytea', pg_temp.el('xb:', 5), 'agg', 0.2),
	(316, 'v5_value_agg_9_text_e0.001', 'text', pg_temp.el('x9:', 9), 'agg', 0.001);
UPDATE kcase SET f = pg_temp.agg(typ, members, rate) WHERE built = 'agg';

-- the exact form at 63 fingerprint bits grown by adds (past 8 elements at
-- the builder's bits) and united (exactly)
INSERT INTO kcase (seq, name, typ, members, f)
VALUES
	(317, 'v5_exact_grown_from_one_12_text', 'text', pg_temp.el('xg:', 12),
	 pg_temp.add_all(pg_temp.agg('text', ARRAY['xg:1'], 0.01), 'text', pg_temp.el('xg:', 11, 2))),
	(318, 'v5_exact_union_8_text', 'text', pg_temp.el('xu:', 8),
	 pg_temp.agg('text', pg_temp.el('xu:', 5), 0.01) || pg_temp.agg('text', pg_temp.el('xu:', 6, 3), 0.01));

-- grown by adds (the exact form converts to a bloom first segment while its
-- data fits 4 kB, blocked above, as 328; later segments blocked while their
-- share is >= 1e-3, bloom below)
INSERT INTO kcase (seq, name, typ, members, f)
VALUES
	(320, 'v2_exact_3_text', 'text', ARRAY['a', '', 'sku:123'], NULL),
	(321, 'v2_exact_500_text_sized', 'text', pg_temp.el('xs:', 500), NULL),
	(322, 'v4_grown_3000_text', 'text', pg_temp.el('g4:', 3000), NULL),
	(323, 'v4_grown_20000_text_e0.05', 'text', pg_temp.el('g', 20000), NULL),
	(324, 'v4_grown_singles_800_bigint_g3_t0.7', 'bigint', pg_temp.bi(20000000, 800), NULL),
	(325, 'v4_grown_singles_300_bytea_g2', 'bytea', pg_temp.el('gy:', 300), NULL),
	(326, 'v4_grown_6000_text_e0.001_g4', 'text', pg_temp.el('g6:', 6000), NULL),
	(327, 'v4_grown_150_text', 'text', pg_temp.el('gb:', 150), NULL),
	(328, 'v4_blocked_grown_2500_text', 'text', pg_temp.el('gk:', 2500), NULL);
UPDATE kcase SET f = sbf_add(sbf_empty(), members) WHERE seq = 320;
UPDATE kcase SET f = sbf_add(sbf_empty(100000, 0.001), members) WHERE seq = 321;
UPDATE kcase SET f = pg_temp.add_all(sbf_empty(100), typ, members) WHERE seq = 322;
UPDATE kcase SET f = pg_temp.add_all(sbf_empty(500, 0.05), typ, members) WHERE seq = 323;
UPDATE kcase SET f = pg_temp.add_singles(sbf_empty(50, 0.05, 3, 0.7), typ, members) WHERE seq = 324;
UPDATE kcase SET f = pg_temp.add_singles(sbf_empty(20, 0.01, 2, 0.9), typ, members) WHERE seq = 325;
UPDATE kcase SET f = pg_temp.add_all(sbf_empty(200, 0.001, 4, 0.8), typ, members) WHERE seq = 326;
UPDATE kcase SET f = pg_temp.add_all(sbf_empty(100), typ, members) WHERE seq = 327;
UPDATE kcase SET f = pg_temp.add_all(sbf_empty(2500), typ, members) WHERE seq = 328;

-- version 1 and 2 values written to: relabelled version 4 with kind-1 segments
INSERT INTO kcase (seq, name, typ, members, f)
SELECT 330, 'v4_relabelled_v1_grown_text', 'text', c.members || pg_temp.el('re1:', 2000),
	   pg_temp.add_all(c.f, 'text', pg_temp.el('re1:', 2000))
FROM kcase c WHERE c.seq = 103;
INSERT INTO kcase (seq, name, typ, members, f)
SELECT 331, 'v4_relabelled_v2_grown_text', 'text', c.members || pg_temp.el('re2:', 500),
	   pg_temp.add_all(c.f, 'text', pg_temp.el('re2:', 500))
FROM kcase c WHERE c.seq = 206;
INSERT INTO kcase (seq, name, typ, members, f)
SELECT 332, 'v4_relabelled_v2_agg_one_add_bigint', 'bigint', c.members || ARRAY['77'],
	   c.f || 77::bigint
FROM kcase c WHERE c.seq = 204;

-- unions
INSERT INTO kcase (seq, name, typ, members, f)
SELECT 340, 'v5_union_compact_fused_e0.02', 'text', a.members || b.members, sbf_union(a.f, b.f, 0.02)
FROM kcase a, kcase b WHERE a.seq = 303 AND b.seq = 304;
INSERT INTO kcase (seq, name, typ, members, f)
SELECT 341, 'v4_union_blocked_same_geometry', 'text', pg_temp.el('ub:', 3000),
	   sbf_union(sbf_empty(3000) || pg_temp.el('ub:', 1800),
				 sbf_empty(3000) || pg_temp.el('ub:', 1800, 1201));
INSERT INTO kcase (seq, name, typ, members, f)
SELECT 342, 'v5_union_exact_compact', 'text', a.members || b.members, a.f || b.f
FROM kcase a, kcase b WHERE a.seq = 320 AND b.seq = 303;
INSERT INTO kcase (seq, name, typ, members, f)
SELECT 343, 'v5_union_v1_v2_v5_e0.05', 'text', a.members || b.members || c.members,
	   sbf_union(sbf_union(a.f, b.f, 0.05), c.f, 0.05)
FROM kcase a, kcase b, kcase c WHERE a.seq = 101 AND b.seq = 203 AND c.seq = 301;
CREATE TEMP TABLE ugroups AS
	SELECT grp, pg_temp.el('ua' || grp || ':', 200 * grp) AS members FROM generate_series(1, 8) grp;
ALTER TABLE ugroups ADD COLUMN f scalablebloom;
UPDATE ugroups SET f = pg_temp.agg('text', members, 0.01);
INSERT INTO kcase (seq, name, typ, members, f)
SELECT 344, 'v5_union_agg_8_groups_e0.1', 'text',
	   ARRAY(SELECT e FROM ugroups, unnest(members) WITH ORDINALITY u(e, o) ORDER BY grp, o),
	   (SELECT sbf_union_agg(f, 0.1 ORDER BY grp) FROM ugroups);
INSERT INTO kcase (seq, name, typ, members, f)
SELECT 345, 'v5_union_agg_e0.05_grown', 'text', a.members || b.members,
	   (SELECT sbf_union_agg(x, 0.05) FROM (VALUES (a.f), (b.f)) v(x))
FROM kcase a, kcase b WHERE a.seq = 322 AND b.seq = 303;
-- 40 overlapping days of 30 (b = 12) united within 30%: one compact value
-- with OVERLAP, # the elements behind its fingerprints (about 80 collide)
CREATE TEMP TABLE odays AS
	SELECT d, pg_temp.el('uo:', 30, d * 20 + 1) AS members FROM generate_series(0, 39) d;
ALTER TABLE odays ADD COLUMN f scalablebloom;
UPDATE odays SET f = pg_temp.agg('text', members, 0.01);
INSERT INTO kcase (seq, name, typ, members, f)
SELECT 346, 'v5_union_agg_overlap_40_days_e0.3', 'text', pg_temp.el('uo:', 810),
	   (SELECT sbf_union_agg(f, 0.3) FROM odays);

-- sbf_delta: the exact form with CHAIN, then its conversion (blocked), and the
-- base united with its delta
INSERT INTO kcase (seq, name, typ, members, f)
SELECT 350, 'v2_exact_delta_chain_20', 'text', pg_temp.el('dl:', 20),
	   sbf_delta(c.f) || pg_temp.el('dl:', 20)
FROM kcase c WHERE c.seq = 322;
INSERT INTO kcase (seq, name, typ, members, f)
SELECT 351, 'v4_delta_chain_4000', 'text', pg_temp.el('dl:', 4000),
	   sbf_delta(c.f) || pg_temp.el('dl:', 4000)
FROM kcase c WHERE c.seq = 322;
INSERT INTO kcase (seq, name, typ, members, f)
SELECT 352, 'v4_base_union_delta', 'text', b.members || d.members, b.f || d.f
FROM kcase b, kcase d WHERE b.seq = 322 AND d.seq = 351;

-- sbf_build from a hash set
INSERT INTO kcase (seq, name, typ, members, f)
SELECT 360, 'v5_build_from_hashset_1500', 'text', pg_temp.el('hb:', 1500),
	   sbf_build((SELECT sbf_hashset_agg(e) FROM unnest(pg_temp.el('hb:', 1500)) e), 0.01);
INSERT INTO kcase (seq, name, typ, members, f)
SELECT 361, 'v5_build_from_corpus_hashset_e0.02', c.typ, c.members, sbf_build(c.h, 0.02)
FROM kcase c WHERE c.seq = 224;

-- windowed: aggregates (kind 4, fused), live adds, relabelled version 3,
-- unions and expiry
INSERT INTO kcase (seq, name, typ, members, ats, width, buckets, built, rate)
VALUES
	(400, 'v4_window_agg_3000_text_30x1d', 'text', pg_temp.el('wa:', 3000),
		pg_temp.ts('2026-03-01 00:00+00', '00:14:24', 3000), '1 day', 30, 'window', 0.01),
	(401, 'v4_window_agg_5000_text_3x1h_fused', 'text', pg_temp.el('f', 5000),
		pg_temp.ts('2026-03-01 00:00+00', '00:00:01.44', 5000), '1 hour', 3, 'window', 0.01),
	(402, 'v4_window_agg_2000_bigint_24x1h_e0.001', 'bigint', pg_temp.bi(30000000, 2000),
		pg_temp.ts('2026-03-01 00:00+00', '00:00:54', 2000), '1 hour', 24, 'window', 0.001),
	(403, 'v4_window_agg_800_bytea_7x1d_e0.05', 'bytea', pg_temp.el('wy:', 800),
		pg_temp.ts('2026-03-01 00:00+00', '00:15:00', 800), '1 day', 7, 'window', 0.05),
	(404, 'v4_window_agg_2000_text_3x1d_e0.3', 'text', pg_temp.el('b', 2000),
		pg_temp.ts('2026-03-01 00:00+00', '00:02:09.6', 2000), '1 day', 3, 'window', 0.3),
	(405, 'v4_window_agg_400_text_1x1w_e0.1', 'text', pg_temp.el('w1:', 400),
		pg_temp.ts('2026-03-01 00:00+00', '00:10:00', 400), '7 days', 1, 'window', 0.1);
UPDATE kcase SET f = pg_temp.wagg(typ, members, ats, width, buckets, rate) WHERE built = 'window';

INSERT INTO kcase (seq, name, typ, members, ats, width, buckets, f)
VALUES
	(410, 'v4_window_live_text_30x1d', 'text', pg_temp.el('wl:', 6000),
		pg_temp.ts('2026-03-01 00:00+00', '00:03:36', 6000), '1 day', 30, NULL),
	(411, 'v4_window_live_bigint_24x1h', 'bigint', pg_temp.bi(40000000, 1500),
		pg_temp.ts('2026-03-01 00:00+00', '00:01:12', 1500), '1 hour', 24, NULL);
UPDATE kcase SET f = pg_temp.add_timed(sbf_window_empty(width, buckets), typ, members, ats) WHERE seq IN (410, 411);
INSERT INTO kcase (seq, name, typ, members, ats, width, buckets, f)
SELECT 412, 'v4_window_live_expired_text_30x1d', typ, members, ats, width, buckets,
	   sbf_expire(f, '2026-03-25 12:00+00')
FROM kcase WHERE seq = 410;
-- version 3 written to: relabelled version 4 (kind 4 segments)
INSERT INTO kcase (seq, name, typ, members, ats, width, buckets, f)
SELECT 413, 'v4_window_relabelled_v3_text', typ,
	   members || pg_temp.el('rw:', 200), ats || pg_temp.ts('2026-01-21 00:00+00', '00:07:12', 200),
	   width, buckets,
	   pg_temp.add_timed(f, typ, pg_temp.el('rw:', 200), pg_temp.ts('2026-01-21 00:00+00', '00:07:12', 200))
FROM kcase WHERE seq = 211;
INSERT INTO kcase (seq, name, typ, members, ats, width, buckets, f)
SELECT 414, 'v4_window_union_agg_live_e0.02', a.typ, a.members || b.members, a.ats || b.ats,
	   a.width, a.buckets, sbf_union(a.f, b.f, 0.02)
FROM kcase a, kcase b WHERE a.seq = 400 AND b.seq = 410;

DO $$
BEGIN
	IF EXISTS (SELECT FROM kcase WHERE (f IS NULL) = (h IS NULL)) THEN
		RAISE EXCEPTION 'kit_cases.sql: a case without its value: %',
			(SELECT string_agg(name, ', ') FROM kcase WHERE (f IS NULL) = (h IS NULL));
	END IF;
END $$;
