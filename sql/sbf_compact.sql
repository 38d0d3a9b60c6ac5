-- sbf_compact: the compact form (docs/format5.md, section 3): version 5
-- with flag bit 6, one complete set as its elements' sorted fingerprints,
-- no HyperLogLog.  sbf_agg writes it for small sets (sizes within issue
-- 36's bound); two values come in as text: test/kit/format5_values.tsv's
-- cases 7 (the 30 texts 'c5v:1' .. 'c5v:30'; first as written before the
-- ranks list, then with it) and 8 (the bigint 5152), written by
-- test/kit/kit_v5.c with the form's writer.  They read, answer
-- and are described; an add of a member keeps the bytes, adds of new
-- elements rewrite the compact form while its segmented form would be no
-- larger than release 1.3's value of the same elements, any other write
-- works on the segmented form of version 5 that answers the same;
-- malformed ones are refused.

-- sbf_agg at 1%: the compact form up to 4,096 elements, within 8 bytes an
-- element plus 24 up to 8 elements and 1.1 times the optimal Bloom filter's
-- bytes plus 24 above, every member found, # exact; one segment above
SELECT n, sbf_info(f)->>'form' AS form,
	   pg_column_size(f) <= CASE WHEN n <= 8 THEN 8 * n + 24
							ELSE 1.1 * n * ln(100) / ln(2) ^ 2 / 8 + 24 END AS within_bound,
	   sbf_matches(f, ARRAY(SELECT 'sz:' || i FROM generate_series(1, n) i)) = n AS members,
	   # f = n AS count_exact
FROM (SELECT n, (SELECT sbf_agg('sz:' || i) FROM generate_series(1, n) i) AS f
	  FROM unnest(ARRAY[5, 9, 10, 11, 30, 100, 300, 1000, 3000, 4096, 5000]) n) s
ORDER BY n;

-- the exact form of 1.0-1.3 in the compact layout: up to 8 elements keep 63
-- of their hashes' 64 bits (docs/format5.md, section 3, "Exact"), so no
-- non-member is found, # is exact, and so is a union of two such values;
-- 9 to 11 elements, which 1.3 wrote in the exact form, take the bits that
-- leave room for the count to which its adds kept that form (14 here), 13
-- and up the bits of their error rate
SELECT n, (sbf_info(f)->>'fingerprint_bits')::int AS bits,
	   pg_column_size(f) AS bytes, 8 * n + 24 AS bound,
	   sbf_matches(f, ARRAY(SELECT 'ex:' || i FROM generate_series(1, n) i)) AS members,
	   sbf_matches(f, ARRAY(SELECT 'nx:' || i FROM generate_series(1, 100000) i)) AS others
FROM (SELECT n, (SELECT sbf_agg('ex:' || i) FROM generate_series(1, n) i) AS f
	  FROM unnest(ARRAY[1, 2, 5, 8, 9, 13]) n) s
ORDER BY n;
SELECT sbf_info(u)->>'form' AS form, (sbf_info(u)->>'fingerprint_bits')::int AS bits,
	   # u AS count, sbf_info(u)->>'count_source' AS count_source
FROM (SELECT (SELECT sbf_agg('ex:' || i) FROM generate_series(1, 5) i) ||
			 (SELECT sbf_agg('ex:' || i) FROM generate_series(3, 8) i) AS u) s;

-- adds to one element keep its capacity 1 and the 63 bits up to 8
-- elements, then take the bits with the room 1.3's exact form had (14): at
-- every count within 8 bytes an element plus 24, every member found
CREATE FUNCTION pg_temp.grown_from_one(n int) RETURNS scalablebloom
LANGUAGE plpgsql AS $$
DECLARE
	f scalablebloom := sbf_agg('ex:1') FROM (VALUES (1)) v;
BEGIN
	FOR i IN 2 .. n LOOP
		f := f || ('ex:' || i);
	END LOOP;
	RETURN f;
END $$;
SELECT n, (sbf_info(f)->>'fingerprint_bits')::int AS bits,
	   (sbf_info(f)->>'capacity')::int AS capacity,
	   pg_column_size(f) <= 8 * n + 24 AS within_8n_24,
	   sbf_matches(f, ARRAY(SELECT 'ex:' || i FROM generate_series(1, n) i)) = n AS all_found
FROM (SELECT n, pg_temp.grown_from_one(n) AS f FROM generate_series(1, 12) n) s
ORDER BY n;

SELECT 'sbf1:BUAMB3sUrkfheoQ/Hh42NE/AtGS7FZyTLj4+sk+uYb0L8Xah3sF92QT/Wd0wp7m/Ag=='::scalablebloom AS c \gset
SELECT 'sbf1:BUAKCXsUrkfheoQ/AQECQAA='::scalablebloom AS one \gset

-- what they are: 53 and 21 bytes, # exact, the bound capacity / 2^b
SELECT sbf_info(:'c') AS info;
SELECT pg_column_size(:'c'::scalablebloom) AS bytes_30,
	   pg_column_size(:'one'::scalablebloom) AS bytes_1,
	   # :'c'::scalablebloom AS count_30, # :'one'::scalablebloom AS count_1,
	   (sbf_info(:'c')->>'fpr_bound')::float8 = 30.0 / 2 ^ 12 AS bound_is_n_over_2_to_the_b;

-- every member found, one by one and in a batch; absent ones within the bound
SELECT bool_and(:'c'::scalablebloom @> ('c5v:' || i)) AS members_found,
	   sbf_matches(:'c', ARRAY(SELECT 'c5v:' || i FROM generate_series(1, 30) i)) AS matched
FROM generate_series(1, 30) i;
SELECT :'one'::scalablebloom @> 5152::bigint AS bigint_found,
	   :'one'::scalablebloom @> 5153::bigint AS other_bigint;
SELECT count(*) FILTER (WHERE :'c'::scalablebloom @> ('absent:' || i)) <= 250 AS absent_within_bound
FROM generate_series(1, 20000) i;

-- stored in a table and read back, through bytea and text, byte for byte
CREATE TEMP TABLE compact_t (id int, f scalablebloom);
INSERT INTO compact_t VALUES (1, :'c'), (2, :'one');
SELECT id, f::text = CASE id WHEN 1 THEN :'c' ELSE :'one' END AS same_text,
	   f::bytea::scalablebloom = f AS bytea_round_trip,
	   f @> CASE id WHEN 1 THEN 'c5v:7' ELSE NULL END AS member
FROM compact_t ORDER BY id;

-- an add of a member keeps the bytes; new elements past the room its bits
-- leave make the segmented form of version 5 (the compact segment first),
-- every element found
SELECT sbf_add(:'c'::scalablebloom, 'c5v:7')::text = :'c' AS member_add_keeps_bytes;
SELECT sbf_info(f)->>'version' AS version, sbf_info(f)->>'form' AS form,
	   (SELECT string_agg(s->>'kind', ',') FROM jsonb_array_elements(sbf_info(f)->'segments') s) AS kinds,
	   sbf_matches(f, ARRAY(SELECT 'c5v:' || i FROM generate_series(1, 30) i)) AS old_members,
	   sbf_matches(f, ARRAY(SELECT 'new:' || i FROM generate_series(1, 500) i)) AS new_members,
	   # f AS count
FROM (SELECT sbf_add(:'c'::scalablebloom, ARRAY(SELECT 'new:' || i FROM generate_series(1, 500) i)) AS f) s;

-- adds of new elements rewrite the compact form in place while its
-- segmented form would be no larger than 1.3's value of the same elements
-- (docs/format5.md, section 3, "Adds"): sbf_agg of 100 elements (14 bits)
-- takes the next ones one at a time, its capacity 100 kept, while its
-- bound k / 2^14 stays within that of the segment 1.3 wrote for the 100
-- (0.01^1.04: k <= 136); the next add makes the segmented form, whose
-- second segment ends where 1.3's second one did, at 300, plus a margin
-- for the elements 1.3 skipped as false positives (15 here); every
-- element found, # exact
WITH RECURSIVE grow(k, f) AS (
	SELECT 100, (SELECT sbf_agg('p' || i) FROM generate_series(1, 100) i)
	UNION ALL
	SELECT k + 1, f || ('p' || (k + 1)) FROM grow WHERE k < 140)
SELECT count(*) FILTER (WHERE sbf_info(f)->>'form' = 'compact') AS compact,
	   bool_and((sbf_info(f)->>'capacity')::int = 100)
		   FILTER (WHERE sbf_info(f)->>'form' = 'compact') AS capacity_kept,
	   max(k) FILTER (WHERE sbf_info(f)->>'form' = 'compact') AS last_compact,
	   max((sbf_info(f)->>'fingerprint_bits')::int) AS bits,
	   min(k) FILTER (WHERE sbf_info(f)->>'form' = 'segments') AS first_segmented,
	   max((sbf_info(f)->'segments'->1->>'capacity')::int) AS second_capacity,
	   bool_and(sbf_matches(f, ARRAY(SELECT 'p' || i FROM generate_series(1, k) i)) = k) AS all_found,
	   bool_and(# f = k) AS count_exact
FROM grow;

-- unions: of copies, the value itself; with a version-4 value, version 5
-- with both sets; in an aggregate, the same answers
SELECT (:'c'::scalablebloom || :'c'::scalablebloom)::text = :'c' AS union_of_copies;
SELECT sbf_info(u)->>'version' AS version,
	   sbf_matches(u, ARRAY(SELECT 'c5v:' || i FROM generate_series(1, 30) i)) AS compact_members,
	   sbf_matches(u, ARRAY(SELECT 'v4:' || i FROM generate_series(1, 500) i)) AS v4_members
FROM (SELECT sbf_union(:'c'::scalablebloom, (SELECT sbf_agg('v4:' || i) FROM generate_series(1, 500) i), 0.05) AS u) s;
SELECT sbf_info(u)->>'version' AS version,
	   sbf_matches(u, ARRAY(SELECT 'c5v:' || i FROM generate_series(1, 30) i)) AS compact_members,
	   u @> 5152::bigint AS bigint_member
FROM (SELECT sbf_union_agg(f, 0.05) AS u FROM compact_t) s;

-- a merging union of compact values only (||, sbf_union) is one compact
-- value where its bound fits: the fingerprints cut to the smaller b, each
-- once, capacity their count; so two overlapping days of one user, united
-- within 2%: one value of the 1,500 elements, every member found, # about
-- 1,500 (the elements behind the fingerprints kept), the bound the
-- fingerprints / 2^b, its HyperLogLog the elements' own (the
-- same estimate as sbf_agg's over all of them, after any union); where the
-- cut bound would pass the sum of the inputs' (20 elements and 3,000: 12
-- bits against 19), their segmented forms are united
SELECT sbf_info(u)->>'form' AS form, pg_column_size(u) AS bytes,
	   sbf_matches(u, ARRAY(SELECT 'd:' || i FROM generate_series(1, 1500) i)) AS members,
	   # u BETWEEN 1485 AND 1515 AS count_close,
	   (sbf_info(u)->>'fpr_bound')::float8 = (sbf_info(u)->>'fingerprints')::float8 /
		   2.0 ^ (sbf_info(u)->>'fingerprint_bits')::int AS bound_is_count,
	   sbf_info(sbf_union(u, sbf_empty(), 0.02))->'hll'->'estimate' =
		   sbf_info(sbf_union(a, sbf_empty()))->'hll'->'estimate' AS same_hyperloglog
FROM (SELECT sbf_union((SELECT sbf_agg('d:' || i) FROM generate_series(1, 1000) i),
					   (SELECT sbf_agg('d:' || i) FROM generate_series(501, 1500) i), 0.02) AS u,
			 (SELECT sbf_agg('d:' || i) FROM generate_series(1, 1500) i) AS a) s;
SELECT sbf_info(u)->>'form' AS form, jsonb_array_length(sbf_info(u)->'segments') AS segments
FROM (SELECT sbf_union((SELECT sbf_agg('s:' || i) FROM generate_series(1, 20) i),
					   (SELECT sbf_agg('s:' || i) FROM generate_series(101, 3100) i), 0.1) AS u) s;

-- sbf_union_agg of compact values only: the compact value their merging
-- union gives (the same bytes as || of them, in any row order); one row
-- comes back as it was; with a value of another kind, segments
CREATE TEMP TABLE days AS
SELECT d, sbf_agg('d:' || i) AS f
FROM generate_series(1, 3) d, generate_series((d - 1) * 400 + 1, (d - 1) * 400 + 700) i
GROUP BY d;
SELECT sbf_info(u)->>'form' AS form, pg_column_size(u) AS bytes,
	   u::bytea = (SELECT sbf_union(sbf_union(a.f, b.f, 0.02), c.f, 0.02)::bytea
				   FROM days a, days b, days c WHERE a.d = 1 AND b.d = 2 AND c.d = 3) AS as_pairwise,
	   u::bytea = (SELECT sbf_union_agg(f, 0.02 ORDER BY d DESC)::bytea FROM days) AS any_order,
	   sbf_matches(u, ARRAY(SELECT 'd:' || i FROM generate_series(1, 1500) i)) AS members,
	   # u BETWEEN 1485 AND 1515 AS count_close,
	   (SELECT sum(pg_column_size(f)) FROM days) AS input_bytes
FROM (SELECT sbf_union_agg(f, 0.02 ORDER BY d) AS u FROM days) s;
SELECT sbf_union_agg(f)::bytea = (SELECT f::bytea FROM days WHERE d = 2) AS one_row_back
FROM days WHERE d = 2;
SELECT sbf_info(u)->>'form' AS form, jsonb_array_length(sbf_info(u)->'segments') AS segments
FROM (SELECT sbf_union_agg(f, 0.05) AS u
	  FROM (SELECT f FROM days WHERE d = 1
			UNION ALL SELECT sbf_agg('big:' || i) FROM generate_series(1, 20000) i) t) s;

-- a delta continues the chain of its segmented form: empty, CHAIN set
SELECT # d AS count, sbf_info(d)->>'continues_chain' AS continues_chain
FROM (SELECT sbf_delta(:'c'::scalablebloom) AS d) s;

-- refused: a flag the form does not have, 9 fingerprint bits, one byte short
SELECT * FROM sbf_regress.try(format('SELECT %L::bytea::scalablebloom',
	set_byte(:'c'::scalablebloom::bytea, 1, 65)));
SELECT * FROM sbf_regress.try(format('SELECT %L::bytea::scalablebloom',
	set_byte(:'c'::scalablebloom::bytea, 2, 9)));
SELECT * FROM sbf_regress.try(format('SELECT %L::bytea::scalablebloom',
	substring(:'c'::scalablebloom::bytea FROM 1 FOR 48)));

-- the same 30 with its ranks list (flag bit 4, the kit's case 7 since the
-- list): the registers whose rank the fingerprints cap, so that a union
-- counts as one of the value sbf_agg builds; without the list, capped
SELECT 'sbf1:BVAMB3sUrkfheoQ/Hh4DnAqnDHETNjRPwLRkuxWcky4+PrJPrmG9C/F2od7BfdkE/1ndMKe5vwI='::scalablebloom AS r \gset
SELECT sbf_agg('c5v:' || i) AS a FROM generate_series(1, 30) i \gset
SELECT sbf_agg('y:' || i) AS y FROM generate_series(1, 20000) i \gset
SELECT pg_column_size(:'r'::scalablebloom) AS bytes, # :'r'::scalablebloom AS count,
	   bool_and(:'r'::scalablebloom @> ('c5v:' || i)) AS members_found
FROM generate_series(1, 30) i;
SELECT # sbf_union(:'r', :'y', 0.05) = # sbf_union(:'a', :'y', 0.05) AS counts_as_built,
	   # sbf_union(:'c', :'y', 0.05) < # sbf_union(:'a', :'y', 0.05) AS capped_counts_less,
	   # sbf_union(:'r', :'y', 0.05) = (SELECT # sbf_union_agg(f, 0.05)
	   FROM (VALUES (:'r'::scalablebloom), (:'y')) t(f)) AS union_agg_the_same;
-- refused: a rank at the cap b - 8, the list's count 0, the flag cleared
SELECT * FROM sbf_regress.try(format('SELECT %L::bytea::scalablebloom',
	set_byte(:'r'::scalablebloom::bytea, 16, 8)));
SELECT * FROM sbf_regress.try(format('SELECT %L::bytea::scalablebloom',
	set_byte(:'r'::scalablebloom::bytea, 14, 0)));
SELECT * FROM sbf_regress.try(format('SELECT %L::bytea::scalablebloom',
	set_byte(:'r'::scalablebloom::bytea, 1, 64)));
