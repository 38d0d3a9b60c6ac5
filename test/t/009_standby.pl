# Copyright (c) sbf contributors

# The session cache on a hot standby.  A primary and a streaming replica; a
# session on the replica keeps stored filters cached (sbf.cache_size) and
# serves ranking queries (@>, sbf_matches) while the primary updates,
# deletes, VACUUMs, VACUUM FULLs, CLUSTERs and truncates them: first step by
# step, each step replayed before the replica asks, then concurrently with a
# pgbench load on the primary.  Every answer the replica gives must be that of
# the value its snapshot sees: equal, in the same statement, to the answer
# recomputed from a detoasted copy that no cache ever holds, and after each
# step equal to the primary's answers from detoasted copies.  No read may hit
# a removed TOAST chunk.

use strict;
use warnings;

use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
$primary->start;
$primary->safe_psql(
	'postgres', q{
CREATE EXTENSION sbf;
CREATE TABLE f (id int PRIMARY KEY, seen scalablebloom NOT NULL);
-- users 1 .. 5 about 5 kB each, user 6 about 600 kB: all stored out of line
CREATE TABLE f_src (id int PRIMARY KEY, seen scalablebloom NOT NULL);
INSERT INTO f_src SELECT u, (SELECT sbf_agg('u' || u || '-' || i) FROM generate_series(1, 3000) i)
FROM generate_series(1, 5) u;
INSERT INTO f_src SELECT 6, (SELECT sbf_agg('u6-' || i) FROM generate_series(1, 500000) i);
INSERT INTO f SELECT * FROM f_src;
});
$primary->backup('bk');

my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'bk', has_streaming => 1);
# replay waits for the replica's (short) queries instead of cancelling them
$standby->append_conf('postgresql.conf',
	"hot_standby_feedback = on\nmax_standby_streaming_delay = -1\n");
$standby->start;
$primary->wait_for_catchup($standby, 'replay');
is($standby->safe_psql('postgres', 'SELECT pg_is_in_recovery()'), 't', 'the replica is a hot standby');

# The ranking check, one statement: each row's answers through the cache (for
# 5 elements of user 1, 10 of user 2, ..., and the marks the steps below add,
# so that users' answers differ), and how
# many of them differ from those of a detoasted copy (::bytea::scalablebloom
# is a fresh value in memory, never cached) under the same snapshot.  A view,
# so that its call sites are the querying statement's own.
$primary->safe_psql(
	'postgres', q{
CREATE VIEW ranking_check AS
WITH e(elems) AS (SELECT ARRAY(SELECT 'u' || u || '-' || i FROM generate_series(1, 6) u,
									   generate_series(1, 5 * u) i)
						|| ARRAY['v2-1', 'w1-1', 'm1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8', 'm9',
								 'm10', 'm11', 'm12'])
SELECT string_agg(id || ':' || (seen @> 'm1')::int || ':' || sbf_matches(seen, elems), ' ' ORDER BY id)
		 AS answers,
	   count(*) FILTER (WHERE (seen @> 'm1') IS DISTINCT FROM (seen::bytea::scalablebloom @> 'm1')
				 OR sbf_matches(seen, elems) IS DISTINCT FROM sbf_matches(seen::bytea::scalablebloom, elems))
		 AS disagree
FROM f, e;
-- the same answers from detoasted copies only, on the primary
CREATE VIEW ranking_truth AS
WITH e(elems) AS (SELECT ARRAY(SELECT 'u' || u || '-' || i FROM generate_series(1, 6) u,
									   generate_series(1, 5 * u) i)
						|| ARRAY['v2-1', 'w1-1', 'm1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8', 'm9',
								 'm10', 'm11', 'm12'])
SELECT string_agg(id || ':' || (s @> 'm1')::int || ':' || sbf_matches(s, elems), ' ' ORDER BY id)
FROM (SELECT id, seen::bytea::scalablebloom AS s FROM f) x, e;
});
$primary->wait_for_catchup($standby, 'replay');
my $check = 'SELECT answers, disagree FROM ranking_check';

my $reader = $standby->background_psql('postgres', on_error_stop => 0);

my %stats = (queries => 0, cached => 0, errors => 0);
my @errors;

