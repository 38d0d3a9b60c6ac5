# Copyright (c) sbf contributors

=pod

=head1 NAME

SbfOid - the set-up shared by the TOAST value id reuse tests (008_*)

=head1 SYNOPSIS

  use FindBin;
  use lib "$FindBin::RealBin/../perl";
  use SbfOid;

  my $node = SbfOid::start('oidreuse');   # a cluster with sbf, the helper
                                          # functions and the tables src, r

=head1 DESCRIPTION

Builds the test-only module in F<test/t/oid_helper> (which forces the next
OID and reports a stored value's TOAST value id) in a temporary copy, starts
a cluster, and creates there: the extension; the functions
C<sbf_test_set_next_oid(oid)> and C<sbf_test_toast_value_id(scalablebloom)>;
a table C<src> with the filters C<'a'> (a1 .. a2500), C<'b'> (b1 .. b2500)
and C<'c'> (C<'a'> with every bit after its first 2,100 bytes cleared: the
same first TOAST chunk as C<'a'>, a different value); and an empty table
C<r (name text, f scalablebloom)>.  Reports the helper's build as one test.

=cut

package SbfOid;

use strict;
use warnings FATAL => 'all';

use File::Copy;
use FindBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

sub start
{
	my ($name) = @_;

	my $build = PostgreSQL::Test::Utils::tempdir('oid_helper');
	for my $f ('Makefile', 'sbf_test_oid.c')
	{
		copy("$FindBin::RealBin/oid_helper/$f", "$build/$f")
		  or die "copy $f: $!";
	}
	my $pg_config = $ENV{PG_CONFIG} // 'pg_config';
	my ($out, $err) =
	  run_command([ 'make', '-s', '-C', $build, "PG_CONFIG=$pg_config" ]);
	ok(-f "$build/sbf_test_oid.so", 'the test-only helper module builds')
	  or diag($out . $err);

	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->start;
	$node->safe_psql(
		'postgres', qq{
CREATE EXTENSION sbf;
CREATE FUNCTION sbf_test_set_next_oid(oid) RETURNS void
	AS '$build/sbf_test_oid.so' LANGUAGE C STRICT;
CREATE FUNCTION sbf_test_toast_value_id(scalablebloom) RETURNS oid
	AS '$build/sbf_test_oid.so' LANGUAGE C STRICT;
CREATE TABLE src (name text PRIMARY KEY, f scalablebloom NOT NULL);
INSERT INTO src SELECT n, sbf_add(sbf_empty(3000), ARRAY(SELECT n || i FROM generate_series(1, 2500) i))
FROM (VALUES ('a'), ('b')) v(n);
INSERT INTO src SELECT 'c', overlay(f::bytea PLACING decode(repeat('00', 2000), 'hex') FROM 2101)::scalablebloom
FROM src WHERE name = 'a';
CREATE TABLE r (name text, f scalablebloom);
});
	return $node;
}

1;
