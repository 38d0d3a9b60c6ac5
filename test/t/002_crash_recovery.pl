# Copyright (c) sbf contributors

# Nothing lost in a crash: while 8 pgbench clients add objects to the hot
# users' filters (see 001_concurrency.pl), the server is killed with SIGKILL,
# twice:
#   1. one backend in the middle of an UPDATE: the postmaster resets every
#      backend and replays the WAL (restart_after_crash);
#   2. the postmaster itself: the server is started again and recovers.
# Each time, every add that committed (= is in the log, which the same
# transaction wrote) must still be contained, the log must hold at least the
# transactions pgbench saw committed, and the recovered filters must pass
# the validator.

use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SbfLoad;
use Test::More;
use Time::HiRes qw(usleep);

my $clients = 8;

my $node = PostgreSQL::Test::Cluster->new('crash');
$node->init;
# Durable commits, as in production; reinitialize after a backend crash.
$node->append_conf(
	'postgresql.conf', qq{
fsync = on
restart_after_crash = on
max_connections = 20
log_statement = none
});
$node->start;

SbfLoad::setup($node);

# Waits until the load has committed at least $rows more log rows than
# $base, then returns the pids of the client backends (pgbench's).
sub wait_for_load
{
	my ($base, $rows) = @_;

	$node->poll_query_until('postgres',
		"SELECT count(*) >= $base + $rows FROM add_log")
	  or die "the load did not commit $rows transactions";
	return split /\n/,
	  $node->safe_psql('postgres',
		q{SELECT pid FROM pg_stat_activity
		  WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()});
}

# Waits up to the TAP timeout until pg_isready reports that the server
# accepts connections; true when it does.
sub wait_until_ready
{
	my $deadline = time + $PostgreSQL::Test::Utils::timeout_default;
	while (time < $deadline)
	{
		return 1
		  if system($node->installed_command('pg_isready'), '-q',
			'-h', $node->host, '-p', $node->port) == 0;
		usleep(100_000);
	}
	return 0;
}

# Checks that every committed add survived; $res is pgbench's result,
# $base the number of log rows before that load started.
sub check_survivors
{
	my ($what, $res, $base) = @_;

	my $chk = SbfLoad::check($node);
	my $phase_rows = $chk->{transactions} - $base;
	note(
		sprintf(
			"%s: pgbench saw %s transactions committed (%d clients aborted), the log holds %d from this load; %d objects logged in all, %d misses",
			$what, $res->{processed} // 'no count of',
			$res->{aborted}, $phase_rows, $chk->{objects}, $chk->{misses}));

	ok($res->{aborted} > 0 || $res->{rc} != 0,
		"$what: the crash interrupted pgbench");
	ok(defined $res->{processed} && $res->{processed} > 0,
		"$what: pgbench printed its count of committed transactions")
	  or diag("pgbench stdout:\n$res->{stdout}\nstderr:\n$res->{stderr}");
	ok(defined $res->{processed} && $phase_rows >= $res->{processed},
		"$what: every transaction pgbench saw committed is in the log");
	is($chk->{misses}, 0,
		"$what: all $chk->{objects} logged objects are still contained");
	is($chk->{matches_misses}, 0,
		"$what: sbf_matches finds every logged text and bigint object");
	is( $node->safe_psql(
			'postgres',
			'SELECT count(*) FROM user_filters WHERE seen::bytea::scalablebloom IS NOT NULL'
		),
		$SbfLoad::USERS,
		"$what: every recovered filter passes validation");
	return $chk;
}

#
# 1. SIGKILL a backend that is running an UPDATE.
#
my $log_offset = -s $node->logfile;
my $load = SbfLoad::start($node, clients => $clients, seconds => 60);
my @pids = wait_for_load(0, 1000);
my $victim = $node->safe_psql(
	'postgres', q{
	SELECT pid FROM pg_stat_activity
	WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()
		  AND query LIKE 'UPDATE%'
	ORDER BY state = 'active' DESC LIMIT 1});
$victim ||= $pids[0];
note("killing backend $victim with SIGKILL");
ok(kill('KILL', $victim), 'SIGKILL sent to a busy backend');

my $res = SbfLoad::finish($load);
# pg_isready first: poll_query_until feeds its query on psql's stdin, and a
# psql that exits at once on "the database system is in recovery mode" can
# make that write fail with EPIPE, which ends the test (seen on 18 under load)
wait_until_ready()
  or die 'the server did not come back after the backend crash';
$node->poll_query_until('postgres', 'SELECT true')
  or die 'the server did not come back after the backend crash';
ok( $node->log_contains(
		qr/\(PID $victim\) was terminated by signal 9/,
		$log_offset),
	'the postmaster saw the backend killed');
ok($node->log_contains(qr/all server processes terminated; reinitializing/,
		$log_offset),
	'the postmaster reinitialized after the backend crash');
my $chk = check_survivors('backend crash', $res, 0);

#
# 2. SIGKILL the postmaster.
#
my $base = $chk->{transactions};
$log_offset = -s $node->logfile;
$load = SbfLoad::start($node, clients => $clients, seconds => 60);
wait_for_load($base, 1000);

# Every process of the server: the postmaster's children outlive it until
# they notice it died, and a new postmaster cannot start while they remain.
my @children = split /\n/,
  $node->safe_psql('postgres',
	'SELECT pid FROM pg_stat_activity WHERE pid <> pg_backend_pid()');
$node->kill9;

$res = SbfLoad::finish($load);
foreach my $pid (@children)
{
	my $tries = 0;
	while (kill(0, $pid) && $tries++ < 10 * $PostgreSQL::Test::Utils::timeout_default)
	{
		usleep(100_000);
	}
}
$node->start;
ok($node->log_contains(qr/database system was interrupted/, $log_offset),
	'the restarted server ran crash recovery');
check_survivors('postmaster crash', $res, $base);

# After all that, the filters still take adds.
$node->safe_psql('postgres',
	q{UPDATE user_filters SET seen = seen || 'after the crashes'});
is( $node->safe_psql(
		'postgres',
		q{SELECT count(*) FROM user_filters WHERE seen @> 'after the crashes'::text}
	),
	$SbfLoad::USERS,
	'the recovered filters take new adds');

$node->stop;
done_testing();
