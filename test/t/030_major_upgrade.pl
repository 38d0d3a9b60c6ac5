# Copyright (c) sbf contributors

# Moving a database from PostgreSQL 15 to the major under test (17, 18 or 19)
# keeps every value.  A 15 cluster
# is filled with scalablebloom values of every form (exact, segmented by
# sbf_agg, grown by adds, a TOASTed filter of several MB), sbf_hashset
# values, a view and a materialized view on sbf_agg and an expression index
# on (seen @> 'x').  Then both roads to the new major are taken:
#   - pg_upgrade (the new major's, with sbf installed in it), and
#   - 15's pg_dump -Fc restored by the new major's pg_restore,
# and every value must be byte-identical (md5 of the payload before and
# after), and @>, sbf_matches, #, sbf_info, the views and the index must
# answer exactly as before.
#
# Runs in the TAP suite of every major after 15 (the modules under test are
# the new major's); the old installation is named by SBF_UPGRADE_FROM (a
# directory with bin/pg_config, e.g. /usr/lib/postgresql/15) and must have
# sbf installed.  test/run_all.sh sets it when it has run 15 first (in the
# Debian roots of 17 and 19, to a copy of this machine's 15 that runs there,
# see test/root_host15.sh).

use strict;
use warnings;

use File::Path qw(rmtree);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $old_install = $ENV{SBF_UPGRADE_FROM} // '';
if ($old_install eq '' || !-x "$old_install/bin/pg_config")
{
	plan skip_all => 'SBF_UPGRADE_FROM names no older installation';
}
my ($old_lib) = run_command([ "$old_install/bin/pg_config", '--pkglibdir' ]);
my ($old_share) = run_command([ "$old_install/bin/pg_config", '--sharedir' ]);
chomp($old_lib, $old_share);
if (!-f "$old_lib/sbf.so" || !-f "$old_share/extension/sbf.control")
{
	plan skip_all => "sbf is not installed in $old_install";
}

my $old = PostgreSQL::Test::Cluster->new('old', install_path => $old_install);
my $new = PostgreSQL::Test::Cluster->new('new');
if ($old->pg_version->major >= $new->pg_version->major)
{
	plan skip_all => 'SBF_UPGRADE_FROM is not an older major than the one under test';
}
my $to = $new->pg_version->major;

$old->init;
$old->append_conf('postgresql.conf', "log_statement = none\n");
$old->start;

my $db = 'sbfdata';
$old->safe_psql('postgres', "CREATE DATABASE $db");

# The elements each filter was built from; probes are a sample of them, the
# same number of elements never added, and 'x'.
$old->safe_psql(
	$db, q{
	CREATE EXTENSION sbf;
	CREATE TABLE members (id int NOT NULL, e text NOT NULL);
	INSERT INTO members
		SELECT 1, 'ex:' || g FROM generate_series(1, 5) g
		UNION ALL SELECT 2, 'agg:' || g FROM generate_series(1, 20000) g
		UNION ALL SELECT 3, 'grow:' || g FROM generate_series(1, 30000) g
		UNION ALL SELECT 4, 'big:' || g FROM generate_series(1, 1500000) g
		UNION ALL SELECT 5, 'x'
		UNION ALL SELECT 5, 'v:' || g FROM generate_series(1, 200) g;

	CREATE TABLE filters (id int PRIMARY KEY, what text NOT NULL,
						  seen scalablebloom NOT NULL);
	INSERT INTO filters VALUES
		(1, 'exact (small form)',
		 sbf_add(sbf_empty(), ARRAY(SELECT e FROM members WHERE id = 1))),
		(2, 'segmented, right-sized by sbf_agg',
		 (SELECT sbf_agg(e) FROM members WHERE id = 2)),
		(3, 'grown by adds from capacity 100',
		 sbf_add(sbf_empty(100), ARRAY(SELECT e FROM members WHERE id = 3))),
		(4, 'several MB, TOASTed',
		 (SELECT sbf_agg(e, 1e-5) FROM members WHERE id = 4)),
		(5, 'holds x', (SELECT sbf_agg(e) FROM members WHERE id = 5));
	CREATE INDEX filters_has_x ON filters ((seen @> 'x'::text));

	CREATE TABLE sets (id int PRIMARY KEY, h sbf_hashset NOT NULL);
	INSERT INTO sets SELECT id, sbf_hashset_agg(e) FROM members GROUP BY id;

	CREATE VIEW v_filters AS
		SELECT id, sbf_agg(e) AS f FROM members GROUP BY id;
	CREATE MATERIALIZED VIEW mv_filters AS
		SELECT id, sbf_agg(e) AS f FROM members GROUP BY id;
	CREATE TABLE probes AS
		SELECT e FROM members WHERE id <> 4 OR e LIKE 'big:1%0'
		UNION ALL SELECT 'never:' || g FROM generate_series(1, 3000) g;
	ANALYZE;
});

my $size = $old->safe_psql($db,
	"SELECT pg_column_size(seen) FROM filters WHERE id = 4");
my $raw = $old->safe_psql($db,
	"SELECT octet_length(seen::bytea) FROM filters WHERE id = 4");
cmp_ok($raw, '>', 2_000_000, "the big filter has $raw bytes (several MB)");

