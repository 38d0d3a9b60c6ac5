# Copyright (c) sbf contributors

# TOAST value-id reuse inside one statement.  A PL/pgSQL function called once
# per row TRUNCATEs a table and refills it; a test-only C function
# (test/t/oid_helper, built here in a temporary directory and loaded by path,
# never installed) sets the server's OID counter to the old value's id, so
# every new value is stored under the same TOAST pointer (toast relation,
# value id, sizes), at the same ctid, by the same transaction.  The lookups
# of the outer statement (@>, sbf_matches) must answer for the value each row
# really passes, with the session cache off (the call site's private copy)
# and on, and even when the two values share their first TOAST chunk byte
# for byte.

use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SbfOid;

my $node = SbfOid::start('oidreuse');

$node->safe_psql(
	'postgres', qq{
CREATE TABLE idlog (step serial, name text, valueid oid);
-- TRUNCATE r and refill it with src's value 'n' under the old value id
CREATE FUNCTION refill(n text) RETURNS scalablebloom LANGUAGE plpgsql AS \$\$
DECLARE
	vid oid;
BEGIN
	SELECT sbf_test_toast_value_id(r.f) INTO vid FROM r;
	TRUNCATE r;
	IF vid IS NOT NULL THEN
		PERFORM sbf_test_set_next_oid(vid);
	END IF;
	INSERT INTO r SELECT n, f FROM src WHERE name = n;
	INSERT INTO idlog (name, valueid) SELECT n, sbf_test_toast_value_id(r.f) FROM r;
	RETURN (SELECT r.f FROM r);
END
\$\$;
});

is( $node->safe_psql(
		'postgres',
		q{SELECT count(DISTINCT octet_length(f::bytea)) || ' ' || min(octet_length(f::bytea))
		  FROM src}) =~ /^1 (\d+)$/ && $1 > 4000 ? 'same size' : 'sizes differ',
	'same size',
	'the three values have the same size, over two TOAST chunks');
is( $node->safe_psql(
		'postgres',
		q{SELECT (SELECT substr(f::bytea, 1, 2100) FROM src WHERE name = 'a') =
				 (SELECT substr(f::bytea, 1, 2100) FROM src WHERE name = 'c'),
				 (SELECT f::bytea FROM src WHERE name = 'a') <>
				 (SELECT f::bytea FROM src WHERE name = 'c')}),
	't|t', "'a' and 'c' share their first 2,100 bytes and differ after them");

# The true answers for each value, from copies held in memory (never cached).
my %want;
for my $n ('a', 'b', 'c')
{
	$want{$n} = $node->safe_psql(
		'postgres', qq{
SELECT f::bytea::scalablebloom @> 'a1',
	   sbf_matches(f::bytea::scalablebloom, ARRAY(SELECT 'a' || i FROM generate_series(1, 2500) i)),
	   sbf_matches(f::bytea::scalablebloom, ARRAY(SELECT 'b' || i FROM generate_series(1, 2500) i))
FROM src WHERE name = '$n'});
}
isnt($want{a}, $want{c}, "'a' and 'c' answer differently: $want{a} / $want{c}");

# One statement refills r once per row in the order given, and asks each
# row's value; returns the answers, one line per row, and checks that every
# value after the first reused the first one's value id.
sub run_order
{
	my ($cache, @order) = @_;
	my $values = join(', ', map { "($_, '$order[$_ - 1]')" } 1 .. @order);
	my $res = $node->safe_psql(
		'postgres', qq{
SET sbf.cache_size = '$cache';
TRUNCATE idlog;
SELECT x.f @> 'a1',
	   sbf_matches(x.f, ARRAY(SELECT 'a' || i FROM generate_series(1, 2500) i)),
	   sbf_matches(x.f, ARRAY(SELECT 'b' || i FROM generate_series(1, 2500) i))
FROM (VALUES $values) v(ord, n), LATERAL (SELECT refill(v.n) AS f OFFSET 0) x
ORDER BY v.ord;
});
	my $ids = $node->safe_psql('postgres',
		'SELECT count(*), count(DISTINCT valueid), count(valueid) FROM idlog');
	return ($res, $ids);
}

for my $cache ('0', '32MB')
{
	for my $order ([ 'a', 'b', 'a', 'b' ], [ 'a', 'c', 'a', 'c' ], [ 'c', 'c', 'a', 'b', 'a' ])
	{
		# a fresh start: r empty, so the first value gets a new value id
		$node->safe_psql('postgres', 'TRUNCATE r');
		my ($res, $ids) = run_order($cache, @$order);
		my $n = scalar @$order;
		is($ids, "$n|1|$n",
			"cache $cache, order @$order: every refill reused one value id");
		is($res, join("\n", map { $want{$_} } @$order),
			"cache $cache, order @$order: each row answers for its own value");
	}
}

# the same in a transaction whose session cache already holds the value
$node->safe_psql('postgres', 'TRUNCATE r');
my $res = $node->safe_psql(
	'postgres', q{
BEGIN;
SELECT refill('a') IS NOT NULL;
SELECT f @> 'a1' FROM r;
SELECT f @> 'a1' FROM r;
SELECT f @> 'a1' FROM r;
SELECT x.f @> 'a1', sbf_matches(x.f, ARRAY(SELECT 'a' || i FROM generate_series(1, 2500) i))
FROM (VALUES (1, 'c'), (2, 'a'), (3, 'c')) v(ord, n), LATERAL (SELECT refill(v.n) AS f OFFSET 0) x
ORDER BY v.ord;
COMMIT;
});
my @w = map { (split /\|/, $want{$_})[0] . '|' . (split /\|/, $want{$_})[1] } ('c', 'a', 'c');
is($res, join("\n", 't', 't', 't', 't', @w),
	'with the value cached for the session: each row answers for its own value');

$node->stop;
done_testing();
