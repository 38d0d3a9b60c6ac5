-- sbf_errors: every parameter, type and size error with its SQLSTATE

\x on

-- capacity 0
SELECT * FROM sbf_regress.try($$SELECT sbf_empty(0)$$);

-- negative capacity
SELECT * FROM sbf_regress.try($$SELECT sbf_empty(-5)$$);

-- capacity 1 is the smallest allowed
SELECT * FROM sbf_regress.try($$SELECT sbf_empty(1)$$);

-- error_rate 0
SELECT * FROM sbf_regress.try($$SELECT sbf_empty(1000, 0)$$);

-- error_rate 0.5 (the bound is exclusive)
SELECT * FROM sbf_regress.try($$SELECT sbf_empty(1000, 0.5)$$);

-- negative error_rate
SELECT * FROM sbf_regress.try($$SELECT sbf_empty(1000, -0.01)$$);

-- error_rate NaN
SELECT * FROM sbf_regress.try($$SELECT sbf_empty(1000, 'NaN')$$);

-- error_rate infinity
SELECT * FROM sbf_regress.try($$SELECT sbf_empty(1000, 'Infinity')$$);

-- growth 0
SELECT * FROM sbf_regress.try($$SELECT sbf_empty(1000, 0.01, 0)$$);

-- growth 17
SELECT * FROM sbf_regress.try($$SELECT sbf_empty(1000, 0.01, 17)$$);

-- growth 65537 (must not wrap to 1)
SELECT * FROM sbf_regress.try($$SELECT sbf_empty(1000, 0.01, 65537)$$);

-- growth 1 and 16 are allowed
SELECT * FROM sbf_regress.try($$SELECT sbf_empty(1000, 0.01, 1), sbf_empty(1000, 0.01, 16)$$);

-- tightening 0
SELECT * FROM sbf_regress.try($$SELECT sbf_empty(1000, 0.01, 2, 0)$$);

-- tightening above 1
SELECT * FROM sbf_regress.try($$SELECT sbf_empty(1000, 0.01, 2, 1.5)$$);

-- tightening NaN
SELECT * FROM sbf_regress.try($$SELECT sbf_empty(1000, 0.01, 2, 'NaN')$$);

-- tightening 1 is allowed
SELECT * FROM sbf_regress.try($$SELECT sbf_empty(1000, 0.01, 2, 1)$$);

-- absurd capacity: rejected before anything is allocated
SELECT * FROM sbf_regress.try($$SELECT sbf_empty(9223372036854775807)$$);

-- capacity whose first segment just exceeds 1 GB
SELECT * FROM sbf_regress.try($$SELECT sbf_empty(1000000000, 0.01)$$);

-- union of filters with a different error_rate
SELECT * FROM sbf_regress.try($$SELECT sbf_union(sbf_empty(10, 0.01), sbf_empty(10, 0.02))$$);

-- union of filters with a different growth
SELECT * FROM sbf_regress.try($$SELECT sbf_empty(10, 0.01, 2) || sbf_empty(10, 0.01, 4)$$);

-- union of filters with a different tightening
SELECT * FROM sbf_regress.try($$SELECT sbf_union(sbf_empty(10, 0.01, 2, 0.9), sbf_empty(10, 0.01, 2, 0.5))$$);

-- union of filters differing in every parameter
SELECT * FROM sbf_regress.try($$SELECT sbf_union(sbf_empty(10, 0.01, 2, 0.9), sbf_empty(10, 0.001, 3, 1))$$);

-- union of filters differing only in capacity is fine
SELECT * FROM sbf_regress.try($$SELECT sbf_union(sbf_empty(10), sbf_empty(20))$$);

-- adding a value of an unsupported type: numeric
SELECT * FROM sbf_regress.try($$SELECT sbf_empty() || 1.5$$);

-- adding a value of an unsupported type: numeric[]
SELECT * FROM sbf_regress.try($$SELECT sbf_empty() || ARRAY[1.5]$$);

-- adding a value of an unsupported type: boolean
SELECT * FROM sbf_regress.try($$SELECT sbf_empty() || true$$);

-- adding an unsupported type is an error even when the value is NULL
SELECT * FROM sbf_regress.try($$SELECT sbf_empty() || NULL::numeric$$);

-- looking up an unsupported type: no such operator (the server's own error:
-- its detail and hint are worded differently from PostgreSQL 19 on, so only
-- the code and message are shown)
SELECT code, message FROM sbf_regress.try($$SELECT sbf_empty() @> 1.5$$);

-- no sbf_add for numeric[] (the server's error likewise)
SELECT code, message FROM sbf_regress.try($$SELECT sbf_add(sbf_empty(), ARRAY[1.5])$$);

-- too many segments: capacity 1 and growth 1 make one segment per element,
-- and a filter has at most 4096 segments (the tiny error_rate keeps false
-- positives from absorbing elements)
SELECT * FROM sbf_regress.try($$SELECT sbf_add(sbf_empty(1, 1e-300, 1, 1),
	ARRAY(SELECT 's' || i FROM generate_series(1, 5000) i))$$);

-- a failed union leaves the stored filter as it was: two filters of over 2048
-- full segments of different elements are too many together (a filter united
-- with itself is its canonical form instead, which another union keeps)
\x off
CREATE TEMP TABLE t AS SELECT sbf_add(sbf_empty(1, 1e-300, 1, 1),
	ARRAY(SELECT 's' || i FROM generate_series(1, 2100) i)) AS f;
CREATE TEMP TABLE u AS SELECT sbf_add(sbf_empty(1, 1e-300, 1, 1),
	ARRAY(SELECT 'u' || i FROM generate_series(1, 2100) i)) AS f;
SELECT jsonb_array_length(sbf_info(f)->'segments') > 2048 AS over_half FROM t;
SELECT (f || f)::bytea = ((f || f) || f)::bytea AS self_union_stable,
	   jsonb_array_length(sbf_info(f || f)->'segments') =
		   jsonb_array_length(sbf_info(f)->'segments') AS same_segment_count FROM t;
CREATE TEMP TABLE t_before AS SELECT f::bytea AS b FROM t;
\x on
SELECT * FROM sbf_regress.try($$UPDATE t SET f = t.f || u.f FROM u$$);
\x off
SELECT t.f::bytea = t_before.b AS unchanged FROM t, t_before;
