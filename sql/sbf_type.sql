-- sbf_type: the scalablebloom type, its text and binary forms, and casts

-- text form of a payload, built by hand: 'sbf1:' + base64 without newlines
CREATE FUNCTION pg_temp.t(b bytea) RETURNS text
LANGUAGE sql AS $$ SELECT 'sbf1:' || translate(encode(b, 'base64'), E'\n', '') $$;

-- type properties: varlena, double alignment, external storage
SELECT typname, typlen, typalign, typstorage, typcategory
FROM pg_type WHERE typname = 'scalablebloom';

-- both casts are explicit and implemented by functions
SELECT castsource::regtype, casttarget::regtype, castcontext, castmethod
FROM pg_cast
WHERE castsource = 'scalablebloom'::regtype OR casttarget = 'scalablebloom'::regtype
ORDER BY 1;

-- the text form of the smallest filter, in full
SELECT sbf_empty(1, 0.1, 1, 1)::text;

-- the same filter's payload, in format 2's exact form: version 2, flags 2
-- (exact), hash 1, hll_p 9, growth 1, reserved 0, no hashes, error_rate,
-- tightening, capacity, then the first segment it converts to
SELECT sbf_empty(1, 0.1, 1, 1)::bytea;

-- format-1 values as sbf 1.0 wrote them (the segmented layout), for the
-- malformed cases below: sbf_empty(1) and sbf_empty(1, 0.1, 1, 1)
CREATE FUNCTION pg_temp.v1_empty1() RETURNS bytea LANGUAGE sql AS
$$SELECT '\x0100010902000100000000007b14ae47e17a843fcdccccccccccec3f0100000000000000010000000000000000000000000000000f00000000000000fba9f1d24d62503f0a000000000000000000000000000000'::bytea$$;
CREATE FUNCTION pg_temp.v1_smallest() RETURNS bytea LANGUAGE sql AS
$$SELECT '\x0100010901000100000000009a9999999999b93f000000000000f03f01000000000000000100000000000000000000000000000005000000000000009a9999999999b93f03000000000000000000000000000000'::bytea$$;
SELECT pg_temp.v1_smallest()::scalablebloom::text AS v1_text,
	   pg_temp.v1_smallest()::scalablebloom::bytea = pg_temp.v1_smallest() AS v1_round_trip,
	   sbf_info(pg_temp.v1_smallest()::scalablebloom)->'version' AS version;

-- sample filters for the round trips: empty, a few elements, many elements
-- (several segments, dense HyperLogLog), and growth 1
CREATE TEMP TABLE samples (id int, f scalablebloom);
INSERT INTO samples VALUES
	(1, sbf_empty()),
	(2, sbf_empty(10) || 'a' || 'b' || 42 || '\x00ff'::bytea),
	(3, sbf_add(sbf_empty(100, 0.001, 4),
				ARRAY(SELECT 'e' || i FROM generate_series(1, 3000) i))),
	(4, sbf_add(sbf_empty(50, 0.05, 1, 1),
				ARRAY(SELECT 'g' || i FROM generate_series(1, 400) i)));

-- what the samples look like
SELECT id, jsonb_array_length(sbf_info(f)->'segments') AS segments,
	   sbf_info(f)->'hll'->>'form' AS hll, octet_length(f::bytea) AS payload_bytes
FROM samples ORDER BY id;

-- text round trip is exact
SELECT id, f::text::scalablebloom::bytea = f::bytea AS text_round_trip
FROM samples ORDER BY id;

-- bytea round trip is exact
SELECT id, f::bytea::scalablebloom::bytea = f::bytea AS bytea_round_trip
FROM samples ORDER BY id;

-- the text form is the prefix plus standard padded base64 of the payload
SELECT id, f::text = pg_temp.t(f::bytea) AS text_is_base64
FROM samples ORDER BY id;

