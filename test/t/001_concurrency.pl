# Copyright (c) sbf contributors

# Nothing lost under contention: 8 pgbench clients add random objects to the
# filters of 4 hot users for 20 seconds (so they queue on the same rows), each
# logging what it added in the same transaction.  Afterwards every logged
# object must be contained (no false negative), the log must hold exactly the
# transactions pgbench saw committed, and no client may have seen an error.

use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SbfLoad;
use Test::More;

my $clients = 8;
my $seconds = 20;

my $node = PostgreSQL::Test::Cluster->new('concurrency');
$node->init;
$node->append_conf('postgresql.conf', "max_connections = 20");
$node->start;

SbfLoad::setup($node);

my $load = SbfLoad::start($node, clients => $clients, seconds => $seconds);
my $res = SbfLoad::finish($load);

is($res->{rc}, 0, 'pgbench exits with status 0')
  or diag("pgbench stdout:\n$res->{stdout}\npgbench stderr:\n$res->{stderr}");
is($res->{aborted}, 0, 'no pgbench client aborted on an error');
is($res->{failed}, 0, 'pgbench counts no failed transaction');
ok(defined $res->{processed} && $res->{processed} > 0,
	'pgbench committed transactions');

my $chk = SbfLoad::check($node);
note(
	sprintf(
		"%d clients, %d s: %d transactions committed (%.0f tps), %d objects logged, %d distinct, %d misses",
		$clients, $seconds, $res->{processed} // 0,
		$res->{tps} // 0, $chk->{objects},
		$chk->{distinct}, $chk->{misses}));
note(SbfLoad::filter_stats($node));

is($chk->{transactions}, $res->{processed},
	'the log holds exactly the transactions pgbench saw committed');
is($chk->{misses}, 0,
	"every one of the $chk->{objects} logged objects is contained (@>)");
is($chk->{matches_misses}, 0,
	'every logged text and bigint object is counted by sbf_matches');

# Each filter's bytes still pass the full validator of the bytea cast.
is( $node->safe_psql(
		'postgres',
		'SELECT count(*) FROM user_filters WHERE seen::bytea::scalablebloom IS NOT NULL'
	),
	$SbfLoad::USERS,
	'every filter passes validation after the load');

# No backend died along the way.
ok(!$node->log_contains('terminated by signal'),
	'no server process crashed');

$node->stop;
done_testing();
