# Copyright (c) sbf contributors

# The largest values sbf creates can be written as text and read back
# (SBF_MAX_BYTES in src/core/common/sbf_core.h, "LIMITS"): a filter of about 805 MB
# goes out and back in through text output and input, COPY in text format
# and pg_dump / pg_restore, byte for byte; a capacity one larger is refused
# with 54000, and so is text input longer than the longest text form.
#
# Opt-in, because it needs about 4 GB of memory and minutes (7 on a busy
# 2-core machine): run with SBF_BIG_TESTS=1.  Without it, the boundary is still
# tested by arithmetic (test/unit/test_limits.c: limit_arithmetic,
# limit_create_boundary) and by the values just past it in
# sql/sbf_limits.sql, which are refused before anything is allocated.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);

plan skip_all =>
  'creates and dumps an 805 MB value; set SBF_BIG_TESTS=1 to run it'
  unless $ENV{SBF_BIG_TESTS};

my $tmp = PostgreSQL::Test::Utils::tempdir;
my $node = PostgreSQL::Test::Cluster->new('text_limit');
$node->init;
$node->append_conf('postgresql.conf', 'log_statement = none');
$node->start;
$node->safe_psql('postgres', 'CREATE DATABASE big');
$node->safe_psql('postgres', 'CREATE DATABASE big_restored');
$node->safe_psql('big', 'CREATE EXTENSION sbf');

my $t0 = time;

# The largest first segment at the default parameters (unit test
# limit_create_boundary), a little smaller so that the HyperLogLog of a few
# elements still fits, with some elements in it.  UNLOGGED: the test is
# about the value, not about writing it to the WAL.
$node->safe_psql(
	'big', q{
	CREATE UNLOGGED TABLE big (id int PRIMARY KEY, f scalablebloom);
	INSERT INTO big SELECT 1, sbf_empty(447652000) || ARRAY['a', 'b', 'c'];
});
my ($bytes, $textlen, $md5) = split /\|/, $node->safe_psql('big',
	'SELECT pg_column_size(f), octet_length(f::text), md5(f::bytea) FROM big');
note(sprintf('created a %d-byte value with a %d-character text form in %.1f s',
		$bytes, $textlen, time - $t0));
cmp_ok($bytes, '>', 804_000_000, 'the value is near the payload limit');
cmp_ok($textlen, '<', 1_073_741_823 - 1_000_000,
	'its text form fits in 1 GB with room for the rest of a COPY row');

# The same through text output and input in one statement.
is( $node->safe_psql(
		'big', 'SELECT md5(f::text::scalablebloom::bytea) = md5(f::bytea) FROM big'),
	't',
	'text output and input give the value back');

# COPY in text format, out to a file and back into another table.
$t0 = time;
$node->safe_psql(
	'big', qq{
	COPY big TO '$tmp/big.txt';
	CREATE UNLOGGED TABLE big_copy (LIKE big);
	COPY big_copy FROM '$tmp/big.txt';
});
is($node->safe_psql('big', 'SELECT md5(f::bytea) FROM big_copy'),
	$md5, 'COPY (FORMAT text) out and in gives the value back');
note(sprintf('COPY text out and in: %.1f s', time - $t0));
unlink "$tmp/big.txt";
$node->safe_psql('big', 'DROP TABLE big_copy');

# pg_dump and pg_restore (pg_dump carries data as COPY text).
$t0 = time;
$node->command_ok(
	[ 'pg_dump', '-Fc', '-Z', '1', '-d', 'big', '-f', "$tmp/big.dump" ],
	'pg_dump of a table holding the value');
$node->command_ok(
	[ 'pg_restore', '--exit-on-error', '-d', 'big_restored', "$tmp/big.dump" ],
	'pg_restore of it');
is($node->safe_psql('big_restored', 'SELECT md5(f::bytea) FROM big'),
	$md5, 'pg_dump / pg_restore gives the value back');
note(sprintf('pg_dump and pg_restore: %.1f s', time - $t0));
unlink "$tmp/big.dump";

# One element more than fits and one capacity more than fits: 54000.
my ($ret, $out, $err) = $node->psql('big',
	q{SELECT sbf_empty(447652206)});
like($err, qr/capacity 447652206 is too large/,
	'a capacity one larger is refused');
($ret, $out, $err) = $node->psql('big',
	q{SELECT pg_column_size(sbf_empty(447652205) || ARRAY(SELECT g::text FROM generate_series(1, 100) g))});
like($err, qr/would be too large/,
	'the largest empty filter cannot take the HyperLogLog of 100 elements');

# Text input longer than the longest text form, from a file.
$node->safe_psql(
	'big', qq{
	CREATE UNLOGGED TABLE big_text AS
		SELECT f::text || repeat('A', 1048576) AS t FROM big;
	COPY big_text TO '$tmp/long.txt';
	CREATE UNLOGGED TABLE big_in (f scalablebloom);
});
($ret, $out, $err) = $node->psql('big',
	qq{SET client_min_messages = error; COPY big_in FROM '$tmp/long.txt'},
	on_error_stop => 0);
like($err, qr/scalablebloom value is too large/,
	'text input longer than the longest text form is refused as too large');

$node->stop;
done_testing();
