# Copyright (c) sbf contributors

# Nothing lost in transit: filters of every shape (NULL, empty, one element,
# the seed's fixed segments, grown by adds, right-sized by sbf_agg, TOASTed,
# bytea elements, unions, odd parameters) come back byte for byte through
#   - pg_dump -Fc | pg_restore into a new database,
#   - pg_dump -Fd -j 2 | pg_restore -j 2 --create on a second server,
#   - pg_dump --inserts (text literals) replayed by psql,
#   - COPY binary, text and csv, out and back in, on the same server and
#     (binary) across servers,
# compared by md5 of the payload (f::bytea) and of the text form, and still
# contain every element they were built from.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $tmp = PostgreSQL::Test::Utils::tempdir;

my $node = PostgreSQL::Test::Cluster->new('source');
$node->init;
$node->append_conf('postgresql.conf', 'log_statement = none');
$node->start;

my $node2 = PostgreSQL::Test::Cluster->new('target');
$node2->init;
$node2->append_conf('postgresql.conf', 'log_statement = none');
$node2->start;

# The elements each filter was built from, so that every copy can be probed;
# kind is the element type the filter was given.
$node->safe_psql('postgres', 'CREATE DATABASE sbfsrc');
$node->safe_psql(
	'sbfsrc', q{
	CREATE EXTENSION sbf;
	CREATE TABLE members (id int NOT NULL, kind text NOT NULL, e text NOT NULL);
	INSERT INTO members
		SELECT 3, 'text', 'sku:42'
		UNION ALL SELECT 4, 'text', 'g1:' || g::text FROM generate_series(1, 400) g
		UNION ALL SELECT 5, 'text', 'grow:' || g::text FROM generate_series(1, 50000) g
		UNION ALL SELECT 6, 'bigint', g::text FROM generate_series(1, 100000) g
		UNION ALL SELECT 7, 'text', 't:' || g::text FROM generate_series(1, 20000) g
		UNION ALL SELECT 8, 'bytea', 'b:' || g::text FROM generate_series(1, 1000) g
		UNION ALL SELECT 9, 'text', 'grow:' || g::text FROM generate_series(1, 50000) g
		UNION ALL SELECT 9, 'text', 'u:' || g::text FROM generate_series(1, 3000) g
		UNION ALL SELECT 10, 'text', 'g4:' || g::text FROM generate_series(1, 5000) g;

	CREATE TABLE filters (id int PRIMARY KEY, what text NOT NULL, f scalablebloom);
	INSERT INTO filters VALUES
		(1, 'NULL', NULL),
		(2, 'empty, default parameters', sbf_empty()),
		(3, 'one element', sbf_add(sbf_empty(), 'sku:42'::text)),
		(4, 'the seed''s fixed segments: growth 1, no tightening',
		 sbf_add(sbf_empty(50, 0.01, 1, 1.0),
				 ARRAY(SELECT e FROM members WHERE id = 4))),
		(5, 'grown by a batch add from capacity 100',
		 sbf_add(sbf_empty(100), ARRAY(SELECT e FROM members WHERE id = 5))),
		(6, 'sbf_agg of 100000 bigints, stored out of line',
		 (SELECT sbf_agg(e::bigint) FROM members WHERE id = 6)),
		(7, 'sbf_agg at error rate 1e-6',
		 (SELECT sbf_agg(e, 1e-6) FROM members WHERE id = 7)),
		(8, 'bytea elements',
		 (SELECT sbf_agg(convert_to(e, 'UTF8')) FROM members WHERE id = 8)),
		(10, 'error rate 0.2, growth 4, tightening 0.5',
		 sbf_add(sbf_empty(100, 0.2, 4, 0.5),
				 ARRAY(SELECT e FROM members WHERE id = 10)));
	INSERT INTO filters
		SELECT 9, 'union of a grown filter and an aggregated one',
			   sbf_union(f, (SELECT sbf_agg(e) FROM members
							 WHERE id = 9 AND e LIKE 'u:%'), 0.02)
		FROM filters WHERE id = 5;
});

# One line per filter: id, size, md5 of the payload and of the text form.
my $fingerprint_sql = q{
	SELECT string_agg(format('%s %s %s %s', id, pg_column_size(f),
							 md5(f::bytea), md5(f::text)), E'\n' ORDER BY id)
	FROM filters};

# Logged elements not contained in their filter: must be 0 (no false
# negatives).
my $misses_sql = q{
	SELECT count(*)
	FROM members m JOIN filters USING (id)
	WHERE NOT coalesce(
		CASE m.kind
			WHEN 'bigint' THEN f @> m.e::bigint
			WHEN 'bytea' THEN f @> convert_to(m.e, 'UTF8')
			ELSE f @> m.e
		END, false)};

