-- sbf_format5: format version 5 (docs/format5.md, section 5): version 4's
-- plain layout whose directory also admits the compact kind (sorted
-- fingerprints).  No writer of this release makes a compact segment from
-- elements, so the value comes in as text: test/kit/format5_values.tsv's
-- case 1, a compact segment of the 30 texts 'c5a:1' .. 'c5a:30' (written by
-- test/kit/kit_v5.c).  It reads, answers and is described; unions and adds
-- keep version 5; the bytes labelled 4, and a version-4 value labelled 5,
-- are refused.

SELECT 'sbf1:BQABCQIAAQBwAAAAexSuR+F6hD/NzMzMzMzsP+gDAAAAAAAAHgAAAAAAAAAeAAAAAAAAAAAAAAAAAE4/HgAAAAAAAAAFDwAAAAAAAEG1VU0xTXoVECw6LwYR8tuD3n9yLsL2/EzPkgu2LWpth/MfUVomOYuPfgqV9A0AAAsQAAABEQAAAhgAAAEdAAAEIgAAAikAAAIuAAACPQAAAkcAAAF/AAABiwAAA5UAAASZAAAB1gAAAfMAAAP8AAAGLAEAATkBAAF6AQABfQEAAZwBAAKlAQAEtgEAAdMBAAHbAQAB4gEAAegBAAHzAQA='::scalablebloom AS v5 \gset

-- what it is
SELECT sbf_info(:'v5')->>'version' AS version,
	   sbf_info(:'v5')->>'form' AS form,
	   sbf_info(:'v5')->'segments'->0 AS segment,
	   # :'v5'::scalablebloom AS count,
	   sbf_info(:'v5')->>'count_source' AS count_source,
	   (sbf_info(:'v5')->>'fpr_bound')::float8 = 30.0 / 2 ^ 15 AS bound_is_n_over_2_to_the_b;

-- every member found (one by one, in a batch); absent texts at most as the bound allows
SELECT bool_and(:'v5'::scalablebloom @> ('c5a:' || i)) AS members_found,
	   sbf_matches(:'v5', ARRAY(SELECT 'c5a:' || i FROM generate_series(1, 30) i)) AS matched
FROM generate_series(1, 30) i;
SELECT count(*) FILTER (WHERE :'v5'::scalablebloom @> ('absent:' || i)) <= 20 AS absent_within_bound
FROM generate_series(1, 20000) i;

-- exact round trips through bytea and text
SELECT :'v5'::scalablebloom::bytea::scalablebloom::text = :'v5' AS bytea_round_trip,
	   get_byte(:'v5'::scalablebloom::bytea, 0) AS byte_0;

-- a union with a version-4 value is version 5, both sets found
SELECT sbf_info(u)->>'version' AS version,
	   jsonb_array_length(sbf_info(u)->'segments') AS segments,
	   sbf_matches(u, ARRAY(SELECT 'c5a:' || i FROM generate_series(1, 30) i)) AS v5_members,
	   sbf_matches(u, ARRAY(SELECT 'v4:' || i FROM generate_series(1, 500) i)) AS v4_members
FROM (SELECT :'v5'::scalablebloom || (SELECT sbf_agg('v4:' || i) FROM generate_series(1, 500) i) AS u) s;

-- adds keep version 5 (the compact segment first, growth after it)
SELECT sbf_info(f)->>'version' AS version,
	   (SELECT string_agg(s->>'kind', ',') FROM jsonb_array_elements(sbf_info(f)->'segments') s) AS kinds,
	   sbf_matches(f, ARRAY(SELECT 'c5a:' || i FROM generate_series(1, 30) i)) AS old_members,
	   sbf_matches(f, ARRAY(SELECT 'new:' || i FROM generate_series(1, 2000) i)) AS new_members
FROM (SELECT sbf_add(:'v5'::scalablebloom, ARRAY(SELECT 'new:' || i FROM generate_series(1, 2000) i)) AS f) s;

-- the same bytes labelled 4: version 4's directory admits no compact segment
SELECT * FROM sbf_regress.try(format('SELECT %L::bytea::scalablebloom',
	set_byte(:'v5'::scalablebloom::bytea, 0, 4)));

-- a version-4 value labelled 5: version 5 holds a kind version 4 does not admit
-- (5,000 elements: sbf_agg writes one fused segment, above the compact form's
-- bound of 4,096)
SELECT * FROM sbf_regress.try(format('SELECT %L::bytea::scalablebloom',
	set_byte((SELECT sbf_agg('v4:' || i) FROM generate_series(1, 5000) i)::bytea, 0, 5)));
