# Copyright (c) sbf contributors

# A SQL-level campaign against a real server: generated calls of every SQL
# function of the extension (found in the catalog, so functions added later
# are called too), aggregates included, with extreme arguments: timestamps
# at both ends of the range and +-infinity, intervals of 1 microsecond to
# centuries, buckets 1 to past the maximum, error rates at and past their
# limits, NULLs, empty, huge and multi-dimensional arrays, windowed and plain
# filters mixed, stored values whose bytes were overwritten (the newest
# bucket and width of windowed values set to the ends of int64), and values
# made by earlier calls.  Aggregates run serially and in forced parallel
# plans.  The seed is fixed, so every run makes the same calls.
#
# It fails on:
# - a crash (the server log reports a terminated backend);
# - an XX000 or XX001 error (an elog, or a value the parse path found
#   corrupted);
# - a value that does not round-trip: every scalablebloom and sbf_hashset a
#   call returns is written with COPY (FORMAT binary) and read back (send and
#   recv, so the validator checks it), and cast to text and back;
# - a statement that is not cancelled within 100 ms of its statement_timeout
#   (each call runs under one; a call that overran is run again once, so that
#   a busy machine's scheduling delay is not taken for a missing
#   CHECK_FOR_INTERRUPTS).
#
# SBF_CAMPAIGN_CALLS (default 10000) sets the number of generated calls.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);

my $ncalls = $ENV{SBF_CAMPAIGN_CALLS} // 10000;
my $batch = 500;
my $timeout_ms = 300;
my $cancel_slack_ms = 100;

# a deterministic generator (the same calls on every host and Perl)
my $state = 2025;
sub rnd
{
	my ($n) = @_;
	$state = ($state * 1103515245 + 12345) % 2147483648;
	return int($state / 65536) % $n;
}
sub pick { return $_[ rnd(scalar @_) ]; }

my $node = PostgreSQL::Test::Cluster->new('campaign');
$node->init;
$node->append_conf('postgresql.conf', qq{
max_worker_processes = 8
max_parallel_workers = 4
log_min_messages = warning
});
$node->start;

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION sbf;
CREATE SCHEMA campaign;
-- what each call did: SQLSTATE, message and milliseconds
CREATE TABLE campaign.log (id int PRIMARY KEY, sig text, code text, msg text, ms float8);
-- values calls returned, checked after each batch, then kept in the pool
CREATE TABLE campaign.produced (id int PRIMARY KEY, v scalablebloom);
CREATE TABLE campaign.produced_hs (id int PRIMARY KEY, v sbf_hashset);
CREATE TABLE campaign.pool (slot int PRIMARY KEY, v scalablebloom);
CREATE TABLE campaign.pool_hs (slot int PRIMARY KEY, v sbf_hashset);
-- rows for the aggregates: constant and mixed parameters, times at the
-- ends of the range, NULLs
CREATE TABLE campaign.rows AS
SELECT i,
	   CASE WHEN i % 97 = 0 THEN NULL WHEN i % 89 = 0 THEN repeat('x', 3000) ELSE 'e' || (i % 7000) END AS t,
	   CASE WHEN i % 101 = 0 THEN NULL WHEN i % 83 = 0 THEN -9223372036854775808
			WHEN i % 79 = 0 THEN 9223372036854775807 ELSE (i % 9000)::bigint END AS b,
	   CASE WHEN i % 103 = 0 THEN NULL ELSE int8send(i) END AS by,
	   timestamptz '2026-01-01' + (i % 5000) * interval '7 minutes' AS ts,
	   CASE WHEN i % 4999 = 0 THEN timestamptz '-infinity'
			WHEN i % 4001 = 0 THEN timestamptz '294247-01-10 04:00:54.775806+00'
			WHEN i % 3001 = 0 THEN timestamptz '4714-11-24 00:00:00+00 BC'
			WHEN i % 2001 = 0 THEN timestamptz '1969-12-31 23:59:59.999999+00'
			ELSE timestamptz '1960-01-01' + i * interval '1 hour' END AS tx,
	   interval '1 day' AS iv,
	   CASE WHEN i = 7777 THEN interval '1 microsecond' ELSE interval '1 day' END AS iv_mixed,
	   30 AS n,
	   CASE WHEN i = 8888 THEN 1000 ELSE 30 END AS n_mixed,
	   0.01::float8 AS e,
	   CASE WHEN i = 9999 THEN 0.02 ELSE 0.01 END::float8 AS e_mixed
