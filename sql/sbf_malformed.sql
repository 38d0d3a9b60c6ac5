-- sbf_malformed: a catalogue of malformed values, each tried through every
-- way bytes come in: text input, the bytea cast and binary receive (COPY
-- FORMAT binary).  Every one must be refused with its SQLSTATE (22P02 for
-- text, 22P03 for binary), never XX000, and the server keeps answering.

-- SQLSTATE of a statement ('00000' when it succeeds)
CREATE FUNCTION pg_temp.state(stmt text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE stmt;
	RETURN '00000';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE;
END $$;

-- the errdetail of a statement's error (NULL when it succeeds)
CREATE FUNCTION pg_temp.detail(stmt text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	d text;
BEGIN
	EXECUTE stmt;
	RETURN NULL;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
	RETURN d;
END $$;

-- a valid small filter in the segmented layout: one segment (capacity 10),
-- sparse HyperLogLog of 3 entries; payload offsets: header 0-35, directory
-- entry 36-75, bits 76-99, HyperLogLog 100-111.  It is the value sbf 1.0 made
-- of sbf_add(sbf_empty(10), ARRAY['a', 'b', 'c']) (format 1; 1.1 keeps such
-- small filters in the exact form, see sbf_lifecycle)
CREATE TEMP TABLE base AS
SELECT '\x01000109020001000c0000007b14ae47e17a843fcdccccccccccec3f0a000000000000000a0000000000000003000000000000009000000000000000fba9f1d24d62503f0a000000000000001021001100460010800c041c041011c055a0000000000000031b0000011f0000023f0000'::bytea AS b;
SELECT octet_length(b) AS bytes, sbf_info(b::scalablebloom)->'hll' AS hll FROM base;

CREATE TEMP TABLE cases (id serial, label text, b bytea);
INSERT INTO cases (label, b)
SELECT v.label, v.b FROM (SELECT b AS x FROM base) s(b), LATERAL (VALUES
	('empty',                         ''::bytea),
	('one byte',                      '\x01'::bytea),
	('truncated header',              substr(b, 1, 20)),
	('truncated directory',           substr(b, 1, 50)),
	('truncated bits',                substr(b, 1, 90)),
	('truncated hyperloglog',         substr(b, 1, 108)),
	('trailing byte',                 b || '\x00'::bytea),
	('version 0',                     set_byte(b, 0, 0)),
	('version 3',                     set_byte(b, 0, 3)),
	('version 2 unknown flag bit',    set_byte(set_byte(b, 0, 2), 1, 16)),
	('unknown flag bit',              set_byte(b, 1, 2)),
	('hash id 0',                     set_byte(b, 2, 0)),
	('hash id 2',                     set_byte(b, 2, 2)),
	('hll precision 3',               set_byte(b, 3, 3)),
	('hll precision 15',              set_byte(b, 3, 15)),
	('growth 0',                      set_byte(b, 4, 0)),
	('growth 17',                     set_byte(b, 4, 17)),
	('no segments',                   set_byte(b, 6, 0)),
	('more segments than bytes',      set_byte(b, 6, 2)),
	('huge segment count',            set_byte(set_byte(b, 6, 255), 7, 255)),
	('hll length disagrees',          set_byte(b, 8, 16)),
	('hll length huge',               set_byte(b, 11, 127)),
	('error_rate NaN',                overlay(b PLACING '\x000000000000f87f' FROM 13)),
	('error_rate Infinity',           overlay(b PLACING '\x000000000000f07f' FROM 13)),
	('error_rate 0.5',                overlay(b PLACING '\x000000000000e03f' FROM 13)),
	('error_rate 0',                  overlay(b PLACING '\x0000000000000000' FROM 13)),
	('error_rate negative',           overlay(b PLACING '\x7b14ae47e17a84bf' FROM 13)),
	('tightening 0',                  overlay(b PLACING '\x0000000000000000' FROM 21)),
	('tightening 1.5',                overlay(b PLACING '\x000000000000f83f' FROM 21)),
	('tightening NaN',                overlay(b PLACING '\x000000000000f87f' FROM 21)),
	('initial capacity 0',            overlay(b PLACING '\x0000000000000000' FROM 29)),
	('segment capacity 0',            overlay(b PLACING '\x0000000000000000' FROM 37)),
	('count above capacity',          set_byte(b, 44, 11)),
	('count huge',                    overlay(b PLACING '\xffffffffffffffff' FROM 45)),
	('m = 0',                         overlay(b PLACING '\x0000000000000000' FROM 53)),
	('m = 2^40',                      overlay(b PLACING '\x0000000000000100' FROM 53)),
	('m larger than its words',       set_byte(b, 52, 200)),
	('segment error NaN',             overlay(b PLACING '\x000000000000f87f' FROM 61)),
	('segment error 0',               overlay(b PLACING '\x0000000000000000' FROM 61)),
	('segment error 0.5',             overlay(b PLACING '\x000000000000e03f' FROM 61)),
	('k = 0',                         set_byte(b, 68, 0)),
	('k = 65',                        set_byte(b, 68, 65)),
	('reserved field set',            set_byte(b, 72, 1)),
	('reserved 16-bit field set',     set_byte(b, 70, 1)),
	('bit set past m',                set_byte(b, 99, 128)),
	('hll rho 0',                     set_byte(b, 100, 0)),
	('hll rho above 65 - p',          set_byte(b, 100, 57)),
	('hll entries unsorted',          overlay(b PLACING substr(b, 105, 4) || substr(b, 101, 4) FROM 101)),
	('hll index out of range',        set_byte(b, 103, 1)),
	('random bytes',                  decode(repeat('deadbeef', 40), 'hex'))
) AS v(label, b);

-- the unmodified value is accepted by all three paths
SELECT pg_temp.state(format('SELECT %L::scalablebloom',
		   'sbf1:' || translate(encode(b, 'base64'), E'\n', ''))) AS text_input,
	   pg_temp.state(format('SELECT %L::bytea::scalablebloom', b)) AS bytea_cast
FROM base;

-- binary receive: write each case as a bytea with COPY (FORMAT binary) -- the
-- binary form of bytea is its raw bytes, the same as scalablebloom's -- and
-- read it back as scalablebloom
CREATE TEMP TABLE raw_out (b bytea);
CREATE TEMP TABLE raw_in (f scalablebloom);
-- (the file is removed after each use; result: the SQLSTATE or the errdetail)
CREATE FUNCTION pg_temp.recv(b bytea, want_detail bool) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	path text := '/tmp/sbf_malformed_' || pg_backend_pid() || '.bin';
	copy_in text := format('COPY raw_in FROM %L WITH (FORMAT binary)', path);
	r text;
BEGIN
	TRUNCATE raw_out;
	INSERT INTO raw_out VALUES (b);
	EXECUTE format('COPY raw_out TO %L WITH (FORMAT binary)', path);
	r := CASE WHEN want_detail THEN pg_temp.detail(copy_in) ELSE pg_temp.state(copy_in) END;
	EXECUTE format('COPY (SELECT 1 WHERE false) TO PROGRAM %L', 'rm -f ' || path);
	RETURN r;
END $$;
CREATE FUNCTION pg_temp.recv_state(b bytea) RETURNS text LANGUAGE sql AS $$
	SELECT pg_temp.recv(b, false)
$$;

SELECT pg_temp.recv_state(b) AS valid_value_recv FROM base;

-- every malformed case through every path
SELECT id, label,
	   pg_temp.state(format('SELECT %L::scalablebloom',
		   'sbf1:' || translate(encode(b, 'base64'), E'\n', ''))) AS text_input,
	   pg_temp.state(format('SELECT %L::bytea::scalablebloom', b)) AS bytea_cast,
	   pg_temp.recv_state(b) AS binary_recv
FROM cases ORDER BY id;

-- each is refused for its own defect: its errdetail, the same through the
-- text form, the bytea cast and binary receive (one validator)
SELECT id, d.cast_detail AS detail,
	   d.text_detail = d.cast_detail AND d.recv_detail = d.cast_detail AS same_detail_every_path
FROM cases, LATERAL (SELECT
	pg_temp.detail(format('SELECT %L::scalablebloom',
		'sbf1:' || translate(encode(b, 'base64'), E'\n', ''))) AS text_detail,
	pg_temp.detail(format('SELECT %L::bytea::scalablebloom', b)) AS cast_detail,
	pg_temp.recv(b, true) AS recv_detail) d
ORDER BY id;

-- malformed text forms
SELECT t AS input, pg_temp.state(format('SELECT %L::scalablebloom', t)) AS sqlstate
FROM unnest(ARRAY['', 'sbf1:', 'sbf1', 'sbf2:AQAB', 'SBF1:AQAB', 'sbf1:AQAB!',
				  'sbf1:AQA', 'sbf1:AQAB=', 'sbf1:A===', ' sbf1:AQAB',
				  'sbf1:AQAB ', 'sku:42']) AS t;

-- parameters: NaN, Infinity and absurd capacities are refused before anything
-- is allocated
SELECT a AS args, pg_temp.state('SELECT sbf_empty(' || a || ')') AS sqlstate
FROM unnest(ARRAY['1000, ''NaN''', '1000, ''Infinity''', '1000, 0.01, 2, ''NaN''',
				  '0', '-1', '1000000000000000', '9223372036854775807',
				  '300000000, 0.0000001', '1000, 0.01, 0', '1000, 0.01, 17',
				  '1000, 0.01, 2, 0', '1000, 0.01, 2, 1.5']) AS a;

-- the server is still answering
SELECT # sbf_add(sbf_empty(), 'still here') AS alive;

