-- kit_malformed.sql: test/kit/malformed.txt, and the server's hash checked
-- against hashes.txt.  Run by test/kit/generate.sh with kitval (the value
-- and hashset records of the new kit.txt) and kithash (hashes.txt's records)
-- loaded.  Each malformed value is a kit value with one defect; the server
-- must refuse it with SQLSTATE 22P03, or the run fails.  The defects named
-- in the spec ("must") have to be refused; byte flips spread over a value
-- ("flip") are kept only where the server refuses them (a flipped bit of a
-- Bloom segment is usually a valid value).

-- ---- hashes.txt against the server: the exact form stores the hash ----
DO $$
DECLARE
	r record;
	f scalablebloom;
	got text;
	n int := 0;
BEGIN
	FOR r IN SELECT * FROM kithash LOOP
		f := CASE r.typ
			WHEN 'bigint' THEN sbf_empty() || r.elem::bigint
			WHEN 'bytea' THEN sbf_empty() || CASE r.elem WHEN '-' THEN ''::bytea ELSE decode(r.elem, 'hex') END
			ELSE sbf_empty() || convert_from(CASE r.elem WHEN '-' THEN ''::bytea ELSE decode(r.elem, 'hex') END, 'UTF8')
		END;
		-- the exact form: byte 0 = 2, flag EXACT, one hash at offset 52, little-endian
		got := (SELECT string_agg(encode(substring(f::bytea FROM 53 + i FOR 1), 'hex'), '' ORDER BY i DESC)
				FROM generate_series(0, 7) i);
		IF get_byte(f::bytea, 0) <> 2 OR length(f::bytea) <> 60 OR got <> r.u64 THEN
			RAISE EXCEPTION 'hash of % % is % on the server, % in hashes.txt', r.typ, r.elem, got, r.u64;
		END IF;
		n := n + 1;
	END LOOP;
	IF n < 100 THEN
		RAISE EXCEPTION 'hashes.txt has only % hashes', n;
	END IF;
END $$;

-- ---- byte helpers ----
CREATE FUNCTION pg_temp.le(v numeric, nb int) RETURNS bytea
	LANGUAGE sql IMMUTABLE
	RETURN (SELECT string_agg(set_byte('\x00'::bytea, 0, (mod(div(v, 256::numeric ^ i), 256))::int), ''::bytea ORDER BY i)
			FROM generate_series(0, nb - 1) i);
CREATE FUNCTION pg_temp.getle(b bytea, off int, nb int) RETURNS numeric
	LANGUAGE sql IMMUTABLE
	RETURN (SELECT sum(get_byte(b, off + i) * 256::numeric ^ i) FROM generate_series(0, nb - 1) i);
CREATE FUNCTION pg_temp.put(b bytea, off int, x bytea) RETURNS bytea
	LANGUAGE sql IMMUTABLE
	RETURN overlay(b PLACING x FROM off + 1 FOR length(x));
CREATE FUNCTION pg_temp.orb(b bytea, off int, mask int) RETURNS bytea
	LANGUAGE sql IMMUTABLE
	RETURN set_byte(b, off, get_byte(b, off) | mask);
CREATE FUNCTION pg_temp.setb(b bytea, off int, v int) RETURNS bytea
	LANGUAGE sql IMMUTABLE
	RETURN set_byte(b, off, v);

-- the SQLSTATE of reading b (NULL: accepted)
CREATE FUNCTION pg_temp.refusal(b bytea, hs boolean) RETURNS text
	LANGUAGE plpgsql AS $$
BEGIN
	IF hs THEN
		PERFORM sbf_hashset(b);
	ELSE
		PERFORM scalablebloom(b);
	END IF;
	RETURN NULL;
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE;
END $$;

CREATE TEMP TABLE base AS
	SELECT name, decode(hex, 'hex') AS b, rec = 'hashset' AS hs FROM kitval
	WHERE name IN ('v1_bloom_agg_300_bytea', 'v2_bloom_singles_200_bytea_g2',
				   'v2_exact_60_text', 'v2_exact_delta_chain_20', 'v2_exact_empty',
				   'v3_window_live_expired_bigint_24x1h', 'v3_window_empty_30x1d',
				   'v4_bloom_agg_300_text', 'v4_fused_agg_30_text', 'v4_grown_150_text',
				   'v4_window_agg_400_text_1x1w_e0.1', 'v4_window_agg_800_bytea_7x1d_e0.05',
				   'v5_compact_30_text', 'v5_compact_union_v4_text',
				   'v5_value_30_text', 'v5_value_700_bytea_e0.001_params',
				   'hs1_agg_300_bytea');
DO $$
BEGIN
	IF (SELECT count(*) FROM base) <> 17 THEN
		RAISE EXCEPTION 'kit_malformed.sql: a base value is missing from kit.txt';
	END IF;
END $$;
-- what each base is: version, form, counts
CREATE TEMP VIEW bases AS
	SELECT name, b, hs, length(b) AS n, get_byte(b, 0) AS v, get_byte(b, 1) AS fl,
		   NOT hs AND get_byte(b, 0) IN (3, 4) AND (get_byte(b, 0) = 3 OR get_byte(b, 1) & 128 <> 0) AS win,
		   NOT hs AND get_byte(b, 0) = 2 AND get_byte(b, 1) & 2 <> 0 AS exact,
		   NOT hs AND get_byte(b, 0) = 5 AND get_byte(b, 1) & 64 <> 0 AS compact
	FROM base;

CREATE TEMP TABLE cand (name text, what text, must boolean, b bytea, hs boolean);

-- every form: truncations, trailing bytes, the version byte, an unknown flag
INSERT INTO cand
SELECT name, w, true, x, hs FROM bases,
	LATERAL (VALUES
		('trunc_1', substring(b FROM 1 FOR 1)),
		('trunc_header', substring(b FROM 1 FOR 12)),
		('trunc_last_byte', substring(b FROM 1 FOR n - 1)),
		('trunc_8', substring(b FROM 1 FOR n - 8)),
		('extra_byte', b || '\x00'::bytea),
		('extra_8', b || '\x0000000000000000'::bytea),
		('version_0', pg_temp.setb(b, 0, 0)),
		('version_5', pg_temp.setb(b, 0, 5)),
		('version_255', pg_temp.setb(b, 0, 255)),
		('flag_bit_6', pg_temp.orb(b, 1, 64)),
		('byte_2_is_64', pg_temp.setb(b, 2, 64))) t(w, x)
WHERE NOT (v = 5 AND w = 'version_5') AND NOT (compact AND w = 'flag_bit_6');
INSERT INTO cand SELECT 'any', 'empty', true, ''::bytea, false;
INSERT INTO cand SELECT 'any', 'empty', true, ''::bytea, true;

-- plain segmented (versions 1, 2, 4): header fields and the first entry
INSERT INTO cand
SELECT name, w, true, x, false FROM bases,
	LATERAL (VALUES
		('hll_p_3', pg_temp.setb(b, 3, 3)),
		('hll_p_15', pg_temp.setb(b, 3, 15)),
		('growth_0', pg_temp.put(b, 4, '\x0000')),
		('growth_17', pg_temp.put(b, 4, '\x1100')),
		('nsegments_0', pg_temp.put(b, 6, '\x0000')),
		('nsegments_4097', pg_temp.put(b, 6, '\x0110')),
		('nsegments_65535', pg_temp.put(b, 6, '\xffff')),
		('hll_bytes_plus_8', pg_temp.put(b, 8, pg_temp.le(pg_temp.getle(b, 8, 4) + 8, 4))),
		('hll_bytes_huge', pg_temp.put(b, 8, '\xffffffff')),
		('error_rate_0.5', pg_temp.put(b, 12, '\x000000000000e03f')),
		('error_rate_nan', pg_temp.put(b, 12, '\x000000000000f87f')),
		('error_rate_0', pg_temp.put(b, 12, '\x0000000000000000')),
		('tightening_0', pg_temp.put(b, 20, '\x0000000000000000')),
		('tightening_1.5', pg_temp.put(b, 20, '\x000000000000f83f')),
		('capacity_0', pg_temp.put(b, 28, '\x0000000000000000')),
		('count_over_capacity', pg_temp.put(b, 44, '\xffffffffffffff7f'))) t(w, x)
WHERE NOT hs AND NOT win AND NOT exact AND NOT compact;
-- version 5 (compact segment first): labelled 4, whose directory admits no
-- compact segment; the first descriptor's kind unknown, its fingerprint
-- bits 0 and 64, a byte of its reserved part set
INSERT INTO cand
SELECT name, w, true, x, false FROM bases,
	LATERAL (VALUES
		('version_4', pg_temp.setb(b, 0, 4)),
		('kind_6', pg_temp.setb(b, 68, 6)),
		('fingerprint_bits_0', pg_temp.setb(b, 69, 0)),
		('fingerprint_bits_64', pg_temp.setb(b, 69, 64)),
		('descriptor_byte_10', pg_temp.setb(b, 70, 1))) t(w, x)
WHERE NOT hs AND v = 5 AND NOT compact;
-- the compact form (version 5, flag bit 6): flags, b, L, e, the LEB128
-- numbers, defaults written as PARAMS, its code's high area
INSERT INTO cand
SELECT name, w, true, x, false FROM bases,
	LATERAL (VALUES
		('version_4', pg_temp.setb(b, 0, 4)),
		('flag_bit_0', pg_temp.orb(b, 1, 1)),
		('flag_bit_3', pg_temp.orb(b, 1, 8)),
		('fingerprint_bits_0', pg_temp.setb(b, 2, 0)),
		('fingerprint_bits_9', pg_temp.setb(b, 2, 9)),
		('fingerprint_bits_64', pg_temp.setb(b, 2, 64)),
		('low_bits_plus_1', pg_temp.setb(b, 3, get_byte(b, 3) + 1)),
		('error_rate_0.5', pg_temp.put(b, 4, '\x000000000000e03f')),
		('error_rate_nan', pg_temp.put(b, 4, '\x000000000000f87f')),
		('error_rate_0', pg_temp.put(b, 4, '\x0000000000000000')),
		('n_0', pg_temp.setb(b, 12, 0))) t(w, x)
WHERE compact;
INSERT INTO cand
SELECT name, w, true, x, false FROM bases,
	LATERAL (SELECT CASE WHEN fl & 16 <> 0 THEN 15 + 2 * get_byte(b, 14) ELSE 14 END AS hi) c,
	LATERAL (VALUES
		('capacity_0', pg_temp.setb(b, 13, 0)),
		('n_not_shortest', substring(b FROM 1 FOR 12) || set_byte('\x8000'::bytea, 0, get_byte(b, 12) | 128) || substring(b FROM 14)),
		('high_area_bit', pg_temp.setb(b, hi, get_byte(b, hi) # 128))) t(w, x)
WHERE compact AND get_byte(b, 12) < 128 AND get_byte(b, 13) < 128 AND fl & 32 = 0;
-- the RANKS list (flag 16; its count k at byte 14 where n and capacity take
-- a byte each and PARAMS is clear, entries of 2 bytes after it): the flag
-- alone, k 0 and past the entries, entry 0's top bit, rank at the cap
-- b - 8 and 57, entry 1's register equal to entry 0's
INSERT INTO cand
SELECT name, w, true, x, false FROM bases,
	LATERAL (VALUES
		('ranks_flag_clear', pg_temp.setb(b, 1, fl & ~16)),
		('ranks_count_0', pg_temp.setb(b, 14, 0)),
		('ranks_count_past_entries', pg_temp.setb(b, 14, 127)),
		('ranks_top_bit', pg_temp.setb(b, 16, get_byte(b, 16) | 128)),
		('ranks_rank_at_cap', pg_temp.setb(b, 16, (get_byte(b, 16) & 1) | (get_byte(b, 2) - 8) << 1)),
		('ranks_rank_57', pg_temp.setb(b, 16, (get_byte(b, 16) & 1) | 57 << 1)),
		('ranks_not_ascending', pg_temp.setb(pg_temp.setb(b, 17, get_byte(b, 15)), 18,
											 (get_byte(b, 18) & 254) | (get_byte(b, 16) & 1)))) t(w, x)
WHERE compact AND fl & 16 <> 0 AND fl & 32 = 0 AND get_byte(b, 12) < 128 AND
	get_byte(b, 13) < 128 AND get_byte(b, 14) >= 2;
-- the layout kept in every rule, b = 9 (two texts at 1%): refused by the
-- server's own rule b > 9 alone (every stored compact value has a
-- segmented form)
INSERT INTO cand
SELECT 'v5_value_30_text', 'fingerprint_bits_9_layout_valid', true,
	   '\x054009087b14ae47e17a843f020206c7d7'::bytea, false;
INSERT INTO cand
SELECT name, 'params_the_defaults', true,
	   pg_temp.put(pg_temp.put(b, 16, '\x0200'), 18, '\xcdccccccccccec3f'::bytea), false
FROM bases WHERE compact AND fl & 32 <> 0 AND get_byte(b, 12) >= 128 AND get_byte(b, 14) >= 128;
-- version 1 and 2 entries: m, k, reserved
INSERT INTO cand
SELECT name, w, true, x, false FROM bases,
	LATERAL (VALUES
		('m_0', pg_temp.put(b, 52, '\x0000000000000000')),
		('p_0.5', pg_temp.put(b, 60, '\x000000000000e03f')),
		('k_0', pg_temp.put(b, 68, '\x0000')),
		('k_65', pg_temp.put(b, 68, '\x4100')),
		('entry_reserved', pg_temp.setb(b, 70, 1)),
		('entry_reserved_4', pg_temp.setb(b, 73, 1))) t(w, x)
WHERE NOT hs AND NOT win AND NOT exact AND v IN (1, 2);
-- version 4 entries: p, the kind descriptor
INSERT INTO cand
SELECT name, w, true, x, false FROM bases,
	LATERAL (VALUES
		('p_0.5', pg_temp.put(b, 52, '\x000000000000e03f')),
		('size_0', pg_temp.put(b, 60, '\x0000000000000000')),
		('kind_0', pg_temp.setb(b, 68, 0)),
		('kind_4_in_plain', pg_temp.setb(b, 68, 4)),
		('kind_9', pg_temp.setb(b, 68, 9)),
		('width_0', pg_temp.setb(b, 69, 0)),
		('descriptor_reserved', pg_temp.setb(b, 73, 1))) t(w, x)
WHERE NOT hs AND NOT win AND v = 4;
-- the HyperLogLog's last bytes: an index past 2^p (sparse) or registers of 63 (dense)
INSERT INTO cand
SELECT name, 'hll_last_bytes', true, pg_temp.put(b, n - 4, '\xffffffff'), false FROM bases
WHERE NOT hs AND NOT win AND NOT exact AND NOT compact AND pg_temp.getle(b, 8, 4) >= 4;
-- set bits past m in the first bloom segment's last word (versions 1 and 2)
INSERT INTO cand
SELECT name, 'bit_past_m', true,
	   pg_temp.orb(b, 36 + 40 * pg_temp.getle(b, 6, 2)::int + ceil(pg_temp.getle(b, 52, 8) / 64)::int * 8 - 1, 128), false
FROM bases
WHERE NOT hs AND NOT win AND NOT exact AND v IN (1, 2) AND pg_temp.getle(b, 52, 8) % 64 <> 0;

-- the exact form
INSERT INTO cand
SELECT name, w, true, x, false FROM bases,
	LATERAL (VALUES
		('reserved_6', pg_temp.setb(b, 6, 1)),
		('n_plus_1', pg_temp.put(b, 8, pg_temp.le(pg_temp.getle(b, 8, 4) + 1, 4))),
		('n_huge', pg_temp.put(b, 8, '\xffffffff')),
		('first_capacity_0', pg_temp.put(b, 36, '\x0000000000000000')),
		('first_error_0.5', pg_temp.put(b, 44, '\x000000000000e03f')),
		('exact_as_version_4', pg_temp.setb(b, 0, 4)),
		('exact_as_version_1', pg_temp.setb(b, 0, 1))) t(w, x)
WHERE exact;
INSERT INTO cand
SELECT name, w, true, x, false FROM bases,
	LATERAL (VALUES
		('hashes_swapped', pg_temp.put(pg_temp.put(b, 52, substring(b FROM 61 FOR 8)), 60, substring(b FROM 53 FOR 8))),
		('hash_repeated', pg_temp.put(b, 60, substring(b FROM 53 FOR 8)))) t(w, x)
WHERE exact AND pg_temp.getle(b, 8, 4) >= 2;

-- windowed (versions 3 and 4)
INSERT INTO cand
SELECT name, w, true, x, false FROM bases,
	LATERAL (VALUES
		('reserved_3', pg_temp.setb(b, 3, 1)),
		('buckets_0', pg_temp.put(b, 4, '\x0000')),
		('buckets_1001', pg_temp.put(b, 4, '\xe903')),
		('reserved_6', pg_temp.setb(b, 6, 1)),
		('nsegments_huge', pg_temp.put(b, 8, '\xffffffff')),
		('npairs_plus_1', pg_temp.put(b, 12, pg_temp.le(pg_temp.getle(b, 12, 4) + 1, 4))),
		('width_0', pg_temp.put(b, 16, '\x0000000000000000')),
		('width_over_3650_days', pg_temp.put(b, 16, pg_temp.le(315360000000001, 8))),
		('error_rate_0.5', pg_temp.put(b, 32, '\x000000000000e03f')),
		('other_version', pg_temp.setb(b, 0, 7 - v))) t(w, x)
WHERE win;
INSERT INTO cand
SELECT name, 'not_started', true, pg_temp.setb(b, 1, fl & ~1), false FROM bases
WHERE win AND fl & 1 <> 0;
INSERT INTO cand
SELECT name, 'last_pair_age_65535', true, pg_temp.put(b, n - 2, '\xffff'), false FROM bases
WHERE win AND pg_temp.getle(b, 12, 4) > 0;
INSERT INTO cand
SELECT name, w, true, x, false FROM bases,
	LATERAL (VALUES
		('age_of_entry_0_is_b', pg_temp.put(b, 40, substring(b FROM 5 FOR 2))),
		('k_0', pg_temp.setb(b, 42, 0)),
		('entry_reserved', pg_temp.setb(b, 43, 1))) t(w, x)
WHERE win AND v = 3 AND pg_temp.getle(b, 8, 4) > 0;
INSERT INTO cand
SELECT name, w, true, x, false FROM bases,
	LATERAL (VALUES
		('age_of_entry_0_is_b', pg_temp.put(b, 40, substring(b FROM 5 FOR 2))),
		('entry_reserved', pg_temp.setb(b, 42, 1)),
		('kind_1_in_window', pg_temp.setb(b, 56, 1)),
		('kind_9', pg_temp.setb(b, 56, 9)),
		('size_0', pg_temp.put(b, 48, '\x0000000000000000'))) t(w, x)
WHERE win AND v = 4 AND pg_temp.getle(b, 8, 4) > 0;

-- hash sets
INSERT INTO cand
SELECT name, w, true, x, true FROM bases,
	LATERAL (VALUES
		('flag_bit_2', pg_temp.orb(b, 1, 4)),
		('filter_body_without_rate', pg_temp.orb(b, 1, 2)),
		('reserved_3', pg_temp.setb(b, 3, 1)),
		('reserved_7', pg_temp.setb(b, 7, 1)),
		('count_plus_1', pg_temp.put(b, 8, pg_temp.le(pg_temp.getle(b, 8, 8) + 1, 8))),
		('count_huge', pg_temp.put(b, 8, '\xffffffffffffff7f'))) t(w, x)
WHERE hs;

-- byte flips spread over every base (header, directory, data, tail): kept where refused
INSERT INTO cand
SELECT name, 'flip_' || off, false, set_byte(b, off, get_byte(b, off) # 255), hs
FROM bases, LATERAL (SELECT DISTINCT (i * (n - 1)) / 15 AS off FROM generate_series(0, 15) i) o
WHERE n > 1;

ALTER TABLE cand ADD COLUMN refused text;
UPDATE cand SET refused = pg_temp.refusal(b, hs);
DO $$
DECLARE
	r record;
BEGIN
	FOR r IN SELECT * FROM cand WHERE (must AND refused IS DISTINCT FROM '22P03')
								   OR (refused IS NOT NULL AND refused <> '22P03') LOOP
		RAISE EXCEPTION 'malformed %.% (% bytes): the server %', r.name, r.what, length(r.b),
			coalesce('refused it with ' || r.refused || ', not 22P03', 'accepted it');
	END LOOP;
END $$;

SELECT CASE WHEN hs THEN 'malformed_hashset ' ELSE 'malformed ' END || name || '.' || what || ' ' ||
	   coalesce(nullif(encode(b, 'hex'), ''), '-')
FROM (SELECT DISTINCT ON (b, hs) * FROM cand WHERE refused = '22P03' ORDER BY b, hs, name, what) d
ORDER BY hs, name, what;