FROM generate_series(1, 20000) i;
ALTER TABLE campaign.rows SET (parallel_workers = 2);
-- runs one generated statement; par forces a parallel plan
CREATE FUNCTION campaign.run(id int, sig text, q text, par boolean) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz := clock_timestamp();
	c text := '00000';
	m text;
BEGIN
	IF par THEN
		PERFORM set_config('parallel_setup_cost', '0', true);
		PERFORM set_config('parallel_tuple_cost', '0', true);
		PERFORM set_config('min_parallel_table_scan_size', '0', true);
		PERFORM set_config('max_parallel_workers_per_gather', '2', true);
	END IF;
	BEGIN
		EXECUTE q;
	EXCEPTION
		WHEN query_canceled THEN
			c := '57014';
			m := SQLERRM;
		WHEN OTHERS THEN
			GET STACKED DIAGNOSTICS c = RETURNED_SQLSTATE, m = MESSAGE_TEXT;
	END;
	INSERT INTO campaign.log VALUES (id, sig, c, m,
		extract(epoch FROM clock_timestamp() - t0) * 1000);
END
$$;
});

# seeds of the pool: plain, windowed at the ends of time, aggregated, united
$node->safe_psql(
	'postgres', q{
INSERT INTO campaign.pool VALUES
	(48, sbf_empty()),
	(49, sbf_add(sbf_empty(100, 0.001), ARRAY(SELECT 'e' || g FROM generate_series(1, 5000) g))),
	(50, sbf_window_empty()),
	(51, sbf_add(sbf_add(sbf_window_empty('1 microsecond', 10, 0.01), 'a'::text, '4714-11-24 00:00:00+00 BC'),
		'b'::text, '294247-01-10 04:00:54.775806+00')),
	(52, (SELECT sbf_window_agg(t, ts, '1 hour', 1000, 0.001) FROM campaign.rows)),
	(53, (SELECT sbf_agg(t) FROM campaign.rows)),
	(54, sbf_add(sbf_window_empty('1 microsecond', 1000, 0.49), ARRAY(SELECT 'e' || g FROM generate_series(1, 3000) g),
		'294247-01-10 04:00:54.775806+00')),
	(55, sbf_add(sbf_window_empty('3650 days', 1, 0.01), 'x'::text, '4714-11-24 00:00:00+00 BC')),
	(56, (SELECT sbf_window_agg(b, tx, '1 microsecond', 7) FROM campaign.rows WHERE tx > '-infinity')),
	(57, sbf_add(sbf_window_empty('1 day', 30, 0.01), 'x'::text, '294247-01-09 01:00:00+00')),
	(58, (SELECT sbf_union_agg(v) FROM campaign.pool WHERE slot IN (48, 49, 53))),
	(59, sbf_build((SELECT sbf_hashset_agg(t) FROM campaign.rows)));
INSERT INTO campaign.pool_hs VALUES
	(48, (SELECT sbf_hashset_agg(t) FROM campaign.rows)),
	(49, (SELECT sbf_hashset_agg(b) FROM campaign.rows WHERE i < 10));
});

# every function of the extension, from the catalog
my @funcs;
for my $line (split /\n/, $node->safe_psql(
		'postgres', q{
SELECT p.proname, p.prokind, format_type(p.prorettype, NULL), p.pronargdefaults,
	   array_to_string(ARRAY(SELECT format_type(t, NULL)
							 FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY u(t, o) ORDER BY o), ',')
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension x ON x.oid = d.refobjid AND x.extname = 'sbf'
ORDER BY 1, 5}))
{
	my ($name, $kind, $ret, $ndef, $args) = split /\|/, $line, -1;
	my @args = $args eq '' ? () : split /,/, $args;
	next if grep { $_ eq 'internal' } @args;
	my $support = $kind eq 'f' && $name =~ /_(trans|combine|final|step|merge|result)$/ ? 1 : 0;
	push @funcs, { name => $name, kind => $kind, ret => $ret, ndef => $ndef, args => \@args,
		support => $support };
}
my @skipped = map { (split /\|/)[0] } grep { /internal/ } split /\n/, $node->safe_psql(
	'postgres', q{
SELECT p.proname || '|' || pg_get_function_identity_arguments(p.oid)
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension x ON x.oid = d.refobjid AND x.extname = 'sbf'});
note(scalar(@funcs) . ' functions callable from SQL, ' . scalar(@skipped)
	  . ' skipped (internal arguments, reachable only through their aggregates)');
