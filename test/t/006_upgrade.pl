# Copyright (c) sbf contributors

# ALTER EXTENSION sbf UPDATE from 1.0 to 1.1, then to 1.2, then to 1.3, then to 1.4,
# with data in place.  A database
# is created at extension version 1.0 and filled; the shared library is the
# new one throughout, so everything done before the update also proves that
# the C entry points the 1.0 script binds keep working with the new library.
#
#  - Format-1 values written by the sbf 1.0 library (data/format1_values.tsv,
#    made by data/format1_values.sql) answer membership and sbf_matches
#    exactly as 1.0 did, and print the same text, before and after the update.
#  - Filters built through the 1.0 catalog (sbf_agg, ||, sbf_empty with
#    non-default parameters, a union) answer exactly the same after the
#    update (contains for present and absent probes, matches, #, sbf_info),
#    are byte for byte unchanged, and still grow with ||.
#  - Views and materialized views on sbf_agg and sbf_union_agg, and a SQL
#    function whose body uses the operators, survive the update (the
#    aggregates keep their oids) and REFRESH, also CONCURRENTLY.
#  - Aggregates run as forced parallel plans before and after the update and
#    give the serial result.
#  - An updated database and a fresh CREATE EXTENSION sbf have the same
#    catalog for the extension's objects (members, functions, aggregates and
#    their state types, operators, casts, comments), and so does a
#    pg_dump / pg_restore of the updated database.
#  - Every 1.1 object the contract (PRODUCT.md, "Release 1.1") names exists.
#  - Values written at 1.1 (exact and segmented forms) are stored in a table;
#    the update to 1.2 keeps them and the 1.0 values byte for byte and
#    answering the same; windowed filters (1.2) work in the updated
#    database: no false negatives from live adds, the serial and the forced
#    parallel sbf_window_agg, and the 1.2 objects exist.
#  - The update to 1.3 keeps every stored value (formats 1 to 3, hash sets)
#    byte for byte; = and <> exist, = in a hash operator class, and on those
#    old values = agrees with equal bytes in joins, DISTINCT, GROUP BY and
#    UNION.
#  - Format-2 and format-3 values and hash sets written by the sbf 1.2
#    library (data/format23_values.tsv, made by data/format23_values.sql;
#    helpers in test/perl/SbfFormat23.pm), loaded after the update to 1.3,
#    print the same text and answer #, sbf_info (the keys 1.2 showed),
#    contains and sbf_matches exactly as 1.2 did.  1.3 then writes over them
#    (adds by element type, || with a new value of the same parameters,
#    sbf_delta, windowed adds with at and sbf_expire, hash set unions built
#    into filters) and REFRESHes the materialized views: every result is
#    version 4 (none stays exact), shows each segment's kind (blocked ones
#    appended by adds, unions and sbf_delta, fused ones in the walk), misses no
#    member old or new, and its false positives over 20,000 absent probes
#    stay within sbf_info's fpr_bound (a binomial margin); a dump and restore
#    keeps all of them byte for byte.

use strict;
use warnings;

use FindBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use lib "$FindBin::RealBin/../perl";
use SbfFormat23;

my $tmp = PostgreSQL::Test::Utils::tempdir;
my $fixture = "$FindBin::RealBin/data/format1_values.tsv";
my $fixture23 = "$FindBin::RealBin/data/format23_values.tsv";

my $node = PostgreSQL::Test::Cluster->new('upgrade');
$node->init;
$node->append_conf('postgresql.conf', 'log_statement = none');
$node->start;

$node->safe_psql('postgres', 'CREATE DATABASE upd');
$node->safe_psql('postgres', 'CREATE DATABASE fresh');

# ---------------------------------------------------------------------------
# A database at 1.0
# ---------------------------------------------------------------------------

$node->safe_psql('upd', q{CREATE EXTENSION sbf VERSION '1.0'});
is( $node->safe_psql(
		'upd', q{SELECT extversion FROM pg_extension WHERE extname = 'sbf'}),
	'1.0',
	'CREATE EXTENSION sbf VERSION 1.0');

# Helpers that depend on the extension: probe() has a BEGIN ATOMIC body, so
# PostgreSQL records its dependency on the @> operators, which the update
# must keep.  absent(kind, g) is the g-th probe that is in no filter.
$node->safe_psql(
	'upd', q{
	CREATE FUNCTION probe(f scalablebloom, kind text, e text) RETURNS boolean
		LANGUAGE sql IMMUTABLE
	BEGIN ATOMIC
		SELECT CASE kind WHEN 'bigint' THEN f @> e::bigint
						 WHEN 'bytea' THEN f @> convert_to(e, 'UTF8')
						 ELSE f @> e END;
	END;
	CREATE FUNCTION absent(kind text, g int) RETURNS text
		LANGUAGE sql IMMUTABLE
		RETURN CASE WHEN kind = 'bigint' THEN (1000000000000 + g)::text
					ELSE 'absent:' || g END;
});

# Format-1 values written by sbf 1.0, with 1.0's answers.
$node->safe_psql(
	'upd', qq{
	CREATE TABLE legacy_src (id int PRIMARY KEY, what text, kind text,
		spec jsonb, text10 text, card10 bigint, info10 jsonb, fp10 int[],
		matches10 int);
	COPY legacy_src FROM '$fixture';
	CREATE TABLE legacy AS
		SELECT id, what, kind, text10::scalablebloom AS f FROM legacy_src;
	CREATE TABLE legacy_members AS
		SELECT s.id, s.kind,
			   CASE WHEN s.kind = 'bigint' THEN ((p ->> 0)::bigint + g)::text
					ELSE (p ->> 0) || g END AS e
		FROM legacy_src s
			 CROSS JOIN LATERAL jsonb_array_elements(s.spec) p
			 CROSS JOIN LATERAL generate_series(1, (p ->> 1)::int) g;
});
my $nlegacy = $node->safe_psql('upd', 'SELECT count(*) FROM legacy');
cmp_ok($nlegacy, '>=', 9, "$nlegacy format-1 values loaded from 1.0's text form");