-- the binary form (send) is the raw payload
SELECT id, scalablebloom_send(f) = f::bytea AS send_is_payload
FROM samples ORDER BY id;

-- the value is the payload behind a 4-byte header
SELECT id, (sbf_info(f)->>'bytes')::int = octet_length(f::bytea) + 4 AS bytes_ok
FROM samples ORDER BY id;

-- functional notation works for both casts
SELECT bytea(scalablebloom(sbf_empty(1)::bytea)) = sbf_empty(1)::bytea AS functional_casts;

-- NULL casts stay NULL
SELECT NULL::bytea::scalablebloom IS NULL AS null_from_bytea,
	   NULL::scalablebloom::bytea IS NULL AS null_to_bytea;

-- binary COPY round trip (send and recv) is exact
CREATE TEMP TABLE copied (id int, f scalablebloom);
DO $$
DECLARE
	path text := '/tmp/sbf_regress_type_' || pg_backend_pid() || '.bin';
BEGIN
	EXECUTE format('COPY samples TO %L WITH (FORMAT binary)', path);
	EXECUTE format('COPY copied FROM %L WITH (FORMAT binary)', path);
	EXECUTE format('COPY (SELECT 1 WHERE false) TO PROGRAM %L', 'rm -f ' || path);
END $$;
SELECT s.id, c.f::bytea = s.f::bytea AS binary_round_trip
FROM samples s JOIN copied c USING (id) ORDER BY s.id;

-- text COPY round trip is exact
TRUNCATE copied;
DO $$
DECLARE
	path text := '/tmp/sbf_regress_type_' || pg_backend_pid() || '.txt';
BEGIN
	EXECUTE format('COPY samples TO %L', path);
	EXECUTE format('COPY copied FROM %L', path);
	EXECUTE format('COPY (SELECT 1 WHERE false) TO PROGRAM %L', 'rm -f ' || path);
END $$;
SELECT s.id, c.f::bytea = s.f::bytea AS text_copy_round_trip
FROM samples s JOIN copied c USING (id) ORDER BY s.id;

-- a stored (TOASTed, uncompressed) filter reads back exactly
CREATE TEMP TABLE stored (f scalablebloom);
INSERT INTO stored SELECT f FROM samples WHERE id = 3;
SELECT s.f::bytea = t.f::bytea AS stored_round_trip,
	   pg_column_size(s.f) >= octet_length(t.f::bytea) AS not_compressed
FROM stored s, samples t WHERE t.id = 3;

\x on

-- malformed text: missing prefix
SELECT * FROM sbf_regress.try($$SELECT 'AQABCQ=='::scalablebloom$$);

-- malformed text: empty string
SELECT * FROM sbf_regress.try($$SELECT ''::scalablebloom$$);

-- malformed text: prefix of another version
SELECT * FROM sbf_regress.try($$SELECT 'sbf2:AAAA'::scalablebloom$$);

-- malformed text: prefix only (no payload)
SELECT * FROM sbf_regress.try($$SELECT 'sbf1:'::scalablebloom$$);

-- malformed text: character outside the base64 alphabet
SELECT * FROM sbf_regress.try($$SELECT 'sbf1:AQAB*Q=='::scalablebloom$$);

-- malformed text: length not a multiple of 4
SELECT * FROM sbf_regress.try($$SELECT 'sbf1:AQABCQ'::scalablebloom$$);

-- malformed text: padding in the middle
SELECT * FROM sbf_regress.try($$SELECT 'sbf1:AQ==AQAB'::scalablebloom$$);

-- malformed text: nonzero bits under the padding
SELECT * FROM sbf_regress.try($$SELECT 'sbf1:AR=='::scalablebloom$$);

-- malformed text: surrounding whitespace is not accepted
SELECT * FROM sbf_regress.try(format('SELECT %L::scalablebloom',
	' ' || sbf_empty(1)::text));