ok(@funcs >= 40, 'the catalog lists the functions of the extension');

# ---- arguments ----

my @int64s = ('-9223372036854775808', '9223372036854775807', '-9223372036854775807',
	'9223372036854775806', '0', '-1', '1', '3155760000000000', '86400000000', '-86400000000');

# 8 little-endian bytes of an int64 (as a bytea hex string)
sub le64
{
	my ($v) = @_;
	my $hex = '';
	for my $k (1 .. 8)
	{
		# Math::BigInt would do; this handles the values in @int64s
		my $byte = _byte_of($v, $k - 1);
		$hex .= sprintf('%02x', $byte);
	}
	return $hex;
}
sub _byte_of
{
	my ($v, $k) = @_;
	use integer;
	my $x = $v + 0;
	return ($x >> (8 * $k)) & 0xff;
}

my %values = (
	'text' => [ 'NULL', q{''}, q{'a'}, q{'e1'}, q{'b1'}, q{repeat('ab', 50000)}, q{E'\u00e9\u4e2d'} ],
	'bigint' => [ 'NULL', @int64s, '1000', '2147483648' ],
	'bytea' => [ 'NULL', q{'\x'}, q{'\x00'}, q{decode(repeat('ff', 100000), 'hex')}, q{int8send(1)} ],
	'text[]' => [
		'NULL', q{'{}'}, q{'{NULL}'}, q{'{a,b,c}'}, q{'{{a,b},{c,d}}'}, q{ARRAY[NULL, 'e1']},
		q{ARRAY(SELECT 'e' || g FROM generate_series(1, 1000) g)},
		q{ARRAY(SELECT 'e' || g FROM generate_series(1, 200000) g)},
		q{ARRAY(SELECT g::text FROM generate_series(1, 1000000) g)},
		q{'[5:7]={x,y,z}'},
	],
	'bigint[]' => [
		'NULL', q{'{}'}, q{'{NULL}'}, q{'{-9223372036854775808,9223372036854775807}'},
		q{'{{1,2},{3,4}}'}, q{ARRAY(SELECT generate_series(1, 1000)::bigint)},
		q{ARRAY(SELECT generate_series(1, 200000)::bigint)},
		q{ARRAY(SELECT generate_series(1, 1000000)::bigint)},
	],
	'timestamp with time zone' => [
		'NULL', q{'-infinity'}, q{'infinity'}, q{'4714-11-24 00:00:00+00 BC'},
		q{'294276-12-31 23:59:59.999999+00'}, q{'294247-01-10 04:00:54.775806+00'},
		q{'294247-01-10 04:00:54.775807+00'}, q{'294247-01-09 01:00:00+00'},
		q{'1969-12-31 23:59:59.999999+00'}, q{'1970-01-01 00:00:00+00'},
		q{'2000-01-01 00:00:00+00'}, q{'2026-01-01 00:00:00+00'}, q{'1900-01-01 00:00:00.000001+00'},
	],
	'interval' => [
		'NULL', q{'1 microsecond'}, q{'-1 microsecond'}, q{'0'}, q{'1 day'}, q{'1 hour'},
		q{'1 month'}, q{'3650 days'}, q{'3650 days 00:00:00.000001'}, q{'100 years'},
		q{'178000000 years'}, q{'1 day -1 microsecond'}, q{'-1 day 25 hours'},
		q{'2147483647 days'}, q{'-2147483648 days'}, q{'9223372036854775807 microseconds'},
	],
	'integer' => [ 'NULL', '-2147483648', '-1', '0', '1', '2', '30', '999', '1000', '1001', '65536', '2147483647' ],
	'double precision' => [
		'NULL', q{'NaN'}, q{'Infinity'}, q{'-Infinity'}, '0', '-0.0', '5e-324', '1e-300', '1e-10',
		'0.001', '0.01', '0.4999999999', '0.5', '1', '2', '-0.01',
	],
);