# Filters built through the 1.0 catalog, and their elements.
$node->safe_psql(
	'upd', q{
	CREATE TABLE stored_members (id int, kind text, e text);
	INSERT INTO stored_members
		SELECT 1, 'text', 'k:' || g FROM generate_series(1, 1500) g
		UNION ALL SELECT 2, 'bigint', (5000000 + g)::text FROM generate_series(1, 800) g
		UNION ALL SELECT 3, 'bytea', 'y:' || g FROM generate_series(1, 200) g
		UNION ALL SELECT 4, 'text', 'q:' || g FROM generate_series(1, 2000) g
		UNION ALL SELECT 5, 'bigint', g::text FROM generate_series(1, 300) g
		UNION ALL SELECT 6, 'text', 'm:' || g FROM generate_series(1, 700) g
		UNION ALL SELECT 6, 'text', 'n:' || g FROM generate_series(1, 900) g
		UNION ALL SELECT 7, 'text', 'x'
		UNION ALL SELECT 8, 'bytea', 'z:' || g FROM generate_series(1, 150) g
		UNION ALL SELECT 9, 'bigint', (7000000 + g)::text FROM generate_series(1, 2500) g;

	CREATE TABLE stored (id int PRIMARY KEY, what text, kind text, f scalablebloom);
	INSERT INTO stored
		SELECT 1, 'sbf_agg(text)', 'text', sbf_agg(e) FROM stored_members WHERE id = 1
		UNION ALL SELECT 2, 'sbf_agg(bigint, 0.001)', 'bigint', sbf_agg(e::bigint, 0.001)
			FROM stored_members WHERE id = 2
		UNION ALL SELECT 3, 'sbf_agg(bytea, 0.05)', 'bytea', sbf_agg(convert_to(e, 'UTF8'), 0.05)
			FROM stored_members WHERE id = 3
		UNION ALL SELECT 4, 'sbf_empty(100) || text[]', 'text', sbf_empty(100) || array_agg(e)
			FROM stored_members WHERE id = 4
		UNION ALL SELECT 6, 'sbf_union of two sbf_empty(10000) filters', 'text',
			sbf_union(sbf_add(sbf_empty(10000), ARRAY(SELECT e FROM stored_members
													  WHERE id = 6 AND e LIKE 'm:%')),
					  sbf_add(sbf_empty(10000), ARRAY(SELECT e FROM stored_members
													  WHERE id = 6 AND e LIKE 'n:%')))
		UNION ALL SELECT 7, 'NULL || text', 'text', NULL::scalablebloom || 'x'
		UNION ALL SELECT 9, 'sbf_add(sbf_empty(64, 0.001, 4, 0.5), bigint[])', 'bigint',
			sbf_add(sbf_empty(64, 0.001, 4, 0.5), array_agg(e::bigint))
			FROM stored_members WHERE id = 9
		UNION ALL SELECT 10, 'sbf_empty(5, 0.2, 16, 1.0), no elements', 'text',
			sbf_empty(5, 0.2, 16, 1.0)
		UNION ALL SELECT 11, 'NULL', 'text', NULL;

	-- one element at a time through every single-element add path
	DO $$
	DECLARE
		a scalablebloom := sbf_empty(20, 0.05, 3, 0.7);
		b scalablebloom := sbf_empty(10, 0.01, 1, 1.0);
		g int;
	BEGIN
		FOR g IN 1..300 LOOP
			CASE g % 3
				WHEN 0 THEN a := a || g::bigint;
				WHEN 1 THEN a := a || g;
				ELSE a := sbf_add(a, g::bigint);
			END CASE;
		END LOOP;
		FOR g IN 1..150 LOOP
			IF g % 2 = 0 THEN
				b := b || convert_to('z:' || g, 'UTF8');
			ELSE
				b := sbf_add(b, convert_to('z:' || g, 'UTF8'));
			END IF;
		END LOOP;
		INSERT INTO stored VALUES
			(5, 'sbf_empty(20, 0.05, 3, 0.7) grown by single adds', 'bigint', a),
			(8, 'sbf_empty(10, 0.01, 1, 1.0) grown by single bytea adds', 'bytea', b);
	END $$;
});

# Views and materialized views on the aggregates.  sbf_union_agg unites
# filters that share one segment geometry and stay within its capacity, a
# union that is within the error budget under every release.
$node->safe_psql(
	'upd', q{
	CREATE TABLE events (g int, e text);
	INSERT INTO events SELECT g % 5, 'ev:' || g FROM generate_series(1, 2000) g;
	CREATE VIEW v_agg AS SELECT g, sbf_agg(e) AS f FROM events GROUP BY g;
	CREATE VIEW v_union AS
		SELECT sbf_union_agg(f) AS f
		FROM (SELECT g, sbf_empty(10000) || array_agg(e ORDER BY e) AS f
			  FROM events GROUP BY g) s;
	CREATE MATERIALIZED VIEW mv_agg AS SELECT g, sbf_agg(e) AS f FROM events GROUP BY g;
	CREATE UNIQUE INDEX ON mv_agg (g);
	CREATE MATERIALIZED VIEW mv_union AS
		SELECT sbf_union_agg(f) AS f
		FROM (SELECT g, sbf_empty(10000) || array_agg(e ORDER BY e) AS f
			  FROM events GROUP BY g) s;
});

# A big table for forced parallel plans.
$node->safe_psql(
	'upd', q{
	CREATE TABLE big (g int, e text);
	INSERT INTO big SELECT g % 7, 'big:' || g FROM generate_series(1, 60000) g;
	-- one element each, one geometry: the union ORs them within capacity
	CREATE TABLE small_filters AS
		SELECT g, sbf_empty(5000) || ('sf:' || g) AS f FROM generate_series(1, 2000) g;
	ANALYZE big, small_filters;
});

# ---------------------------------------------------------------------------
# Queries run before and after the update
# ---------------------------------------------------------------------------

