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

use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SbfOid;

my $node = SbfOid::start('oidreusesub');

$node->safe_psql(
	'postgres', qq{
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