# Everything a user can ask, one line per answer, in a fixed order.
my $answers_sql = q{
	SELECT string_agg(line, E'\n' ORDER BY line) FROM (
		SELECT format('filter %s %s %s %s %s', id, md5(seen::bytea), md5(seen::text),
					  # seen, md5(sbf_info(seen)::text)) AS line
		FROM filters
		UNION ALL
		SELECT format('contains %s %s', f.id,
					  md5(string_agg(CASE WHEN f.seen @> p.e THEN '1' ELSE '0' END, ''
									 ORDER BY p.e)))
		FROM filters f, probes p GROUP BY f.id
		UNION ALL
		SELECT format('matches %s %s', f.id,
					  sbf_matches(f.seen, ARRAY(SELECT e FROM probes)))
		FROM filters f
		UNION ALL
		SELECT format('set %s %s %s %s', id, md5(h::text), # h,
					  md5(sbf_build(h)::bytea)) FROM sets
		UNION ALL
		SELECT format('view %s %s', id, md5(f::bytea)) FROM v_filters
		UNION ALL
		SELECT format('matview %s %s', id, md5(f::bytea)) FROM mv_filters
	) s;
};
# The expression index answers, and is the plan that answers.
my $index_sql = q{
	SET enable_seqscan = off;
	SELECT string_agg(id::text, ',' ORDER BY id) FROM filters WHERE seen @> 'x'::text;
};
my $before = $old->safe_psql($db, $answers_sql);
is(scalar(split /\n/, $before), 30,
	'30 answers recorded on 15 (5 filters, probes, matches, sets, view, matview)');
my $index_before = $old->safe_psql($db, $index_sql);
is($index_before, '5', 'the index finds the filter holding x on 15');
like(
	$old->safe_psql($db,
		"SET enable_seqscan = off; EXPLAIN SELECT id FROM filters WHERE seen @> 'x'::text"),
	qr/filters_has_x/, 'the expression index is used on 15');

# Road 1: 15's pg_dump -Fc, restored by the new major's pg_restore.
my $dump = PostgreSQL::Test::Utils::tempdir . '/sbf15.dump';
command_ok(
	[ "$old_install/bin/pg_dump", '-Fc', '-d', $old->connstr($db), '-f', $dump ],
	"15's pg_dump -Fc");
my $restored = PostgreSQL::Test::Cluster->new('restored');
$restored->init;
$restored->append_conf('postgresql.conf', "log_statement = none\n");
$restored->start;
command_ok(
	[ 'pg_restore', '--create', '--exit-on-error', '-d', $restored->connstr('postgres'), $dump ],
	"${to}'s pg_restore of the 15 dump");
is($restored->safe_psql($db, $answers_sql), $before,
	'after dump/restore every value is byte-identical and answers as on 15');
is($restored->safe_psql($db, $index_sql), $index_before,
	'after dump/restore the expression index answers as on 15');
is($restored->safe_psql($db,
	"SELECT extversion = (SELECT default_version FROM pg_available_extensions WHERE name = 'sbf') FROM pg_extension WHERE extname = 'sbf'"),
	't', "the restore created the extension at the version installed in $to");
$restored->stop;

# Road 2: pg_upgrade.  Debian's 15.20 stamps every column with an attribute
# option pg_attver that a server from an earlier set of minor releases (18.6)
# does not know; pg_upgrade's schema restore then fails for any table, sbf's
# or not.  The option is a packaging artefact with no meaning to sbf, so it
# is cleared in the old cluster first.
$old->safe_psql($_, q{
	SET allow_system_table_mods = on;
	UPDATE pg_attribute
	   SET attoptions = NULLIF(ARRAY(SELECT o FROM unnest(attoptions) o
									 WHERE o NOT LIKE 'pg_attver=%'), '{}')
	 WHERE attoptions::text LIKE '%pg_attver=%';
}) for ('postgres', 'template1', $db);
$old->stop;

# initdb enables data checksums by default from 18 on and 15's did not:
# pg_upgrade needs both alike
$new->init(extra => $to >= 18 ? ['--no-data-checksums'] : []);
my $workdir = PostgreSQL::Test::Utils::tempdir;
chdir $workdir;
command_ok(
	[
		'pg_upgrade', '--no-sync',
		'-b', $old->config_data('--bindir'),
		'-B', $new->config_data('--bindir'),
		'-d', $old->data_dir, '-D', $new->data_dir,
		'-s', $new->host, '-p', $old->port, '-P', $new->port,
		'--copy'
	],
	"pg_upgrade from 15 to $to");
$new->start;
is($new->safe_psql($db, $answers_sql), $before,
	'after pg_upgrade every value is byte-identical and answers as on 15');
is($new->safe_psql($db, $index_sql), $index_before,
	'after pg_upgrade the expression index answers as on 15');
like(
	$new->safe_psql($db,
		"SET enable_seqscan = off; EXPLAIN SELECT id FROM filters WHERE seen @> 'x'::text"),
	qr/filters_has_x/, 'after pg_upgrade the expression index is used');
is($new->safe_psql($db, 'SELECT pg_column_size(seen) FROM filters WHERE id = 4'),
	$size, 'the TOASTed filter keeps its stored size');
# the upgraded extension keeps its version; it updates in place
$new->safe_psql($db, 'ALTER EXTENSION sbf UPDATE');
is($new->safe_psql($db, $answers_sql), $before,
	"after ALTER EXTENSION sbf UPDATE on $to every value still answers as on 15");
$new->safe_psql($db, 'REFRESH MATERIALIZED VIEW mv_filters');
is($new->safe_psql($db, $answers_sql), $before,
	"REFRESH MATERIALIZED VIEW on $to rebuilds the same bytes");
$new->stop;

done_testing();
