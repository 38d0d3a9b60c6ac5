# Copyright (c) sbf contributors

# TOAST value-id reuse after a rolled-back subtransaction, inside one
# PL/pgSQL call.  The function stores a value in a subtransaction, looks it
# up, and rolls the subtransaction back; the chunks it wrote are dead at once,
# and with no invalidation sent.  After an index scan has killed their index
# entries, a test-only C function (test/t/oid_helper, built in a temporary
# directory, never installed) sets the OID counter back, so the next value
# stored gets the same TOAST pointer (toast relation, value id, sizes).  The
# same lookup expression -- a simple expression, which runs under its
# caller's snapshot, so one command for the cache's tags -- must then answer
# for the new value: with the session cache off (the call site's private
# copy) and on (the session entry), for a new value that differs from the
# old one everywhere and for one that shares its first TOAST chunk byte for
# byte, and also when the old value was read again after the rollback.

use strict;
use warnings;

use File::Copy;
use FindBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $build = PostgreSQL::Test::Utils::tempdir('oid_helper');
for my $f ('Makefile', 'sbf_test_oid.c')
{
	copy("$FindBin::RealBin/oid_helper/$f", "$build/$f") or die "copy $f: $!";
}
my $pg_config = $ENV{PG_CONFIG} // 'pg_config';
my ($out, $err) = run_command([ 'make', '-s', '-C', $build, "PG_CONFIG=$pg_config" ]);
ok(-f "$build/sbf_test_oid.so", 'the test-only helper module builds') or diag($out . $err);

my $node = PostgreSQL::Test::Cluster->new('oidreusesub');
$node->init;
$node->start;

$node->safe_psql(
	'postgres', qq{
CREATE EXTENSION sbf;
CREATE FUNCTION sbf_test_set_next_oid(oid) RETURNS void
	AS '$build/sbf_test_oid.so' LANGUAGE C STRICT;
CREATE FUNCTION sbf_test_toast_value_id(scalablebloom) RETURNS oid
	AS '$build/sbf_test_oid.so' LANGUAGE C STRICT;
-- 'a' holds a1 .. a2500, 'b' holds b1 .. b2500, 'c' is 'a' with every bit
-- after its first 2,100 bytes cleared (the same first TOAST chunk as 'a')
CREATE TABLE src (name text PRIMARY KEY, f scalablebloom NOT NULL);
INSERT INTO src SELECT n, sbf_add(sbf_empty(3000), ARRAY(SELECT n || i FROM generate_series(1, 2500) i))
FROM (VALUES ('a'), ('b')) v(n);
INSERT INTO src SELECT 'c', overlay(f::bytea PLACING decode(repeat('00', 2000), 'hex') FROM 2101)::scalablebloom
FROM src WHERE name = 'a';
CREATE TABLE r (name text, f scalablebloom);
-- an MVCC index scan of r's toast table for one value id: the dead chunks'
-- index entries are killed, so the value id may be handed out again
CREATE FUNCTION kill_dead(vid oid) RETURNS void LANGUAGE plpgsql AS \$\$
BEGIN
	SET LOCAL enable_seqscan = off;
	SET LOCAL enable_bitmapscan = off;
	SET LOCAL enable_indexonlyscan = off;
	EXECUTE format('SELECT sum(chunk_seq) FROM pg_toast.%I WHERE chunk_id = \$1',
		(SELECT t.relname FROM pg_class c JOIN pg_class t ON t.oid = c.reltoastrelid
		 WHERE c.relname = 'r'))
		USING vid;
END
\$\$;
-- stage 1 stores 'first' in a subtransaction, asks, rolls back; stage 2
-- (when reread) asks the rolled-back value again; stage 3 stores 'second'
-- under the same value id and asks.  One lookup expression for all stages.
CREATE FUNCTION sub_reuse(first text, second text, reread boolean) RETURNS text
LANGUAGE plpgsql AS \$\$
DECLARE
	v scalablebloom;
	vid oid;
	vid2 oid;
	arr_a text[] := ARRAY(SELECT 'a' || i FROM generate_series(1, 2500) i);
	arr_b text[] := ARRAY(SELECT 'b' || i FROM generate_series(1, 2500) i);
	res text := '';
BEGIN
	FOR stage IN 1..3 LOOP
		CONTINUE WHEN stage = 2 AND NOT reread;
		BEGIN
			IF stage = 1 THEN
				INSERT INTO r SELECT name, f FROM src WHERE name = first;
				v := (SELECT f FROM r);
				vid := sbf_test_toast_value_id(v);
			ELSIF stage = 3 THEN
				PERFORM kill_dead(vid);
				PERFORM sbf_test_set_next_oid(vid);
				INSERT INTO r SELECT name, f FROM src WHERE name = second;
				v := (SELECT f FROM r);
				vid2 := sbf_test_toast_value_id(v);
			END IF;
			res := res || (v @> 'a1'::text)::text || '|' || sbf_matches(v, arr_a) || '|' ||
				sbf_matches(v, arr_b) || ';';
			IF stage = 1 THEN
				RAISE EXCEPTION 'roll back';
			END IF;
		EXCEPTION WHEN raise_exception THEN
			NULL;
		END;
	END LOOP;
	DELETE FROM r;
	RETURN res || CASE WHEN vid = vid2 THEN 'same id' ELSE 'new id' END;
END
\$\$;
});

# The true answers for each value, from copies held in memory.
my %want;
for my $n ('a', 'b', 'c')
{
	$want{$n} = $node->safe_psql(
		'postgres', qq{
SELECT (f::bytea::scalablebloom @> 'a1'::text)::text || '|' ||
	   sbf_matches(f::bytea::scalablebloom, ARRAY(SELECT 'a' || i FROM generate_series(1, 2500) i)) || '|' ||
	   sbf_matches(f::bytea::scalablebloom, ARRAY(SELECT 'b' || i FROM generate_series(1, 2500) i))
FROM src WHERE name = '$n'});
}
isnt($want{a}, $want{c}, "'a' and 'c' answer differently: $want{a} / $want{c}");
isnt($want{a}, $want{b}, "'a' and 'b' answer differently: $want{a} / $want{b}");

for my $cache ('0', '32MB')
{
	for my $second ('b', 'c')
	{
		for my $reread (0, 1)
		{
			my $res = $node->safe_psql(
				'postgres', qq{
SET sbf.cache_size = '$cache';
SELECT sub_reuse('a', '$second', $reread = 1);
});
			my $exp = join(';', $want{a}, ($reread ? ($want{a}) : ()), $want{$second}) . ';same id';
			is($res, $exp,
				"cache $cache, a then $second"
				  . ($reread ? ', the old value read again after the rollback' : '')
				  . ': the lookup answers for the value under the reused id');
		}
	}
}

$node->stop;
done_testing();