# Per filter: false negatives, the absent probes that answer true, the
# sbf_matches count over members and absent probes, # and sbf_info.
sub answers_sql
{
	my ($table, $members) = @_;
	return qq{
	SELECT string_agg(format('%s misses=%s fp=%s matches=%s card=%s info=%s',
							 t.id, a.misses, a.fp, a.matches, # t.f, sbf_info(t.f)),
					  E'\\n' ORDER BY t.id)
	FROM $table t
		 CROSS JOIN LATERAL (
			 SELECT (SELECT count(*) FROM $members m
					 WHERE m.id = t.id AND NOT coalesce(probe(t.f, t.kind, m.e), false)) AS misses,
					ARRAY(SELECT g FROM generate_series(1, 5000) g
						  WHERE probe(t.f, t.kind, absent(t.kind, g)) ORDER BY g) AS fp,
					CASE t.kind
						WHEN 'text' THEN sbf_matches(t.f,
							ARRAY(SELECT m.e FROM $members m WHERE m.id = t.id) ||
							ARRAY(SELECT absent('text', g) FROM generate_series(1, 5000) g))
						WHEN 'bigint' THEN sbf_matches(t.f,
							ARRAY(SELECT m.e::bigint FROM $members m WHERE m.id = t.id) ||
							ARRAY(SELECT absent('bigint', g)::bigint FROM generate_series(1, 5000) g))
					END AS matches) a};
}

# Per filter: size and md5 of the payload.
sub fingerprint_sql
{
	my ($table) = @_;
	return qq{
	SELECT string_agg(format('%s %s %s', id, pg_column_size(f), md5(f::bytea)),
					  E'\\n' ORDER BY id)
	FROM $table};
}

# The format-1 values against the answers 1.0 recorded: no false negative,
# the same absent probes true, the same matches, the same text form.
my $legacy_vs_10_sql = q{
	SELECT string_agg(format('%s misses=%s same_fp=%s same_matches=%s same_text=%s',
							 s.id, a.misses, a.fp = s.fp10,
							 a.matches IS NOT DISTINCT FROM s.matches10,
							 l.f::text = s.text10),
					  E'\n' ORDER BY s.id)
	FROM legacy_src s JOIN legacy l USING (id)
		 CROSS JOIN LATERAL (
			 SELECT (SELECT count(*) FROM legacy_members m
					 WHERE m.id = l.id AND NOT coalesce(probe(l.f, l.kind, m.e), false)) AS misses,
					ARRAY(SELECT g FROM generate_series(1, 5000) g
						  WHERE probe(l.f, l.kind, absent(l.kind, g)) ORDER BY g) AS fp,
					CASE l.kind
						WHEN 'text' THEN sbf_matches(l.f,
							ARRAY(SELECT m.e FROM legacy_members m WHERE m.id = l.id) ||
							ARRAY(SELECT absent('text', g) FROM generate_series(1, 5000) g))
						WHEN 'bigint' THEN sbf_matches(l.f,
							ARRAY(SELECT m.e::bigint FROM legacy_members m WHERE m.id = l.id) ||
							ARRAY(SELECT absent('bigint', g)::bigint FROM generate_series(1, 5000) g))
					END AS matches) a};
my $legacy_expected = join("\n",
	map { "$_ misses=0 same_fp=t same_matches=t same_text=t" }
	  split /\n/, $node->safe_psql('upd', 'SELECT id FROM legacy ORDER BY id'));

# # of each format-1 value against the true distinct count: within three
# standard errors of the 1.0 HyperLogLog (1.04 / sqrt(512)), whatever
# estimator answers.  Lists the ones outside.
my $legacy_card_sql = q{
	SELECT coalesce(string_agg(format('%s: # = %s, true %s, 1.0 said %s',
									  s.id, # l.f, n.n, s.card10), '; '), 'none')
	FROM legacy_src s JOIN legacy l USING (id)
		 CROSS JOIN LATERAL (SELECT count(DISTINCT e) AS n FROM legacy_members m
							 WHERE m.id = s.id) n
	WHERE abs((# l.f) - n.n) > greatest(2, 3 * 1.04 / sqrt(512) * n.n)};

# The views: false negatives per group and in the union.
my $views_sql = q{
	SELECT format('v_agg groups=%s misses=%s; v_union misses=%s; mv_agg groups=%s misses=%s; mv_union misses=%s',
		(SELECT count(*) FROM v_agg),
		(SELECT count(*) FROM events e JOIN v_agg v USING (g) WHERE NOT v.f @> e.e),
		(SELECT count(*) FROM events e, v_union v WHERE NOT coalesce(v.f @> e.e, false)),
		(SELECT count(*) FROM mv_agg),
		(SELECT count(*) FROM events e JOIN mv_agg v USING (g) WHERE NOT v.f @> e.e),
		(SELECT count(*) FROM events e, mv_union v WHERE NOT coalesce(v.f @> e.e, false)))};

# The aggregates forced into parallel plans: the plan has a Partial
# Aggregate, and the result equals the serial one.
my $parallel_settings = q{
	SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
	SET min_parallel_table_scan_size = 0; SET max_parallel_workers_per_gather = 2;
	SET parallel_leader_participation = off;};
my $parallel_agg_sql = q{SELECT md5(string_agg(md5(f::bytea), ',' ORDER BY g)) FROM (
	SELECT g, sbf_agg(e) AS f FROM big GROUP BY g) s};
my $parallel_union_sql = q{SELECT md5(sbf_union_agg(f)::bytea) FROM small_filters};

sub check_parallel
{
	my ($when) = @_;
	foreach my $q ([ 'sbf_agg', $parallel_agg_sql ],
		[ 'sbf_union_agg', $parallel_union_sql ])
	{
		my ($name, $sql) = @$q;
		my $plan = $node->safe_psql('upd',
			"$parallel_settings EXPLAIN (COSTS OFF) $sql");
		like($plan, qr/Partial \w*Aggregate/,
			"$when: $name runs as a parallel plan with partial aggregation");
		my $serial = $node->safe_psql('upd',
			"SET max_parallel_workers_per_gather = 0; $sql");
		is($node->safe_psql('upd', "$parallel_settings $sql"),
			$serial, "$when: parallel $name gives the serial result");
	}
	return;
}

# Every C function of the extension: its symbol resolves in the installed
# library (the C language validator loads it).  Returns how many.
my $c_symbols_sql = q{
	SELECT count(fmgr_c_validator(p.oid) IS NULL)
	FROM pg_proc p
		 JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
		 JOIN pg_extension x ON d.refclassid = 'pg_extension'::regclass
								AND d.refobjid = x.oid AND x.extname = 'sbf'
	WHERE d.deptype = 'e'
		  AND p.prolang = (SELECT oid FROM pg_language WHERE lanname = 'c')};

# Each C entry point of the 1.0 script called once, with answers that cannot
# be false positives (filters of a few elements at error 1e-6).
my $entry_points_sql = q{
	WITH f AS (
		SELECT sbf_add(sbf_add(sbf_add(sbf_empty(100, 1e-6), 'a'::text), 7::bigint),
					   '\x01'::bytea) AS f)
	SELECT concat_ws(' ',
		sbf_contains(f, 'a'::text), sbf_contains(f, 7::bigint), sbf_contains(f, '\x01'::bytea),
		'a'::text <@ f, 7::bigint <@ f, '\x01'::bytea <@ f,
		f @> 'b'::text, f @> 8::bigint, f @> '\x02'::bytea,
		sbf_matches(sbf_add(f, ARRAY['b', 'c']), ARRAY['a', 'b', 'c', 'd']),
		sbf_matches(sbf_add(f, ARRAY[8, 9]::bigint[]), ARRAY[7, 8, 9, 10]::bigint[]),
		sbf_cardinality(f), # f,
		jsonb_typeof(sbf_info(f)),
		(f::text)::scalablebloom::bytea = f::bytea,
		(f::bytea)::scalablebloom::text = f::text,
		sbf_union(f, sbf_add(sbf_empty(100, 1e-6), 'u'::text)) @> 'u'::text,
		sbf_union(f, NULL) @> 'a'::text,
		(f || sbf_add(sbf_empty(100, 1e-6), 'w'::text)) @> 'w'::text,
		(f || 5) @> 5::bigint, (f || 6::smallint) @> 6::bigint,
		(f || ARRAY[11, 12]) @> 12::bigint, (f || ARRAY['t1', 't2']) @> 't2'::text,
		(f || 'v'::text) @> 'v'::text, (f || '\x03'::bytea) @> '\x03'::bytea,
		(SELECT sbf_agg(x) @> 'r3' FROM (VALUES ('r1'), ('r2'), ('r3')) v(x)),
		(SELECT sbf_agg(x, 1e-6) @> 'r3' FROM (VALUES ('r1'), ('r3')) v(x)),
		(SELECT sbf_agg(x) @> 3::bigint FROM generate_series(1::bigint, 3) x),
		(SELECT sbf_agg(x, 1e-6) @> 3::bigint FROM generate_series(1::bigint, 3) x),
		(SELECT sbf_agg(convert_to(x, 'UTF8')) @> '\x7231'::bytea FROM (VALUES ('r1')) v(x)),
		(SELECT sbf_agg(convert_to(x, 'UTF8'), 1e-6) @> '\x7231'::bytea FROM (VALUES ('r1')) v(x)),
		(SELECT sbf_union_agg(y) @> 'a'::text FROM (VALUES (f), (NULL)) v(y)))
	FROM f};
my $entry_points_expected =
  't t t t t t f f f 3 3 3 3 object t t t t t t t t t t t t t t t t t t';

# Members of the extension without a comment.
my $uncommented_sql = q{
	SELECT string_agg(pg_describe_object(d.classid, d.objid, d.objsubid), ', ')
	FROM pg_depend d
		 JOIN pg_extension x ON d.refclassid = 'pg_extension'::regclass
								AND d.refobjid = x.oid AND x.extname = 'sbf'
		 LEFT JOIN pg_description c ON c.classoid = d.classid AND c.objoid = d.objid
									   AND c.objsubid = d.objsubid
	WHERE d.deptype = 'e' AND c.description IS NULL
	  -- the array types PostgreSQL 17 and later record as members too
	  AND NOT (d.classid = 'pg_type'::regclass
			   AND EXISTS (SELECT 1 FROM pg_type t WHERE t.typarray = d.objid))};

# The extension's catalog, as text: its members, and for the functions,
# aggregates, operators, types and casts among them the properties an
# install script sets, and every comment.
my $catalog_sql = q{
	WITH members AS (
		SELECT d.classid, d.objid, d.objsubid,
			   pg_describe_object(d.classid, d.objid, d.objsubid) AS name
		FROM pg_depend d
			 JOIN pg_extension x ON d.refclassid = 'pg_extension'::regclass
									AND d.refobjid = x.oid AND x.extname = 'sbf'
		WHERE d.deptype = 'e')
	SELECT string_agg(line, E'\n' ORDER BY line) FROM (
		SELECT 'member ' || m.name || ' -- ' || coalesce(c.description, '(no comment)') AS line
		FROM members m
			 LEFT JOIN pg_description c ON c.classoid = m.classid AND c.objoid = m.objid
										   AND c.objsubid = m.objsubid
		UNION ALL
		SELECT format('function %s(%s) returns %s kind %s lang %s %s strict %s volatile %s parallel %s cost %s rows %s',
					  p.proname, pg_get_function_arguments(p.oid), pg_get_function_result(p.oid),
					  p.prokind, l.lanname, p.prosrc, p.proisstrict, p.provolatile,
					  p.proparallel, p.procost, p.prorows)
		FROM members m JOIN pg_proc p ON m.classid = 'pg_proc'::regclass AND p.oid = m.objid
			 JOIN pg_language l ON l.oid = p.prolang
		UNION ALL
		SELECT format('aggregate %s: state %s space %s init %s trans %s final %s extra %s modify %s combine %s serial %s deserial %s sortop %s moving %s',
					  a.aggfnoid::regprocedure, a.aggtranstype::regtype, a.aggtransspace,
					  a.agginitval, a.aggtransfn::oid::regprocedure,
					  a.aggfinalfn::oid::regprocedure, a.aggfinalextra, a.aggfinalmodify,
					  a.aggcombinefn::oid::regprocedure, a.aggserialfn::oid::regprocedure,
					  a.aggdeserialfn::oid::regprocedure, a.aggsortop::regoperator,
					  a.aggmtransfn::oid::regprocedure)
		FROM members m JOIN pg_aggregate a ON m.classid = 'pg_proc'::regclass
											 AND a.aggfnoid = m.objid
		UNION ALL
		SELECT format('operator %s: code %s commutator %s negator %s restrict %s join %s merges %s hashes %s',
					  o.oid::regoperator, o.oprcode::oid::regprocedure,
					  o.oprcom::regoperator, o.oprnegate::regoperator, o.oprrest, o.oprjoin,
					  o.oprcanmerge, o.oprcanhash)
		FROM members m JOIN pg_operator o ON m.classid = 'pg_operator'::regclass
											AND o.oid = m.objid
		UNION ALL
		SELECT format('type %s: len %s in %s out %s recv %s send %s align %s storage %s collatable %s category %s',
					  t.oid::regtype, t.typlen, t.typinput, t.typoutput, t.typreceive,
					  t.typsend, t.typalign, t.typstorage, t.typcollation <> 0, t.typcategory)
		FROM members m JOIN pg_type t ON m.classid = 'pg_type'::regclass AND t.oid = m.objid
		UNION ALL
		SELECT format('cast %s -> %s: function %s context %s method %s',
					  c.castsource::regtype, c.casttarget::regtype,
					  c.castfunc::regprocedure, c.castcontext, c.castmethod)
		FROM members m JOIN pg_cast c ON m.classid = 'pg_cast'::regclass AND c.oid = m.objid) s};

# Oids of the 1.0 aggregates (listed in aggs10 before the update) and the
# views' definitions: the update must replace aggregates in place (CREATE OR
# REPLACE), never drop and recreate them.  1.1's new aggregates do not count.
my $dependents_sql = q{
	SELECT string_agg(x, E'\n' ORDER BY x) FROM (
		SELECT a.sig || ' oid ' || coalesce(to_regprocedure(a.sig)::oid::text, 'missing') AS x
		FROM aggs10 a
		UNION ALL
		SELECT c.relname || ': ' || pg_get_viewdef(c.oid)
		FROM pg_class c WHERE c.relname IN ('v_agg', 'v_union', 'mv_agg', 'mv_union')
		UNION ALL
		SELECT 'probe: ' || pg_get_functiondef('probe(scalablebloom,text,text)'::regprocedure)) s};

# ---------------------------------------------------------------------------
# Before the update: catalog 1.0, library 1.1
# ---------------------------------------------------------------------------

my $script10 = slurp_file("$FindBin::RealBin/../../sql/sbf--1.0.sql");
my $bound10 = () = $script10 =~ /AS 'MODULE_PATHNAME'/g;
is($node->safe_psql('upd', $c_symbols_sql),
	$bound10,
	"all $bound10 C functions the 1.0 script binds resolve in the new library");

# Binary send and receive: COPY out and in, byte for byte.
$node->safe_psql(
	'upd', qq{
	COPY stored TO '$tmp/stored.bin' WITH (FORMAT binary);
	CREATE TABLE stored_bin (LIKE stored);
	COPY stored_bin FROM '$tmp/stored.bin' WITH (FORMAT binary);
});
is($node->safe_psql('upd', fingerprint_sql('stored_bin')),
	$node->safe_psql('upd', fingerprint_sql('stored')),
	'1.0 catalog: COPY binary out and in (send, recv) keeps every filter');
is($node->safe_psql('upd', $entry_points_sql),
	$entry_points_expected,
	'every C entry point of the 1.0 script answers correctly with the new library');
check_parallel('1.0 catalog');

is($node->safe_psql('upd', $legacy_vs_10_sql),
	$legacy_expected,
	'1.0 catalog: format-1 values answer contains and matches exactly as sbf 1.0 did');
is($node->safe_psql('upd', $legacy_card_sql),
	'none', '1.0 catalog: # of every format-1 value is within the HyperLogLog error of the truth');

my %before;
$before{legacy} = $node->safe_psql('upd', answers_sql('legacy', 'legacy_members'));
$before{stored} = $node->safe_psql('upd', answers_sql('stored', 'stored_members'));
$before{legacy_fp} = $node->safe_psql('upd', fingerprint_sql('legacy'));
$before{stored_fp} = $node->safe_psql('upd', fingerprint_sql('stored'));
$before{mv_agg} = $node->safe_psql('upd',
	q{SELECT string_agg(g || ' ' || md5(f::bytea), ',' ORDER BY g) FROM mv_agg});
$before{mv_union} = $node->safe_psql('upd', 'SELECT md5(f::bytea) FROM mv_union');
$node->safe_psql(
	'upd', q{
	CREATE TABLE aggs10 AS
		SELECT p.oid::regprocedure::text AS sig FROM pg_proc p
		WHERE p.proname IN ('sbf_agg', 'sbf_union_agg') AND p.prokind = 'a'});
$before{dependents} = $node->safe_psql('upd', $dependents_sql);
like($before{dependents}, qr/sbf_union_agg\(scalablebloom\) oid \d+/,
	'the 1.0 aggregates are listed with their oids');
unlike($before{stored}, qr/misses=[1-9]/,
	'1.0 catalog: no false negatives in the filters built through it');
is($node->safe_psql('upd', $views_sql),
	'v_agg groups=5 misses=0; v_union misses=0; mv_agg groups=5 misses=0; mv_union misses=0',
	'1.0 catalog: the views and materialized views answer without false negatives');

# A dump of the 1.0 database, restored later into a server that has 1.1.
$node->command_ok([ 'pg_dump', '-Fc', '-d', 'upd', '-f', "$tmp/upd10.dump" ],
	'pg_dump of the database at 1.0');

# ---------------------------------------------------------------------------
# The update
# ---------------------------------------------------------------------------

$node->safe_psql('upd', q{ALTER EXTENSION sbf UPDATE TO '1.1'});
is( $node->safe_psql(
		'upd', q{SELECT extversion FROM pg_extension WHERE extname = 'sbf'}),
	'1.1',
	'ALTER EXTENSION sbf UPDATE TO 1.1 reaches 1.1');

# ---------------------------------------------------------------------------
# After the update
# ---------------------------------------------------------------------------

is($node->safe_psql('upd', fingerprint_sql('legacy')),
	$before{legacy_fp}, 'the format-1 values are byte for byte unchanged');
is($node->safe_psql('upd', fingerprint_sql('stored')),
	$before{stored_fp}, 'the filters built through 1.0 are byte for byte unchanged');
is($node->safe_psql('upd', answers_sql('legacy', 'legacy_members')),
	$before{legacy},
	'format-1 values: contains, matches, # and sbf_info answer exactly as before');
is($node->safe_psql('upd', answers_sql('stored', 'stored_members')),
	$before{stored},
	'filters built through 1.0: contains, matches, # and sbf_info answer exactly as before');
is($node->safe_psql('upd', $legacy_vs_10_sql),
	$legacy_expected,
	'1.1: format-1 values still answer contains and matches exactly as sbf 1.0 did');
is($node->safe_psql('upd', $dependents_sql),
	$before{dependents},
	'the aggregates keep their oids; views and the BEGIN ATOMIC function are unchanged');

my $nsym11 = $node->safe_psql('upd', $c_symbols_sql);
cmp_ok($nsym11, '>=', $bound10,
	"all $nsym11 C functions of the updated extension resolve in the library");
is($node->safe_psql('upd', $entry_points_sql),
	$entry_points_expected, 'the 1.0 entry points still answer correctly after the update');
check_parallel('1.1 catalog');

# Views and materialized views.
is($node->safe_psql('upd', $views_sql),
	'v_agg groups=5 misses=0; v_union misses=0; mv_agg groups=5 misses=0; mv_union misses=0',
	'the views work after the update, without false negatives');
is($node->safe_psql('upd',
		q{SELECT string_agg(g || ' ' || md5(f::bytea), ',' ORDER BY g) FROM mv_agg}),
	$before{mv_agg}, 'the materialized view on sbf_agg keeps its stored filters');
is($node->safe_psql('upd', 'SELECT md5(f::bytea) FROM mv_union'),
	$before{mv_union}, 'the materialized view on sbf_union_agg keeps its stored filter');

$node->safe_psql(
	'upd', q{
	INSERT INTO events SELECT g % 5, 'after:' || g FROM generate_series(1, 500) g;
	REFRESH MATERIALIZED VIEW mv_agg;
	REFRESH MATERIALIZED VIEW mv_union;
});
is($node->safe_psql('upd', $views_sql),
	'v_agg groups=5 misses=0; v_union misses=0; mv_agg groups=5 misses=0; mv_union misses=0',
	'after REFRESH the materialized views hold the new events, without false negatives');
is($node->safe_psql('upd',
		q{SELECT count(*) FROM mv_agg m JOIN v_agg v USING (g) WHERE m.f::bytea = v.f::bytea}),
	5, 'the refreshed materialized view on sbf_agg equals the view byte for byte');
is( $node->safe_psql(
		'upd', q{SELECT m.f::bytea = v.f::bytea FROM mv_union m, v_union v}),
	't', 'the refreshed materialized view on sbf_union_agg equals the view byte for byte');
$node->safe_psql(
	'upd', q{
	INSERT INTO events SELECT g % 5, 'again:' || g FROM generate_series(1, 100) g;
	REFRESH MATERIALIZED VIEW CONCURRENTLY mv_agg;
	REFRESH MATERIALIZED VIEW mv_union;
});
is($node->safe_psql('upd', $views_sql),
	'v_agg groups=5 misses=0; v_union misses=0; mv_agg groups=5 misses=0; mv_union misses=0',
	'REFRESH MATERIALIZED VIEW CONCURRENTLY works on sbf_agg after the update');

# Stored filters still grow: add 3,000 new elements of the filter's element
# type to each (enough to append segments), then every old and new element
# must be contained.
$node->safe_psql(
	'upd', q{
	CREATE TABLE grown AS SELECT id, kind, f FROM stored WHERE f IS NOT NULL
		UNION ALL SELECT 100 + id, kind, f FROM legacy;
	CREATE TABLE grown_members AS
		SELECT id, kind, e FROM stored_members
		UNION ALL SELECT 100 + id, kind, e FROM legacy_members
		UNION ALL SELECT id, kind,
						 CASE WHEN kind = 'bigint' THEN (900000000 + g)::text
							  ELSE 'new:' || g END
		FROM grown, generate_series(1, 3000) g;
	UPDATE grown SET f = f || ARRAY(SELECT e FROM grown_members m
								   WHERE m.id = grown.id AND e LIKE 'new:%')
		WHERE kind = 'text';
	UPDATE grown SET f = f || ARRAY(SELECT (900000000 + g)::bigint
								   FROM generate_series(1, 3000) g)
		WHERE kind = 'bigint';
	DO $$
	DECLARE
		r record;
		x scalablebloom;
		g int;
	BEGIN
		FOR r IN SELECT id, f FROM grown WHERE kind = 'bytea' LOOP
			x := r.f;
			FOR g IN 1..3000 LOOP
				x := x || convert_to('new:' || g, 'UTF8');
			END LOOP;
			UPDATE grown SET f = x WHERE id = r.id;
		END LOOP;
	END $$;
});
is( $node->safe_psql(
		'upd', q{
		SELECT count(*) FROM grown_members m JOIN grown t USING (id)
		WHERE NOT coalesce(probe(t.f, t.kind, m.e), false)}),
	0,
	'every stored filter grown by 3,000 adds after the update contains all old and new elements'
);
is( $node->safe_psql(
		'upd', q{
		SELECT count(*) FROM grown g JOIN stored s USING (id)
		WHERE g.f::bytea = s.f::bytea}),
	0, 'and every one of them changed');
# ---------------------------------------------------------------------------
# The contract's 1.1 objects, by name
# ---------------------------------------------------------------------------

# [ name, SQL giving what was found (nothing when missing), expected ]
# Every branch of 1.1 is merged: every object must exist, nothing is skipped.
my @contract = (
	[
		'type sbf_hashset',
		q{SELECT typtype::text || ' ' || typlen FROM pg_type WHERE typname = 'sbf_hashset'},
		'b -1'
	],
	(
		map {
			[
				"sbf_hashset_agg($_)",
				qq{SELECT prokind::text || ' ' || prorettype::regtype FROM pg_proc
				   WHERE proname = 'sbf_hashset_agg' AND oidvectortypes(proargtypes) = '$_'},
				'a sbf_hashset'
			]
		} qw(text bigint bytea)),
	[
		'sbf_hashset_union(sbf_hashset,sbf_hashset)',
		q{SELECT prokind::text || ' ' || prorettype::regtype FROM pg_proc
		  WHERE proname = 'sbf_hashset_union'
				AND oidvectortypes(proargtypes) = 'sbf_hashset, sbf_hashset'},
		'f sbf_hashset'
	],
	[
		'sbf_hashset_union_agg(sbf_hashset)',
		q{SELECT prokind::text || ' ' || prorettype::regtype FROM pg_proc
		  WHERE proname = 'sbf_hashset_union_agg'
				AND oidvectortypes(proargtypes) = 'sbf_hashset'},
		'a sbf_hashset'
	],
	[
		'operator #(NONE,sbf_hashset)',
		q{SELECT oprresult::regtype::text FROM pg_operator
		  WHERE oprname = '#' AND oprleft = 0
				AND oprright = (SELECT oid FROM pg_type WHERE typname = 'sbf_hashset')},
		'bigint'
	],
	[
		'sbf_build(sbf_hashset,double precision)',
		q{SELECT prokind::text || ' ' || prorettype::regtype || ' defaults ' || pronargdefaults
		  FROM pg_proc WHERE proname = 'sbf_build'
				AND oidvectortypes(proargtypes) = 'sbf_hashset, double precision'},
		'f scalablebloom defaults 1'
	],
	[
		'sbf_agg state type sbf_hashset',
		q{SELECT string_agg(DISTINCT a.aggtranstype::regtype::text, ',')
		  FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid
		  WHERE p.proname = 'sbf_agg'},
		'sbf_hashset',
		q{SELECT 1 FROM pg_type WHERE typname = 'sbf_hashset'}
	],
	[
		'sbf_union(scalablebloom,scalablebloom,double precision)',
		q{SELECT prokind::text || ' ' || prorettype::regtype FROM pg_proc
		  WHERE proname = 'sbf_union'
				AND oidvectortypes(proargtypes) = 'scalablebloom, scalablebloom, double precision'},
		'f scalablebloom'
	],
	[
		'sbf_union_agg(scalablebloom,double precision)',
		q{SELECT prokind::text || ' ' || prorettype::regtype FROM pg_proc
		  WHERE proname = 'sbf_union_agg'
				AND oidvectortypes(proargtypes) = 'scalablebloom, double precision'},
		'a scalablebloom'
	],
	[
		'sbf_union_agg state type is not internal',
		q{SELECT CASE WHEN bool_and(a.aggtranstype <> 'internal'::regtype) THEN 'not internal'
					  ELSE string_agg(a.aggtranstype::regtype::text, ',') END
		  FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid
		  WHERE p.proname = 'sbf_union_agg'},
		'not internal'
	],
	[
		'sbf_delta(scalablebloom)',
		q{SELECT prokind::text || ' ' || prorettype::regtype FROM pg_proc
		  WHERE proname = 'sbf_delta'
				AND oidvectortypes(proargtypes) = 'scalablebloom'},
		'f scalablebloom'
	],);

foreach my $c (@contract)
{
	my ($name, $sql, $expected) = @$c;
	is($node->safe_psql('upd', $sql),
		$expected, "1.1 object present after the update: $name");
}

# ---------------------------------------------------------------------------
# 1.1 -> 1.2, with 1.0 and 1.1 values stored in tables
# ---------------------------------------------------------------------------

# Values written at 1.1: an exact form, a right-sized sbf_agg, a grown one
# and a budgeted union.
$node->safe_psql(
	'upd', q{
	CREATE TABLE v11 (id int PRIMARY KEY, kind text, f scalablebloom);
	INSERT INTO v11
		SELECT 1, 'text', sbf_agg(e) FROM stored_members WHERE id = 1
		UNION ALL SELECT 2, 'text', sbf_add(sbf_empty(), ARRAY['v11:a', 'v11:b'])
		UNION ALL SELECT 4, 'text', sbf_empty(100) || array_agg(e) FROM stored_members WHERE id = 4
		UNION ALL SELECT 6, 'text', sbf_union_agg(f, 0.05) FROM small_filters;
	CREATE TABLE v11_members AS
		SELECT id, kind, e FROM stored_members WHERE id IN (1, 4)
		UNION ALL SELECT 2, 'text', x FROM unnest(ARRAY['v11:a', 'v11:b']) x
		UNION ALL SELECT 6, 'text', 'sf:' || g FROM generate_series(1, 2000) g;
});
my %before12 = (
	legacy_fp => $node->safe_psql('upd', fingerprint_sql('legacy')),
	stored_fp => $node->safe_psql('upd', fingerprint_sql('stored')),
	v11_fp => $node->safe_psql('upd', fingerprint_sql('v11')),
	legacy => $node->safe_psql('upd', answers_sql('legacy', 'legacy_members')),
	stored => $node->safe_psql('upd', answers_sql('stored', 'stored_members')),
	v11 => $node->safe_psql('upd', answers_sql('v11', 'v11_members')));
like($before12{v11}, qr/^1 misses=0 .*\n2 misses=0 .*\n4 misses=0 .*\n6 misses=0 /,
	'1.1 values: no false negatives before the update to 1.2');

$node->safe_psql('upd', q{ALTER EXTENSION sbf UPDATE TO '1.2'});
is( $node->safe_psql(
		'upd', q{SELECT extversion FROM pg_extension WHERE extname = 'sbf'}),
	'1.2',
	'ALTER EXTENSION sbf UPDATE TO 1.2 reaches 1.2');
foreach my $t ([ 'legacy', 'the format-1 values' ],
	[ 'stored', 'the filters built through 1.0' ],
	[ 'v11', 'the values written at 1.1' ])
{
	my ($table, $what) = @$t;
	is($node->safe_psql('upd', fingerprint_sql($table)),
		$before12{"${table}_fp"}, "1.2: $what are byte for byte unchanged");
}
foreach my $t ([ 'legacy', 'legacy_members' ], [ 'stored', 'stored_members' ],
	[ 'v11', 'v11_members' ])
{
	my ($table, $members) = @$t;
	is($node->safe_psql('upd', answers_sql($table, $members)),
		$before12{$table},
		"1.2: $table answers contains, matches, # and sbf_info exactly as at 1.1");
}
is($node->safe_psql('upd', $entry_points_sql),
	$entry_points_expected, '1.2: the 1.0 entry points still answer correctly');
check_parallel('1.2 catalog');

# Windowed filters in the updated database.
$node->safe_psql(
	'upd', q{
	SET TimeZone = 'UTC';
	CREATE TABLE interactions AS
		SELECT g % 20 AS uid, 'w:' || (g % 7919) AS item,
			   timestamptz '2026-01-01' + (g % 40) * interval '1 day' AS at
		FROM generate_series(1, 40000) g;
	CREATE TABLE seen (uid int PRIMARY KEY, f scalablebloom);
	INSERT INTO seen SELECT uid, sbf_window_empty() FROM generate_series(0, 19) uid;
	DO $$
	DECLARE r record;
	BEGIN
		FOR r IN SELECT uid, array_agg(item) AS items, at FROM interactions
				 WHERE uid < 3 GROUP BY uid, at ORDER BY at LOOP
			UPDATE seen SET f = sbf_add(f, r.items, r.at) WHERE uid = r.uid;
		END LOOP;
	END $$;
	ANALYZE interactions;
});
is( $node->safe_psql(
		'upd', q{
	SELECT count(*) FILTER (WHERE NOT sbf_contains(s.f, i.item, i.at))
	FROM interactions i JOIN seen s USING (uid)
	WHERE i.uid < 3 AND i.at >= timestamptz '2026-01-11 00:00+00'}),
	'0', '1.2: live windowed adds have no false negatives in the window');
my $window_agg_sql = q{SELECT md5(string_agg(md5(f::bytea), ',' ORDER BY uid)) FROM (
	SELECT uid, sbf_window_agg(item, at) AS f FROM interactions GROUP BY uid) s};
my $plan = $node->safe_psql('upd', "$parallel_settings EXPLAIN (COSTS OFF) $window_agg_sql");
like($plan, qr/Partial \w*Aggregate/,
	'1.2 catalog: sbf_window_agg runs as a parallel plan with partial aggregation');
is($node->safe_psql('upd', "$parallel_settings $window_agg_sql"),
	$node->safe_psql('upd', "SET max_parallel_workers_per_gather = 0; $window_agg_sql"),
	'1.2 catalog: parallel sbf_window_agg gives the serial result');
foreach my $c (
	[ 'sbf_window_empty', q{SELECT sbf_info(sbf_window_empty('1 hour', 24, 0.001))->>'buckets'}, '24' ],
	[ 'sbf_expire', q{SELECT # sbf_expire(sbf_add(sbf_window_empty(), 'a', now() - interval '40 days'), now())}, '0' ],
	[ 'sbf_matches with since', q{SELECT sbf_matches(sbf_add(sbf_window_empty(), ARRAY[1, 2]::bigint[], now()), ARRAY[1, 3]::bigint[], now())}, '1' ],
	[ 'sbf_window_agg with all arguments', q{SELECT sbf_window_agg(x, now(), '1 day', 7, 0.02) @> 'q' FROM (VALUES ('q')) v(x)}, 't' ])
{
	my ($name, $sql, $expected) = @$c;
	is($node->safe_psql('upd', $sql), $expected, "1.2 object present after the update: $name");
}

# ---------------------------------------------------------------------------
# 1.2 -> 1.3: = and <> with hash operator classes, on the stored values
# ---------------------------------------------------------------------------

# Values written at 1.2: windowed filters (live adds above) and hash sets,
# two of each equal by construction.
$node->safe_psql(
	'upd', q{
	SET TimeZone = 'UTC';
	CREATE TABLE v12 (id int PRIMARY KEY, f scalablebloom, h sbf_hashset);
	INSERT INTO v12 SELECT uid, sbf_window_agg(item, at), sbf_hashset_agg(item)
		FROM interactions WHERE uid < 4 GROUP BY uid;
	INSERT INTO v12 SELECT id + 10, f, h FROM v12 WHERE id < 2;
});
my $seen_fp_sql = q{SELECT string_agg(md5(f::bytea), ',' ORDER BY uid) FROM seen};
my %before13 = map { ($_ => $node->safe_psql('upd', fingerprint_sql($_))) }
  qw(legacy stored v11);
$before13{seen} = $node->safe_psql('upd', $seen_fp_sql);
$before13{v12} = $node->safe_psql('upd',
	q{SELECT string_agg(md5(f::bytea) || ' ' || md5(h::bytea), ',' ORDER BY id) FROM v12});

$node->safe_psql('upd', q{ALTER EXTENSION sbf UPDATE TO '1.3'});
is( $node->safe_psql(
		'upd', q{SELECT extversion FROM pg_extension WHERE extname = 'sbf'}),
	'1.3',
	'ALTER EXTENSION sbf UPDATE TO 1.3 reaches 1.3');
foreach my $table (qw(legacy stored v11 seen))
{
	is( $node->safe_psql(
			'upd', $table eq 'seen' ? $seen_fp_sql : fingerprint_sql($table)),
		$before13{$table}, "1.3: $table is byte for byte unchanged");
}
is( $node->safe_psql('upd',
		q{SELECT string_agg(md5(f::bytea) || ' ' || md5(h::bytea), ',' ORDER BY id) FROM v12}),
	$before13{v12}, '1.3: the values written at 1.2 are byte for byte unchanged');
is( $node->safe_psql(
		'upd', q{
	SELECT string_agg(format('%s %s hash=%s', o.oprleft::regtype, o.oprname, o.oprcanhash),
					  ', ' ORDER BY o.oprleft::regtype::text, o.oprname)
	FROM pg_operator o
	WHERE o.oprleft = o.oprright AND o.oprname IN ('=', '<>')
	  AND o.oprleft IN ('scalablebloom'::regtype, 'sbf_hashset'::regtype)
	  AND (o.oprname = '<>' OR EXISTS (
		  SELECT 1 FROM pg_amop a JOIN pg_opfamily f ON f.oid = a.amopfamily
			   JOIN pg_am m ON m.oid = f.opfmethod AND m.amname = 'hash'
		  WHERE a.amopopr = o.oid))}),
	'sbf_hashset <> hash=f, sbf_hashset = hash=t, scalablebloom <> hash=f, scalablebloom = hash=t',
	'1.3: = (in a hash operator class) and <> exist for scalablebloom and sbf_hashset');

# On every stored value, = agrees with equal bytes (md5 of the payload) in a
# join, and DISTINCT, GROUP BY and UNION count the distinct payloads.
foreach my $table (qw(legacy stored v11 seen v12))
{
	foreach my $c ($table eq 'v12' ? ('f', 'h') : ('f'))
	{
		is( $node->safe_psql(
				'upd', qq{
			SELECT format('pairs=%s distinct=%s groups=%s union=%s ne=%s',
				(SELECT count(*) FROM $table a JOIN $table b ON a.$c = b.$c),
				(SELECT count(*) FROM (SELECT DISTINCT $c FROM $table WHERE $c IS NOT NULL) d),
				(SELECT count(*) FROM (SELECT $c FROM $table WHERE $c IS NOT NULL GROUP BY $c) g),
				(SELECT count(*) FROM (SELECT $c FROM $table WHERE $c IS NOT NULL
									   UNION SELECT $c FROM $table WHERE $c IS NOT NULL) u),
				(SELECT count(*) FROM $table a, $table b WHERE a.$c <> b.$c))}),
			$node->safe_psql(
				'upd', qq{
			SELECT format('pairs=%s distinct=%s groups=%s union=%s ne=%s',
				(SELECT count(*) FROM $table a JOIN $table b ON md5(a.${c}::bytea) = md5(b.${c}::bytea)),
				(SELECT count(DISTINCT md5(${c}::bytea)) FROM $table),
				(SELECT count(DISTINCT md5(${c}::bytea)) FROM $table),
				(SELECT count(DISTINCT md5(${c}::bytea)) FROM $table),
				(SELECT count(*) FROM $table a, $table b WHERE md5(a.${c}::bytea) <> md5(b.${c}::bytea)))}),
			"1.3: = and <> on $table.$c agree with equal bytes in joins, DISTINCT, GROUP BY and UNION");
	}
}
like( $node->safe_psql(
		'upd', q{
	SELECT format('%s %s', (SELECT count(*) FROM v12 a JOIN v12 b ON a.f = b.f AND a.id < b.id),
						   (SELECT count(*) FROM v12 a JOIN v12 b ON a.h = b.h AND a.id < b.id))}),
	qr/^2 2$/, '1.3: the copies written at 1.2 compare equal, the other values do not');

# ---------------------------------------------------------------------------
# 1.3 on the values the 1.2 library wrote, and 1.3's writes over them
# ---------------------------------------------------------------------------

# Format-2 and format-3 values and hash sets written by the sbf 1.2 library
# (data/format23_values.tsv, made by data/format23_values.sql), loaded into
# the updated database: they answer exactly as 1.2 did.
SbfFormat23::load($node, 'upd', $fixture23);
my $n23 = $node->safe_psql('upd', 'SELECT count(*) FROM f23_src');
cmp_ok($n23, '>=', 22, "$n23 values written by 1.2 loaded from their text form");
is($node->safe_psql('upd', $SbfFormat23::old_answers_sql),
	SbfFormat23::old_expected($node, 'upd'),
	"1.3: each value 1.2 wrote prints the same text and answers #, sbf_info (1.2's keys), contains and sbf_matches exactly as 1.2 did");
my $f23_fp_sql = q{
	SELECT (SELECT string_agg(id || ' ' || md5(f::bytea), ',' ORDER BY id) FROM f23) || ' / ' ||
		   (SELECT string_agg(id || ' ' || md5(h::bytea), ',' ORDER BY id) FROM f23_h)};
my $f23_fp = $node->safe_psql('upd', $f23_fp_sql);

# 1.3 writes over them: adds by element type, || with a new value of the
# same parameters, sbf_delta, windowed adds with at and sbf_expire, hash set
# unions built into filters; and the views and the refreshed materialized
# views on sbf_agg and sbf_union_agg, their members the events.
SbfFormat23::write_over($node, 'upd');
$node->safe_psql(
	'upd', q{
	REFRESH MATERIALIZED VIEW mv_agg;
	REFRESH MATERIALIZED VIEW mv_union;
	INSERT INTO f23_w4
		SELECT 100 + g, 'v_agg', 'text', f FROM v_agg
		UNION ALL SELECT 100 + g, 'mv_agg', 'text', f FROM mv_agg
		UNION ALL SELECT 100, 'v_union', 'text', f FROM v_union
		UNION ALL SELECT 100, 'mv_union', 'text', f FROM mv_union;
	INSERT INTO f23_new
		SELECT 100 + g, o, e FROM events, unnest(ARRAY['v_agg', 'mv_agg']) o
		UNION ALL SELECT 100, o, e FROM events, unnest(ARRAY['v_union', 'mv_union']) o;
});
is($node->safe_psql('upd', $f23_fp_sql),
	$f23_fp, "1.3: writing over the values 1.2 wrote leaves the stored ones byte for byte");
my $written = $node->safe_psql('upd', $SbfFormat23::written_sql);
note($written);
is($written, SbfFormat23::written_expected($written),
	'1.3 writes over 1.2 values and refreshes views: version 4 (the exact form version 2), every segment with its kind, no false negative over old and new members, false positives within fpr_bound');
my $kinds = $node->safe_psql('upd', $SbfFormat23::kinds_sql);
note("kinds written per operation: $kinds");
like($kinds, qr/^(?=.*\badd [^;]*blocked)(?=.*\bunion [^;]*blocked)(?=.*\bdelta [^;]*blocked)(?=.*(?:fused|compact form))/,
	'1.3 writes blocked segments onto the 1.2 values (adds, unions, sbf_delta) and fused ones or the compact form (1.4\'s library) somewhere in the walk');
like($written, qr/\A(?:(?!form=exact)[^\n]*\n?)+\z/,
	'1.3 writes over 1.2 values: no result stays in the exact form');

# ---------------------------------------------------------------------------
# 1.3 -> 1.4: every value stored so far stays byte for byte
# ---------------------------------------------------------------------------

my %before14 = map { ($_ => $node->safe_psql('upd', fingerprint_sql($_))) }
  qw(legacy stored v11);
$before14{f23} = $node->safe_psql('upd', $f23_fp_sql);
$node->safe_psql('upd', q{ALTER EXTENSION sbf UPDATE TO '1.4'});
is( $node->safe_psql(
		'upd', q{SELECT extversion FROM pg_extension WHERE extname = 'sbf'}),
	'1.4',
	'ALTER EXTENSION sbf UPDATE TO 1.4 reaches 1.4');
foreach my $table (qw(legacy stored v11))
{
	is($node->safe_psql('upd', fingerprint_sql($table)),
		$before14{$table}, "1.4: $table is byte for byte unchanged");
}
is($node->safe_psql('upd', $f23_fp_sql),
	$before14{f23}, '1.4: the values 1.2 wrote are byte for byte unchanged');
is( $node->safe_psql(
		'upd', q{
	SELECT string_agg(c.opcname || ' ' || c.opcintype::regtype, ', ' ORDER BY c.opcname)
	FROM pg_opclass c JOIN pg_am m ON m.oid = c.opcmethod
	WHERE m.amname = 'btree' AND c.opcdefault
	  AND c.opcintype IN ('scalablebloom'::regtype, 'sbf_hashset'::regtype)}),
	'sbf_hashset_btree_ops sbf_hashset, scalablebloom_btree_ops scalablebloom',
	'1.4: the default btree classes of scalablebloom and sbf_hashset exist after the update');
foreach my $table (qw(legacy stored v11))
{
	is( $node->safe_psql(
			'upd', qq{
		SELECT (SELECT count(DISTINCT f) FROM $table)
		     = (SELECT count(*) FROM (SELECT DISTINCT f FROM $table WHERE f IS NOT NULL) d)
		   AND (SELECT array_agg(id ORDER BY f, id) = array_agg(id ORDER BY f::bytea, id)
		        FROM $table WHERE f IS NOT NULL)}),
		't',
		"1.4: count(DISTINCT f) and ORDER BY f over the stored $table (byte order)");
}

# ---------------------------------------------------------------------------
# Fresh install and updated install: the same catalog
# ---------------------------------------------------------------------------

$node->safe_psql('fresh', 'CREATE EXTENSION sbf');
is( $node->safe_psql(
		'fresh', q{SELECT extversion FROM pg_extension WHERE extname = 'sbf'}),
	'1.4',
	'CREATE EXTENSION sbf installs 1.4 by default');
$node->safe_psql('postgres', 'CREATE DATABASE at11');
$node->safe_psql('at11', q{CREATE EXTENSION sbf VERSION '1.1'});
is( $node->safe_psql(
		'at11', q{SELECT extversion FROM pg_extension WHERE extname = 'sbf'}),
	'1.1',
	'CREATE EXTENSION sbf VERSION 1.1 still installs 1.1');
my $catalog_fresh = $node->safe_psql('fresh', $catalog_sql);
my $catalog_upd = $node->safe_psql('upd', $catalog_sql);
note('catalog lines: ' . scalar(split /\n/, $catalog_fresh));
is($catalog_upd, $catalog_fresh,
	'the updated database has the same catalog for the extension as a fresh install');
is($node->safe_psql('fresh', $uncommented_sql),
	'', 'every object of the extension has a comment');

# A dump of the updated database restores into a new one with the same
# catalog and the same values.
$node->command_ok([ 'pg_dump', '-Fc', '-d', 'upd', '-f', "$tmp/upd.dump" ],
	'pg_dump of the updated database');
$node->safe_psql('postgres', 'CREATE DATABASE restored');
$node->command_ok(
	[ 'pg_restore', '--exit-on-error', '-d', 'restored', "$tmp/upd.dump" ],
	'pg_restore of the updated database');
is($node->safe_psql('restored', $catalog_sql),
	$catalog_fresh, 'the restored database has the fresh catalog');
is($node->safe_psql('restored', fingerprint_sql('legacy')),
	$before{legacy_fp}, 'the restored format-1 values are byte for byte the originals');
is($node->safe_psql('restored', fingerprint_sql('stored')),
	$before{stored_fp}, 'the restored filters are byte for byte the originals');
is($node->safe_psql('restored', $views_sql),
	'v_agg groups=5 misses=0; v_union misses=0; mv_agg groups=5 misses=0; mv_union misses=0',
	'the restored views and materialized views answer without false negatives');
my $w4_fp_sql = q{
	SELECT string_agg(format('%s %s %s', id, op, md5(f::bytea)), ',' ORDER BY id, op) FROM f23_w4};
is($node->safe_psql('restored', $f23_fp_sql),
	$f23_fp, 'the restored values 1.2 wrote are byte for byte the originals');
is($node->safe_psql('restored', $w4_fp_sql),
	$node->safe_psql('upd', $w4_fp_sql),
	'the restored values 1.3 wrote over them are byte for byte the originals');

# The dump taken at 1.0 restores too: the restore creates the extension at
# the default version, 1.4, and loads the format-1 values and the views.
$node->safe_psql('postgres', 'CREATE DATABASE restored10');
$node->command_ok(
	[ 'pg_restore', '--exit-on-error', '-d', 'restored10', "$tmp/upd10.dump" ],
	'pg_restore of the dump taken at 1.0 into a server with 1.4');
is( $node->safe_psql(
		'restored10', q{SELECT extversion FROM pg_extension WHERE extname = 'sbf'}),
	'1.4',
	'the dump taken at 1.0 restores as extension version 1.4');
is($node->safe_psql('restored10', $catalog_sql),
	$catalog_fresh, 'and with the fresh catalog');
is($node->safe_psql('restored10', fingerprint_sql('legacy')),
	$before{legacy_fp}, 'its format-1 values are byte for byte the originals');
is($node->safe_psql('restored10', answers_sql('legacy', 'legacy_members')),
	$before{legacy}, 'and answer exactly as before');
is($node->safe_psql('restored10', fingerprint_sql('stored')),
	$before{stored_fp}, 'its other filters are byte for byte the originals');
is( $node->safe_psql('restored10', $views_sql),
	'v_agg groups=5 misses=0; v_union misses=0; mv_agg groups=5 misses=0; mv_union misses=0',
	'its views and materialized views answer without false negatives');

$node->stop;
done_testing();