# a scalablebloom: a pool value, a fresh one, or a pool value with bytes overwritten
sub sbf_value
{
	my $r = rnd(100);
	return 'NULL' if $r < 5;
	return '(SELECT v FROM campaign.pool WHERE slot = ' . rnd(64) . ')' if $r < 60;
	if ($r < 72)
	{
		return 'sbf_empty(' . join(', ', pick(@{ $values{bigint} }, '1', '1000000000'),
			pick(@{ $values{'double precision'} }), pick(@{ $values{integer} }),
			pick(@{ $values{'double precision'} })) . ')';
	}
	if ($r < 84)
	{
		return 'sbf_window_empty(' . join(', ', pick(@{ $values{interval} }),
			pick(@{ $values{integer} }), pick(@{ $values{'double precision'} })) . ')';
	}
	# overwrite the newest bucket (byte 25), the width (17) or any byte
	my $at = pick(25, 25, 17, 1 + rnd(48));
	my $hex = $at == 25 || $at == 17 ? le64(pick(@int64s)) : sprintf('%02x', rnd(256)) x (1 + rnd(4));
	return 'scalablebloom(overlay(bytea((SELECT v FROM campaign.pool WHERE slot = ' . rnd(64)
	  . ")) PLACING '\\x$hex'::bytea FROM $at))";
}

sub hs_value
{
	my $r = rnd(10);
	return 'NULL' if $r == 0;
	return q{sbf_hashset('\x'::bytea)} if $r == 1;
	return '(SELECT v FROM campaign.pool_hs WHERE slot = ' . rnd(64) . ')';
}

# a value of a type, as an SQL expression with its cast
sub value_of
{
	my ($type) = @_;
	return '(' . sbf_value() . ')::scalablebloom' if $type eq 'scalablebloom';
	return '(' . hs_value() . ')::sbf_hashset' if $type eq 'sbf_hashset';
	if ($type eq 'cstring')
	{
		my $v = pick(q{''}, q{'garbage'}, q{'\x03'},
			'(SELECT v::text FROM campaign.pool WHERE slot = ' . rnd(64) . ')',
			'left((SELECT v::text FROM campaign.pool WHERE slot = ' . rnd(64) . '), ' . rnd(200) . ')');
		return "($v)::cstring";
	}
	if ($type eq 'anyelement')
	{
		my $t = pick('text', 'bigint', 'bytea', 'integer', 'double precision', 'text[]');
		my $v = pick(@{ $values{$t} });
		$v = pick(grep { $_ ne 'NULL' } @{ $values{$t} }) if $v eq 'NULL';
		return "($v)::$t";
	}
	die "no values for type $type" unless $values{$type};
	return '(' . pick(@{ $values{$type} }) . ")::$type";
}

# an aggregate's argument: a column of campaign.rows (or the pool) or a constant
sub agg_arg
{
	my ($type) = @_;
	my %cols = (
		'text' => [ 'r.t' ], 'bigint' => [ 'r.b' ], 'bytea' => [ 'r.by' ],
		'timestamp with time zone' => [ 'r.ts', 'r.ts', 'r.tx' ],
		'interval' => [ 'r.iv', 'r.iv', 'r.iv_mixed' ],
		'integer' => [ 'r.n', 'r.n', 'r.n_mixed' ],
		'double precision' => [ 'r.e', 'r.e', 'r.e_mixed' ],
		'scalablebloom' => [ 'p.v' ], 'sbf_hashset' => [ 'h.v' ],
	);
	return pick(@{ $cols{$type} }) if $cols{$type} && rnd(10) < 7;
	return value_of($type);
}