-- malformed text: wrong version byte
SELECT * FROM sbf_regress.try(format('SELECT %L::scalablebloom',
	pg_temp.t(set_byte(pg_temp.v1_empty1(), 0, 6))));

-- malformed text: unknown flag bit
SELECT * FROM sbf_regress.try(format('SELECT %L::scalablebloom',
	pg_temp.t(set_byte(pg_temp.v1_empty1(), 1, 4))));

-- malformed text: unknown hash function
SELECT * FROM sbf_regress.try(format('SELECT %L::scalablebloom',
	pg_temp.t(set_byte(pg_temp.v1_empty1(), 2, 7))));

-- malformed text: HyperLogLog precision out of range
SELECT * FROM sbf_regress.try(format('SELECT %L::scalablebloom',
	pg_temp.t(set_byte(pg_temp.v1_empty1(), 3, 20))));

-- malformed text: truncated (last byte missing)
SELECT * FROM sbf_regress.try(format('SELECT %L::scalablebloom',
	pg_temp.t(substr(pg_temp.v1_empty1(), 1, octet_length(pg_temp.v1_empty1()) - 1))));

-- malformed text: truncated inside the header
SELECT * FROM sbf_regress.try(format('SELECT %L::scalablebloom',
	pg_temp.t(substr(pg_temp.v1_empty1(), 1, 20))));

-- malformed text: a trailing byte
SELECT * FROM sbf_regress.try(format('SELECT %L::scalablebloom',
	pg_temp.t(pg_temp.v1_empty1() || '\x00'::bytea)));

-- malformed text: zero segments
SELECT * FROM sbf_regress.try(format('SELECT %L::scalablebloom',
	pg_temp.t(set_byte(pg_temp.v1_empty1(), 6, 0))));

-- malformed text: error_rate 0.5 in the header (outside (0, 0.5))
SELECT * FROM sbf_regress.try(format('SELECT %L::scalablebloom',
	pg_temp.t(overlay(sbf_empty(1, 0.1)::bytea PLACING '\x000000000000e03f'::bytea FROM 13 FOR 8))));

-- malformed text: segment count above its capacity
SELECT * FROM sbf_regress.try(format('SELECT %L::scalablebloom',
	pg_temp.t(set_byte(pg_temp.v1_empty1(), 44, 2))));

-- malformed text: nonzero reserved field of a segment
SELECT * FROM sbf_regress.try(format('SELECT %L::scalablebloom',
	pg_temp.t(set_byte(pg_temp.v1_empty1(), 72, 1))));

-- malformed text: a bit set past the end of a segment (m = 5 bits, set bit 7)
SELECT * FROM sbf_regress.try(format('SELECT %L::scalablebloom',
	pg_temp.t(set_byte(pg_temp.v1_smallest(), 76, 128))));

-- malformed bytea: empty
SELECT * FROM sbf_regress.try($$SELECT ''::bytea::scalablebloom$$);

-- malformed bytea: one byte
SELECT * FROM sbf_regress.try($$SELECT '\x01'::bytea::scalablebloom$$);

-- malformed bytea: wrong version byte
SELECT * FROM sbf_regress.try($$SELECT set_byte(pg_temp.v1_empty1(), 0, 0)::scalablebloom$$);

-- malformed bytea: truncated
SELECT * FROM sbf_regress.try($$SELECT substr(pg_temp.v1_empty1(), 1, 60)::scalablebloom$$);

-- malformed bytea: trailing bytes
SELECT * FROM sbf_regress.try($$SELECT (pg_temp.v1_empty1() || '\x0000'::bytea)::scalablebloom$$);

-- malformed bytea: a bit set past the end of a segment
SELECT * FROM sbf_regress.try($$SELECT set_byte(pg_temp.v1_smallest(), 76, 128)::scalablebloom$$);

-- malformed bytea: random bytes
SELECT * FROM sbf_regress.try($$SELECT decode(repeat('deadbeef', 40), 'hex')::scalablebloom$$);

\x off
