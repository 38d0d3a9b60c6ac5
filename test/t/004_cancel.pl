# Copyright (c) sbf contributors

# Long statements stop promptly when cancelled: a batch add of 8 million
# elements into a small filter (one sbf_add call, 5 to 10 s uninterrupted on
# a 2-core test machine), a sbf_union_agg over 300,000 rows of a thousand
# different filters, a sbf_union_agg over 400 copies of the crafted pair below
# and an sbf_agg over 30 million rows (each longer than 30 s uninterrupted)
# are interrupted by statement_timeout (200 ms; 500 ms for the crafted pair;
# 1.5 s for the batch add), and the batch add also by pg_cancel_backend from
# another session.  Each must fail with SQLSTATE 57014 (query_canceled) well
# within $bound seconds -- a hang detector, not a timing benchmark -- and the
# server, and the cancelled session itself, must keep answering.
#
# The crafted pair: two valid filters of 2,048 segments of 512 words, every
# bit set except the last word of each destination segment.  1.0's union
# compared every segment with every segment word by word and ran 8.4 s past
# a 500 ms statement_timeout; 1.1's plan is linear, so sbf_union of the pair
# must simply end (finish or be cancelled) within $bound seconds.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);

# Seconds a cancelled statement may take to stop, from its start (timeouts)
# or from the request (pg_cancel_backend): far more than a check for
# interrupts needs, less than the batch add needs uninterrupted.
my $bound = 2.5;

my $node = PostgreSQL::Test::Cluster->new('cancel');
$node->init;
$node->append_conf('postgresql.conf', 'log_statement = none');
$node->start;

# An 8-million-element text[] stored uncompressed (fetching it takes a
# fraction of a second) and 1,000 different filters of 5,000 elements (a
# union of copies of one filter would be quick: f UNION f = f).
$node->safe_psql(
	'postgres', q{
	CREATE EXTENSION sbf;
	CREATE UNLOGGED TABLE big_batch (a text[]);
	ALTER TABLE big_batch ALTER COLUMN a SET STORAGE external;
	INSERT INTO big_batch
		SELECT ARRAY(SELECT g::text FROM generate_series(1, 8000000) g);
	CREATE TABLE many_filters AS
		SELECT g % 1000 AS id, sbf_agg(g) AS f
		FROM generate_series(1, 5000000) g GROUP BY 1;
	CREATE TABLE crafted AS
	WITH parts AS (
		SELECT
			-- header: version 1, hash 1, hll_p 9, growth 1, 2048 segments,
			-- no HyperLogLog bytes, error_rate 0.01, tightening 1, capacity 1000
			'0100010901000008000000007b14ae47e17a843f000000000000f03fe803000000000000'
			-- each entry: capacity 1000, count 1000, 32768 bits, error 0.01, k 7
			|| repeat('e803000000000000e80300000000000000800000000000007b14ae47e17a843f0700000000000000', 2048)
			AS prefix)
	SELECT
		-- destination: the last word of segment i holds i (all segments differ)
		decode(prefix || (SELECT string_agg(repeat('ff', 4088) ||
				lpad(to_hex(i), 4, '0') || '000000000000', '' ORDER BY i)
			FROM generate_series(0, 2047) i), 'hex')::scalablebloom AS d,
		decode(prefix || repeat('ff', 4096 * 2048), 'hex')::scalablebloom AS s
	FROM parts;
});

# The statements, and the statement_timeout that stops each.  The batch add
# gets 1.5 s because reading its 96 MB array takes about half a second:
# the timeout must fire inside sbf_add, not while the array is fetched.
my %statements = (
	'batch add of 8M elements' => [
		'1500ms',
		'SELECT pg_column_size(sbf_add(sbf_empty(10), a)) FROM big_batch'
	],
	'sbf_union_agg over 300k rows of 1000 different filters' => [
		'200ms',
		'SELECT # sbf_union_agg(f, 0.49) FROM many_filters, generate_series(1, 300)'
	],
	'sbf_union_agg over 400 copies of the crafted pair' => [
		'500ms',
		'SELECT # sbf_union_agg(f) FROM crafted, LATERAL (VALUES (d), (s)) v(f), generate_series(1, 200)'
	],
	'sbf_agg over 30M rows' => [
		'200ms',
		'SELECT # sbf_agg(x) FROM (SELECT generate_series(1, 30000000) AS x) s'
	],);

# Runs $stmt in a session with statement_timeout = $timeout, then asks the
# same session a question.
sub run_with_timeout
{
	my ($what, $timeout, $stmt) = @_;
	my ($stdout, $stderr, $timed_out);

	my $start = time;
	$node->psql(
		'postgres', qq{
		SET statement_timeout = '$timeout';
		$stmt;
		RESET statement_timeout;
		SELECT 'still answering';
		},
		stdout => \$stdout,
		stderr => \$stderr,
		on_error_stop => 0,
		extra_params => [ '-v', 'VERBOSITY=verbose' ],
		timeout => 10 * $bound,
		timed_out => \$timed_out);
	my $elapsed = time - $start;

	note(
		sprintf(
			'%s: statement_timeout %s, stopped after %.3f s',
			$what, $timeout, $elapsed));
	ok(!$timed_out, "$what: the statement ends");
	like(
		$stderr,
		qr/ERROR:\s+57014: canceling statement due to statement timeout/,
		"$what: statement_timeout cancels it with SQLSTATE 57014");
	cmp_ok($elapsed, '<', $bound, "$what: it stops within $bound s");
	like($stdout, qr/still answering/,
		"$what: the session answers after the cancel");
	return;
}

