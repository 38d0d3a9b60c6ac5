# Copyright (c) sbf contributors

# The session cache (sbf.cache_size) across sessions: session A keeps stored
# filters detoasted across its queries while session B changes them (UPDATE,
# DELETE + VACUUM + a new row, VACUUM FULL, CLUSTER, TRUNCATE, a transaction
# that commits while A reads, and a REPEATABLE READ snapshot in A).  Every
# answer A gives must be that of the value its query's snapshot sees.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('cache');
$node->init;
$node->start;

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION sbf;
CREATE TABLE f (id int PRIMARY KEY, seen scalablebloom NOT NULL);
INSERT INTO f SELECT u, (SELECT sbf_agg('u' || u || '-' || i) FROM generate_series(1, 3000) i)
FROM generate_series(1, 3) u;
-- user 4 is large (about 600 kB)
INSERT INTO f SELECT 4, (SELECT sbf_agg('u4-' || i) FROM generate_series(1, 500000) i);
});

my $a = $node->background_psql('postgres', on_error_stop => 1);
$a->query('SET client_min_messages = debug2');

# What session A answers for element $elem of user $id.
sub ask
{
	my ($id, $elem) = @_;
	my $r = $a->query("SELECT seen \@> '$elem' FROM f WHERE id = $id");
	die "session A failed: $a->{stderr}" if $a->{stderr} =~ /ERROR/;
	return $r;
}

# Reads every user a few times so that A keeps them for the session.
sub warm
{
	for my $round (1 .. 3)
	{
		for my $id (1 .. 4)
		{
			ask($id, "u$id-1");
		}
	}
}

warm();
$a->{stderr} = '';
is(ask(1, 'u1-5'), 't', 'a cached value answers');
like($a->{stderr}, qr/using the session's copy/, 'session A reads from its cache');
is(ask(4, 'u4-77'), 't', 'the large value is cached too');

# UPDATE in session B
$node->safe_psql('postgres', "UPDATE f SET seen = seen || 'b-upd' WHERE id IN (1, 4)");
is(ask(1, 'b-upd'), 't', 'after an UPDATE in another session: the new value');
is(ask(4, 'b-upd'), 't', 'after an UPDATE in another session: the new large value');
is(ask(2, 'b-upd'), 'f', 'an untouched cached value still answers for itself');
warm();

# DELETE, VACUUM and a new row with other contents under the same key
$node->safe_psql('postgres', 'DELETE FROM f WHERE id = 2');
$node->safe_psql('postgres', 'VACUUM f');
$node->safe_psql('postgres',
	"INSERT INTO f SELECT 2, (SELECT sbf_agg('v2-' || i) FROM generate_series(1, 3000) i)");
is(ask(2, 'u2-1') . ask(2, 'v2-1'), 'ft', 'after DELETE + VACUUM + INSERT: the new row');
is(ask(2, 'u2-1') . ask(2, 'v2-1'), 'ft', 'and again from the cache');

# VACUUM FULL and CLUSTER keep value ids but rewrite the chunks
warm();
$a->{stderr} = '';
$node->safe_psql('postgres', 'VACUUM FULL f');
is(ask(3, 'u3-9'), 't', 'after VACUUM FULL in another session');
like($a->{stderr}, qr/changed, reading it again/, 'the rewritten value is read again');
$node->safe_psql('postgres', "UPDATE f SET seen = seen || 'b-vf' WHERE id = 3");
$node->safe_psql('postgres', 'CLUSTER f USING f_pkey');
is(ask(3, 'b-vf'), 't', 'after UPDATE + CLUSTER in another session');

# TRUNCATE and new rows
warm();
$node->safe_psql(
	'postgres', q{
BEGIN;
TRUNCATE f;
INSERT INTO f SELECT u, (SELECT sbf_agg('w' || u || '-' || i) FROM generate_series(1, 3000) i)
FROM generate_series(1, 4) u;
COMMIT;
});
# the new rows' answers for the old members as a fresh session reads them
# (where a new value's false positive makes one 't', the new member still
# tells the rows apart)
my $new_rows = $node->safe_psql('postgres',
	q{SELECT string_agg(CASE WHEN seen @> ('u' || id || '-1') THEN 'tt' ELSE 'ft' END, '' ORDER BY id)
	  FROM f});
is(join('', map { ask($_, "u$_-1") . ask($_, "w$_-1") } 1 .. 4),
	$new_rows, 'after TRUNCATE + INSERT in another session: the new rows');
like($new_rows, qr/^(?:f|t)t(?:f|t)t(?:f|t)t(?:f|t)t$/, 'and each new row holds its new member');
warm();

# a transaction in session B that commits between two reads of session A
my $b = $node->background_psql('postgres', on_error_stop => 1);
$b->query_safe("BEGIN; UPDATE f SET seen = seen || 'b-tx' WHERE id = 1");
is(ask(1, 'b-tx'), 'f', 'an uncommitted change is not seen');
$b->query_safe('COMMIT');
is(ask(1, 'b-tx'), 't', 'the committed change is seen');

# REPEATABLE READ in session A: its snapshot's value, also from the cache
warm();
$a->query('BEGIN ISOLATION LEVEL REPEATABLE READ');
is(ask(1, 'b-rr'), 'f', 'repeatable read: before');
$b->query_safe("UPDATE f SET seen = seen || 'b-rr' WHERE id = 1");
is(ask(1, 'b-rr'), 'f', 'repeatable read: the snapshot still has the old value');
is(ask(1, 'b-rr'), 'f', 'repeatable read: again');
$a->query('COMMIT');
is(ask(1, 'b-rr'), 't', 'after the transaction: the new value');

# B rolls back: A must not see the change
$b->query_safe("BEGIN; UPDATE f SET seen = seen || 'b-rb' WHERE id = 2");
$b->query_safe('ROLLBACK');
is(ask(2, 'b-rb'), 'f', 'a rolled back change is never seen');

$a->quit;
$b->quit;
$node->stop;
done_testing();
