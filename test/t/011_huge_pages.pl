# Copyright (c) sbf contributors

# sbf.huge_pages (src/pg/sbf_mem.c): a fresh backend building one group of
# 1M distinct values touches tens of MB of new memory (the spilled group's
# merged hashes, a fused build's scratch); with the setting on, the arrays
# of 2 MB and more are offered for transparent huge pages, so the backend
# takes far fewer page faults than with it off (measured: 7,327 against
# 2,728, test/bench/results/agg_huge_pages.txt), and the bytes are the same.
#
# The faults are the backend's minor faults from /proc/self/stat around the
# query, each run in a new session.  Skipped where the kernel cannot give
# huge pages on request (no /proc, or transparent_hugepage "never").

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $thp = '/sys/kernel/mm/transparent_hugepage/enabled';
plan skip_all => 'no transparent huge pages on request here'
  unless -r '/proc/self/stat'
  && -r $thp
  && slurp_file($thp) =~ /\[(madvise|always)\]/;

my $node = PostgreSQL::Test::Cluster->new('huge_pages');
$node->init;
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION sbf');

# minor faults of this backend: field 8 after the command name's ") "
my $faults =
  q{SELECT split_part(split_part(pg_read_file('/proc/self/stat'), ') ', 2), ' ', 8)};
my $build =
  q{SELECT md5(sbf_agg(x)::bytea) FROM generate_series(1, 1000000::bigint) x};

# faults taken by the build in a new session with the setting, and its md5
sub run_build
{
	my ($setting) = @_;
	my $out = $node->safe_psql('postgres',
		"SET sbf.huge_pages = $setting; SET jit = off; $faults; $build; $faults");
	my ($before, $md5, $after) = split /\n/, $out;
	return ($after - $before, $md5);
}

my (@off, @on, %md5);
for (1 .. 3)
{
	my ($f, $m) = run_build('off');
	push @off, $f;
	$md5{$m} = 1;
	($f, $m) = run_build('on');
	push @on, $f;
	$md5{$m} = 1;
}
my $median = sub { (sort { $a <=> $b } @_)[1] };
my ($off, $on) = ($median->(@off), $median->(@on));
note "page faults of a 1M build: off @off, on @on";

cmp_ok($off, '>', 2000,
	'a new backend building 1M distinct with sbf.huge_pages off takes thousands of page faults'
);
cmp_ok($on, '<', 0.7 * $off,
	"with sbf.huge_pages on it takes far fewer ($on against $off)");
is(scalar(keys %md5), 1, 'the same bytes off and on, every time');

$node->stop;
done_testing();