# one call: [signature, statement, parallel]
sub gen_call
{
	my ($id, $f) = @_;
	my @types = @{ $f->{args} };
	my $nargs = scalar(@types) - rnd($f->{ndef} + 1);
	my $sig = "$f->{name}(" . join(',', @types[ 0 .. $nargs - 1 ]) . ')';
	my $call;
	my $par = 0;
	if ($f->{kind} eq 'a')
	{
		my @a = map { agg_arg($_) } @types[ 0 .. $nargs - 1 ];
		my $from = 'campaign.rows r';
		my $all = join(' ', @a);
		$from = 'campaign.pool p' if $all =~ /\bp\.v\b/;
		$from = 'campaign.pool_hs h' if $all =~ /\bh\.v\b/;
		# over the pool, the other arguments are constants
		@a = map { $a[$_] =~ /^r\./ ? value_of($types[$_]) : $a[$_] } 0 .. $#a
		  if $from !~ /rows/;
		my $where = $from =~ /rows/ ? ' WHERE r.i <= ' . pick(0, 1, 2, 100, 5000, 20000) : '';
		$par = $from =~ /rows/ && rnd(3) == 0 ? 1 : 0;
		$call = "$f->{name}(" . join(', ', @a) . ") FROM $from$where";
	}
	else
	{
		$call = "$f->{name}(" . join(', ', map { value_of($_) } @types[ 0 .. $nargs - 1 ]) . ')';
	}
	my $q;
	if ($f->{ret} eq 'scalablebloom')
	{
		$q = "INSERT INTO campaign.produced SELECT $id, $call";
	}
	elsif ($f->{ret} eq 'sbf_hashset')
	{
		$q = "INSERT INTO campaign.produced_hs SELECT $id, $call";
	}
	else
	{
		$q = "SELECT $call";
	}
	return [ $sig, $q, $par ];
}

# ---- the campaign ----

my $logfile = $node->logfile;
my $logpos = -s $logfile;
my %calls;
my @crashes;
my @slow_cancels;
my @roundtrip;
my $t0 = time;
my $id = 0;

while ($id < $ncalls)
{
	my $script = "SET statement_timeout = '${timeout_ms}ms';\n";
	my $first = $id + 1;
	for (1 .. $batch)
	{
		last if $id >= $ncalls;
		$id++;
		# every function in turn first, then at random (an aggregate's
		# support functions, which only refuse to run outside it, seldom)
		my $f = $id <= @funcs ? $funcs[ $id - 1 ] : $funcs[ rnd(scalar @funcs) ];
		$f = $funcs[ rnd(scalar @funcs) ] while $id > @funcs && $f->{support} && rnd(5) > 0;
		my $c = gen_call($id, $f);
		$calls{$id} = $c;
		$script .= "SELECT campaign.run($id, \$s\$$c->[0]\$s\$, \$q\$$c->[1]\$q\$, "
		  . ($c->[2] ? 'true' : 'false') . ");\n";
	}
	my ($out, $err) = ('', '');
	$node->psql('postgres', $script, stdout => \$out, stderr => \$err, on_error_stop => 0);

	# a crash: the server log says so, and the call is the first not logged
	my $log = slurp_file($logfile);
	my $new = substr($log, $logpos);
	$logpos = length($log);
	if ($new =~ /terminated by signal|was terminated by exception/)
	{
		$node->poll_query_until('postgres', 'SELECT true');
		my $last = $node->safe_psql('postgres',
			"SELECT coalesce(max(id), $first - 1) FROM campaign.log WHERE id BETWEEN $first AND $id");
		my $c = $calls{ $last + 1 };
		push @crashes, 'call ' . ($last + 1) . ": $c->[1]";
	}

	# every value returned: binary (COPY) and text round trips
	my $dir = $node->basedir;
	for my $t ('produced', 'produced_hs')
	{
		my ($rc, $o, $e) = $node->psql(
			'postgres', qq{
COPY campaign.$t TO '$dir/$t.bin' (FORMAT binary);
CREATE TEMP TABLE back (LIKE campaign.$t);
COPY back FROM '$dir/$t.bin' (FORMAT binary);
SELECT 'binary ' || p.id FROM campaign.$t p LEFT JOIN back b USING (id)
WHERE b.v::bytea IS DISTINCT FROM p.v::bytea
UNION ALL
SELECT 'text ' || p.id FROM campaign.$t p
WHERE p.v::text::} . ($t eq 'produced' ? 'scalablebloom' : 'sbf_hashset') . q{::bytea IS DISTINCT FROM p.v::bytea;
});
		push @roundtrip, "$t: $e" if $rc != 0;
		push @roundtrip, map { "$t $_: " . $calls{ (split / /)[1] }->[1] } grep { $_ ne '' } split /\n/, $o;
	}
	# the values join the pool (one per slot, the newest), then are dropped
	$node->safe_psql(
		'postgres', q{
INSERT INTO campaign.pool
SELECT DISTINCT ON (id % 48) id % 48, v FROM campaign.produced
WHERE v IS NOT NULL AND octet_length(v::bytea) < 4000000 ORDER BY id % 48, id DESC
ON CONFLICT (slot) DO UPDATE SET v = EXCLUDED.v;
INSERT INTO campaign.pool_hs
SELECT DISTINCT ON (id % 48) id % 48, v FROM campaign.produced_hs
WHERE v IS NOT NULL ORDER BY id % 48, id DESC
ON CONFLICT (slot) DO UPDATE SET v = EXCLUDED.v;
TRUNCATE campaign.produced, campaign.produced_hs;
});
}