my $source = $node->safe_psql('sbfsrc', $fingerprint_sql);
my $members = $node->safe_psql('sbfsrc', 'SELECT count(*) FROM members');
note("source filters (id, bytes, md5 of payload, md5 of text):\n$source");
is($node->safe_psql('sbfsrc', $misses_sql),
	0, "the source filters contain all $members elements");
my $toasted = $node->safe_psql('sbfsrc',
	'SELECT count(*) FROM filters WHERE pg_column_size(f) > 2000');
cmp_ok($toasted, '>=', 3, "$toasted filters are large enough to be TOASTed");

# Checks a copy of the filters table against the source.
sub same_as_source
{
	my ($n, $db, $what, $table) = @_;
	$table //= 'filters';

	my $sql = $fingerprint_sql;
	my $msql = $misses_sql;
	if ($table ne 'filters')
	{
		$sql =~ s/\bFROM filters\b/FROM $table/;
		$msql =~ s/\bJOIN filters\b/JOIN $table/;
	}
	is($n->safe_psql($db, $sql), $source,
		"$what: every filter is byte for byte the source's");
	is($n->safe_psql($db, $msql), 0,
		"$what: every element is still contained");
	return;
}

# pg_dump -Fc, pg_restore into a new database.
$node->command_ok(
	[ 'pg_dump', '-Fc', '-d', 'sbfsrc', '-f', "$tmp/sbfsrc.dump" ],
	'pg_dump -Fc');
$node->safe_psql('postgres', 'CREATE DATABASE restored_fc');
$node->command_ok(
	[ 'pg_restore', '--exit-on-error', '-d', 'restored_fc', "$tmp/sbfsrc.dump" ],
	'pg_restore into a new database');
same_as_source($node, 'restored_fc', 'pg_dump -Fc | pg_restore');

# pg_dump -Fd with two jobs, restored with two jobs on another server.
$node->command_ok(
	[ 'pg_dump', '-Fd', '-j', '2', '-d', 'sbfsrc', '-f', "$tmp/sbfsrc.dir" ],
	'pg_dump -Fd -j 2');
$node2->command_ok(
	[
		'pg_restore', '--exit-on-error', '-j', '2', '--create',
		'-d', 'postgres', "$tmp/sbfsrc.dir"
	],
	'pg_restore -j 2 --create on a second server');
same_as_source($node2, 'sbfsrc', 'pg_dump -Fd | pg_restore on another server');

# A plain dump with INSERT statements goes through the text form.
$node->command_ok(
	[ 'pg_dump', '--inserts', '--rows-per-insert=1000', '-d', 'sbfsrc', '-f', "$tmp/sbfsrc.sql" ],
	'pg_dump --inserts --rows-per-insert=1000');
$node->safe_psql('postgres', 'CREATE DATABASE restored_inserts');
$node->command_ok(
	[
		'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1',
		'-d', 'restored_inserts', '-f', "$tmp/sbfsrc.sql"
	],
	'psql replays the INSERT dump');
same_as_source($node, 'restored_inserts', 'pg_dump --inserts | psql');

# COPY out and back in, in each format.
foreach my $format ('binary', 'text', 'csv')
{
	my $file = "$tmp/filters.$format";
	$node->safe_psql(
		'sbfsrc', qq{
		COPY filters TO '$file' WITH (FORMAT $format);
		CREATE TABLE filters_$format (LIKE filters INCLUDING ALL);
		COPY filters_$format FROM '$file' WITH (FORMAT $format);
	});
	same_as_source($node, 'sbfsrc', "COPY (FORMAT $format) out and in",
		"filters_$format");
}

# COPY binary into another server (its own installation of the extension).
$node2->safe_psql(
	'postgres', qq{
	CREATE EXTENSION sbf;
	CREATE TABLE filters (id int PRIMARY KEY, what text NOT NULL, f scalablebloom);
	CREATE TABLE members (id int NOT NULL, kind text NOT NULL, e text NOT NULL);
	COPY filters FROM '$tmp/filters.binary' WITH (FORMAT binary);
});
$node->safe_psql('sbfsrc',
	"COPY members TO '$tmp/members.binary' WITH (FORMAT binary)");
$node2->safe_psql('postgres',
	"COPY members FROM '$tmp/members.binary' WITH (FORMAT binary)");
same_as_source($node2, 'postgres', 'COPY (FORMAT binary) to another server');

$node->stop;
$node2->stop;
done_testing();