foreach my $what (sort keys %statements)
{
	run_with_timeout($what, @{ $statements{$what} });
}

# The crafted pair under a 500 ms statement_timeout: sbf_union ends (its
# plan is linear, so it usually finishes first), with a correct result.
{
	my $what = 'sbf_union of the crafted pair';
	my ($stdout, $stderr, $timed_out);
	my $start = time;
	$node->psql(
		'postgres', q{
		SET statement_timeout = '500ms';
		SELECT jsonb_array_length(sbf_info(sbf_union(d, s))->'segments') AS segments,
			   sbf_union(d, s)::bytea = sbf_union(s, d)::bytea AS commutes
		FROM crafted;
		RESET statement_timeout;
		SELECT 'still answering';
		},
		stdout => \$stdout,
		stderr => \$stderr,
		on_error_stop => 0,
		extra_params => [ '-v', 'VERBOSITY=verbose' ],
		timeout => 10 * $bound,
		timed_out => \$timed_out);
	my $elapsed = time - $start;

	note(sprintf('%s: statement_timeout 500ms, ended after %.3f s', $what, $elapsed));
	ok(!$timed_out, "$what: the statement ends");
	cmp_ok($elapsed, '<', $bound, "$what: it ends within $bound s");
	ok( $stdout =~ /^1\|t$/m
		  || $stderr =~ /ERROR:\s+57014: canceling statement due to statement timeout/,
		"$what: one all-ones segment absorbs the rest, in either order (or a clean cancel)");
	like($stdout, qr/still answering/, "$what: the session answers after it");
}

# pg_cancel_backend from another session, in the middle of the batch add.
# The victim reads the array into a variable, then names itself in
# application_name and calls sbf_add.  The canceller, already connected,
# waits until it sees that name (so the request arrives while sbf_add runs,
# however fast or slow the machine), sends the cancel, and times from the
# request until the victim's backend is no longer active.
{
	my $what = 'batch add cancelled by pg_cancel_backend';
	my ($stdout, $stderr) = ('', '');
	my $canceller = $node->background_psql('postgres', on_error_stop => 1);
	my $victim = IPC::Run::start(
		[
			'psql', '-X', '-v', 'VERBOSITY=verbose',
			'-d', $node->connstr('postgres'),
			'-c', q{
			DO $$
			DECLARE
				arr text[];
			BEGIN
				SELECT a INTO arr FROM big_batch;
				PERFORM set_config('application_name', 'sbf_cancel_victim', false);
				PERFORM pg_column_size(sbf_add(sbf_empty(10), arr));
			END
			$$},
			'-c', "SELECT 'still answering'"
		],
		'<', \undef, '>', \$stdout, '2>', \$stderr,
		IPC::Run::timeout(10 * $bound + 60));

	# the victim's pid once it is in sbf_add (application_name is set just
	# before the call, and the add runs for seconds uninterrupted)
	my $pid = '';
	my $deadline = time + 60;
	while ($pid eq '' && time < $deadline)
	{
		$pid = $canceller->query_safe(q{
			SELECT pid FROM pg_stat_activity
			WHERE application_name = 'sbf_cancel_victim' AND state = 'active'});
		usleep(10_000) if $pid eq '';
	}
	ok($pid =~ /^\d+$/, "$what: the victim is inside sbf_add");

	my $start = time;
	my $cancelled = $canceller->query_safe("SELECT pg_cancel_backend($pid)");
	my $active = 't';
	while ($active eq 't' && time - $start < 10 * $bound)
	{
		$active = $canceller->query_safe(
			"SELECT count(*) > 0 FROM pg_stat_activity WHERE pid = $pid AND state = 'active'");
	}
	my $elapsed = time - $start;
	$victim->finish;
	$canceller->quit;

	is($cancelled, 't', "$what: the cancel request is sent");
	note(sprintf('%s: stopped %.3f s after the request', $what, $elapsed));
	like(
		$stderr,
		qr/ERROR:\s+57014: canceling statement due to user request/,
		"$what: it fails with SQLSTATE 57014");
	cmp_ok($elapsed, '<', $bound, "$what: it stops within $bound s of the request");
	like($stdout, qr/still answering/,
		"$what: the session answers after the cancel");
}

is( $node->safe_psql(
		'postgres',
		q{SELECT sbf_add(f, 'new'::text) @> 'new'::text FROM many_filters WHERE id = 0}),
	't',
	'the server keeps answering');
ok(!$node->log_contains('terminated by signal'), 'no server process crashed');

$node->stop;
done_testing();