# statements that overran their timeout by more than the slack: run again
for my $line (split /\n/, $node->safe_psql('postgres',
		"SELECT id FROM campaign.log WHERE code = '57014' AND ms > $timeout_ms + $cancel_slack_ms ORDER BY id"))
{
	my $c = $calls{$line};
	my $again = $id + 1 + scalar(@slow_cancels);
	(my $q = $c->[1]) =~ s/SELECT $line, /SELECT $again, /;
	$node->psql('postgres', "SET statement_timeout = '${timeout_ms}ms'; TRUNCATE campaign.produced, campaign.produced_hs;"
		  . "SELECT campaign.run($again, \$s\$$c->[0]\$s\$, \$q\$$q\$q\$, " . ($c->[2] ? 'true' : 'false') . ');');
	my $ms = $node->safe_psql('postgres', "SELECT code || ' ' || round(ms) FROM campaign.log WHERE id = $again");
	push @slow_cancels, "call $line ($ms ms when run again): $c->[1]"
	  if $ms =~ /^57014 (\d+)/ && $1 > $timeout_ms + $cancel_slack_ms;
}

my $secs = time - $t0;
my $summary = $node->safe_psql('postgres', qq{
SELECT count(*) || ' calls logged, ' ||
	   count(*) FILTER (WHERE code = '00000') || ' succeeded, ' ||
	   count(*) FILTER (WHERE code LIKE '22%') || ' refused with class 22, ' ||
	   count(*) FILTER (WHERE code = '57014') || ' cancelled by statement_timeout (slowest cancel ' ||
	   coalesce(round(max(ms) FILTER (WHERE code = '57014'))::text, '-') || ' ms), ' ||
	   count(DISTINCT sig) || ' distinct signatures'
FROM campaign.log WHERE id <= $ncalls});
note("campaign: $ncalls calls generated in " . sprintf('%.0f', $secs) . " s; $summary");
note('SQLSTATEs: ' . $node->safe_psql('postgres',
	"SELECT string_agg(code || ' x' || n, ', ' ORDER BY n DESC) FROM (SELECT code, count(*) n FROM campaign.log WHERE id <= $ncalls GROUP BY code) s"));

# the slowest cancels, to see where interrupts are checked least often
for my $line (split /\n/, $node->safe_psql('postgres', qq{
SELECT id || ' ' || round(ms) FROM campaign.log
WHERE id <= $ncalls AND code = '57014' ORDER BY ms DESC LIMIT 3}))
{
	my ($i, $ms) = split / /, $line;
	note("cancelled after $ms ms: $calls{$i}->[1]");
}

my $xx = $node->safe_psql('postgres', qq{
SELECT string_agg(id || ' ' || code || ' ' || msg, E'\n' ORDER BY id)
FROM campaign.log WHERE id <= $ncalls AND code IN ('XX000', 'XX001')});
is($xx, '', 'no call raised XX000 or XX001')
  or diag(join("\n", map { my $i = (split / /)[0]; "$_\n   $calls{$i}->[1]" } split /\n/, $xx));
is(scalar(@crashes), 0, 'no call crashed the server') or diag(join("\n", @crashes));
is(scalar(@roundtrip), 0, 'every value returned round-trips through binary and text')
  or diag(join("\n", @roundtrip));
is(scalar(@slow_cancels), 0, "every statement was cancelled within ${cancel_slack_ms} ms of its timeout")
  or diag(join("\n", @slow_cancels));
my $uncalled = $node->safe_psql('postgres', q{SELECT count(DISTINCT split_part(sig, '(', 1)) FROM campaign.log});
my %names = map { $_->{name} => 1 } @funcs;
is($uncalled, scalar(keys %names), 'every function name was called');

$node->stop;
done_testing();