# Runs the check on the replica; returns (answers, disagreements).
sub ask
{
	$reader->{stderr} = '';
	my $r = $reader->query($check);
	$stats{queries}++;
	$stats{cached}++ if $reader->{stderr} =~ /using the session's copy/;
	$reader->{stderr} =~ s/^.*DEBUG:.*\n?//mg;
	while ($reader->{stderr} =~ /^.*(?:ERROR|FATAL|PANIC).*$/mg)
	{
		$stats{errors}++;
		push @errors, $&;
	}
	my ($answers, $disagree) = split /\|/, $r // '';
	return ($answers // '', $disagree // -1);
}

# Warm the replica's cache: every value read three times.
ask() for 1 .. 3;
$reader->query('SET client_min_messages = debug2');
my ($a0) = ask();
$reader->query('RESET client_min_messages');
ok($stats{cached} > 0, 'the replica answers from its session cache');
is($a0, $primary->safe_psql('postgres', 'SELECT * FROM ranking_truth'),
	'before any change the replica answers as the primary');

my @steps = (
	[ 'UPDATE', q{UPDATE f SET seen = seen || 'm1' WHERE id IN (1, 6)} ],
	[ 'DELETE + VACUUM + a new row', q{DELETE FROM f WHERE id = 2; VACUUM f;
INSERT INTO f SELECT 2, (SELECT sbf_agg('v2-' || i) FROM generate_series(1, 3000) i) || 'm2'} ],
	[ 'VACUUM FULL', q{VACUUM FULL f} ],
	[ 'UPDATE then VACUUM FULL', q{UPDATE f SET seen = seen || 'm4'; VACUUM FULL f} ],
	[ 'TRUNCATE and refill', q{BEGIN; TRUNCATE f;
INSERT INTO f SELECT id, CASE WHEN id = 1 THEN sbf_agg_w1 ELSE seen || 'm5' END
FROM f_src, LATERAL (SELECT (SELECT sbf_agg('w1-' || i) FROM generate_series(1, 3000) i) AS sbf_agg_w1) w;
COMMIT} ],
	[ 'CLUSTER', q{CLUSTER f USING f_pkey} ],
	[ 'a rolled back UPDATE', q{BEGIN; UPDATE f SET seen = seen || 'm7'; ROLLBACK} ],
	[ 'UPDATE of user 6 only', q{UPDATE f SET seen = seen || 'm1' WHERE id = 6} ],
	[ 'DELETE of every row, VACUUM, the same rows again',
		q{DELETE FROM f; VACUUM f; INSERT INTO f SELECT id, seen || 'm9' FROM f_src} ],);

for my $step (@steps)
{
	my ($name, $sql) = @$step;
	ask();                                   # cached before the step
	$primary->safe_psql('postgres', $sql);
	$primary->wait_for_catchup($standby, 'replay');
	my $want = $primary->safe_psql('postgres', 'SELECT * FROM ranking_truth');
	my ($first, $d1) = ask();
	my ($second, $d2) = ask();
	my ($third, $d3) = ask();
	is("$first / $second / $third", "$want / $want / $want",
		"after $name: the replica answers for the replayed value, also from its cache");
	is($d1 + $d2 + $d3, 0, "after $name: cached and uncached answers agree");
}

# Concurrently: pgbench on the primary changes the filters while the replica
# keeps asking.
my $dir = PostgreSQL::Test::Utils::tempdir;
PostgreSQL::Test::Utils::append_to_file("$dir/update.sql",
	"\\set id random(1, 6)\n\\set x random(1, 12)\n"
	  . "UPDATE f SET seen = seen || ('m' || :x) WHERE id = :id;\n");
PostgreSQL::Test::Utils::append_to_file("$dir/delete.sql",
	"\\set id random(1, 5)\nBEGIN;\nDELETE FROM f WHERE id = :id;\n"
	  . "INSERT INTO f SELECT id, seen FROM f_src WHERE id = :id;\nCOMMIT;\n");
PostgreSQL::Test::Utils::append_to_file("$dir/vacuum.sql", "VACUUM f;\n");
PostgreSQL::Test::Utils::append_to_file("$dir/vacuumfull.sql", "VACUUM FULL f;\n");
PostgreSQL::Test::Utils::append_to_file("$dir/truncate.sql",
	"BEGIN;\nLOCK f;\nTRUNCATE f;\nINSERT INTO f SELECT * FROM f_src;\nCOMMIT;\n");
my ($pgb_out, $pgb_err) = ('', '');
my $pgb = IPC::Run::start(
	[
		'pgbench', '--no-vacuum', '--client' => 3, '--time' => 12,
		'--host' => $primary->host, '--port' => $primary->port,
		'-f' => "$dir/update.sql\@40", '-f' => "$dir/delete.sql\@10",
		'-f' => "$dir/vacuum.sql\@4", '-f' => "$dir/vacuumfull.sql\@2",
		'-f' => "$dir/truncate.sql\@2", 'postgres'
	],
	'>', \$pgb_out, '2>', \$pgb_err);

my ($rounds, $disagree, $nonempty) = (0, 0, 0);
my $cache_bytes = q{SELECT coalesce(sum(total_bytes), 0) FROM pg_backend_memory_contexts
	WHERE name = 'scalablebloom session cache'};
my $warm = 0;
while ($pgb->pumpable)
{
	my ($answers, $d) = ask();
	$rounds++;
	$disagree += $d == -1 ? 1 : $d;
	$nonempty++ if $answers ne '';
	$warm++ if $rounds % 10 == 0 && $reader->query($cache_bytes) > 600000;
	$pgb->pump_nb;
}
$pgb->finish;
my ($processed) = $pgb_out =~ /number of transactions actually processed: (\d+)/;
ok(defined $processed && $processed > 0,
	'pgbench changed the filters on the primary: ' . ($processed // 'no summary') . ' transactions')
  or diag($pgb_err);
ok($rounds > 20 && $nonempty == $rounds && $warm > 0,
	"the replica answered $rounds ranking queries during the load; its cache held the large value at $warm of "
	  . int($rounds / 10) . ' samples');
is($disagree, 0, 'during the load, every cached answer equals the answer for its snapshot\'s value');

$primary->wait_for_catchup($standby, 'replay');
my $want = $primary->safe_psql('postgres', 'SELECT * FROM ranking_truth');
my ($after, $dafter) = ask();
my ($after2) = ask();
is("$after / $after2 / $dafter", "$want / $want / 0", 'after the load the replica answers as the primary');

is($stats{errors}, 0, "no query on the replica failed ($stats{queries} queries)")
  or diag(join("\n", @errors[0 .. ($#errors < 4 ? $#errors : 4)]));
$reader->quit;
my $log = slurp_file($standby->logfile);
unlike($log, qr/missing chunk|unexpected chunk|could not read|TRAP|terminated by signal/,
	'the replica\'s log shows no missing TOAST chunk and no crash');

$standby->stop;
$primary->stop;
done_testing();
