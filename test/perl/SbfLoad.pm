# Copyright (c) sbf contributors

=pod

=head1 NAME

SbfLoad - the concurrent update load shared by sbf's TAP tests

=head1 SYNOPSIS

  use FindBin;
  use lib "$FindBin::RealBin/../perl";
  use SbfLoad;

  SbfLoad::setup($node);
  my $load = SbfLoad::start($node, clients => 8, seconds => 20);
  my $res  = SbfLoad::finish($load);     # pgbench's exit code and counts
  my $chk  = SbfLoad::check($node);      # logged objects and misses

=head1 DESCRIPTION

A few hot users own one filter each in C<user_filters>.  pgbench clients add
random objects to them with C<UPDATE user_filters SET seen = seen || ...>
through every add path (text, bigint, bytea, a text[] batch, and the union
with a one-element filter), and log what they added to C<add_log> in the
same transaction.  A logged object is therefore exactly a committed one, and
C<check> counts the logged objects the filters no longer contain.  A Bloom
filter may report false positives but never a false negative, so that count
must be zero however the load ended.

=cut

package SbfLoad;

use strict;
use warnings;

use IPC::Run;
use PostgreSQL::Test::Utils;

# The hot users: few, so that the clients queue on the same rows.
our $USERS = 4;

# pgbench scripts and their weights.  Each is one transaction that updates
# one user's filter and logs the added objects; the kind names the element
# type, so that check() probes with the same type.  User 1 starts with a
# NULL filter, which the first add must turn into a real one.
my %SCRIPTS = (
	add_text => [
		4, <<"EOS"
\\set u random(1, $USERS)
\\set o random(1, 1000000000)
BEGIN;
UPDATE user_filters SET seen = seen || ('obj:' || :o::text) WHERE user_id = :u;
INSERT INTO add_log (user_id, kind, objs) VALUES (:u, 'text', ARRAY['obj:' || :o::text]);
COMMIT;
EOS
	],
	add_bigint => [
		2, <<"EOS"
\\set u random(1, $USERS)
\\set o random(1, 1000000000)
BEGIN;
UPDATE user_filters SET seen = seen || :o::bigint WHERE user_id = :u;
INSERT INTO add_log (user_id, kind, objs) VALUES (:u, 'bigint', ARRAY[:o::text]);
COMMIT;
EOS
	],
	add_bytea => [
		1, <<"EOS"
\\set u random(1, $USERS)
\\set o random(1, 1000000000)
BEGIN;
UPDATE user_filters SET seen = seen || convert_to('obj:' || :o::text, 'UTF8') WHERE user_id = :u;
INSERT INTO add_log (user_id, kind, objs) VALUES (:u, 'bytea', ARRAY['obj:' || :o::text]);
COMMIT;
EOS
	],
	add_batch => [
		2, <<"EOS"
\\set u random(1, $USERS)
\\set o random(1, 1000000000)
\\set o1 :o + 1
\\set o2 :o + 2
\\set o3 :o + 3
BEGIN;
UPDATE user_filters SET seen = seen || ARRAY['obj:' || :o::text, 'obj:' || :o1::text, 'obj:' || :o2::text, 'obj:' || :o3::text] WHERE user_id = :u;
INSERT INTO add_log (user_id, kind, objs) VALUES (:u, 'text', ARRAY['obj:' || :o::text, 'obj:' || :o1::text, 'obj:' || :o2::text, 'obj:' || :o3::text]);
COMMIT;
EOS
	],
	add_union => [
		1, <<"EOS"
\\set u random(1, $USERS)
\\set o random(1, 1000000000)
BEGIN;
UPDATE user_filters SET seen = seen || sbf_add(NULL::scalablebloom, 'obj:' || :o::text) WHERE user_id = :u;
INSERT INTO add_log (user_id, kind, objs) VALUES (:u, 'text', ARRAY['obj:' || :o::text]);
COMMIT;
EOS
	],);

=pod

=head1 FUNCTIONS

=over

=item SbfLoad::setup($node)

Creates the extension, the hot users' filters and the log table.

=cut

sub setup
{
	my ($node) = @_;

	$node->safe_psql(
		'postgres', qq{
		CREATE EXTENSION sbf;
		CREATE TABLE user_filters (user_id int PRIMARY KEY, seen scalablebloom);
		INSERT INTO user_filters
			SELECT u, CASE WHEN u > 1 THEN sbf_empty() END
			FROM generate_series(1, $USERS) u;
		CREATE TABLE add_log (
			id bigserial PRIMARY KEY,
			user_id int NOT NULL,
			kind text NOT NULL,
			objs text[] NOT NULL);
	});
	return;
}

=pod

=item SbfLoad::start($node, clients => N, seconds => S)

Starts pgbench in the background, returns a handle for C<finish>.

=cut

sub start
{
	my ($node, %opts) = @_;
	my $clients = $opts{clients} // 8;
	my $seconds = $opts{seconds} // 20;
	my $dir = PostgreSQL::Test::Utils::tempdir;
	my @files;

	foreach my $name (sort keys %SCRIPTS)
	{
		my ($weight, $text) = @{ $SCRIPTS{$name} };
		my $file = "$dir/$name.sql";
		PostgreSQL::Test::Utils::append_to_file($file, $text);
		push @files, '-f', "$file\@$weight";
	}

	my $load = { out => '', err => '' };
	my @cmd = (
		'pgbench', '--no-vacuum',
		'--client' => $clients,
		'--jobs' => 2,
		'--time' => $seconds,
		'--host' => $node->host,
		'--port' => $node->port,
		@files, 'postgres');
	$load->{harness} =
	  IPC::Run::start(\@cmd, '>', \$load->{out}, '2>', \$load->{err});
	return $load;
}

=pod

=item SbfLoad::finish($load)

Waits for pgbench to end; returns a hash with its exit code C<rc>, the
transactions it saw committed (C<processed>, undef if it printed no
summary), the C<failed> ones, the number of C<aborted> clients and its
C<stdout> and C<stderr>.

=cut

sub finish
{
	my ($load) = @_;

	$load->{harness}->finish;
	my $out = $load->{out};
	my $err = $load->{err};
	my %res = (
		rc => $load->{harness}->result(0),
		stdout => $out,
		stderr => $err);
	$res{processed} = $1
	  if $out =~ /number of transactions actually processed: (\d+)/;
	$res{failed} = $out =~ /number of failed transactions: (\d+)/ ? $1 : 0;
	$res{aborted} = () = $err =~ /client \d+ aborted/g;
	$res{tps} = $1 if $out =~ /tps = ([\d.]+)/;
	return \%res;
}

=pod

=item SbfLoad::check($node)

Probes every logged object in the filter of its user, with the element type
it was added with.  Returns a hash: C<transactions> (log rows), C<objects>
(logged objects), C<distinct> (distinct user/object pairs) and C<misses>
(logged objects not contained: false negatives).  Also C<matches_misses>,
the same count through sbf_matches, one call per user.

=cut

sub check
{
	my ($node) = @_;

	my $row = $node->safe_psql(
		'postgres', q{
		SELECT count(DISTINCT l.id),
			   count(*),
			   count(DISTINCT (l.user_id, l.kind, o)),
			   count(*) FILTER (WHERE NOT coalesce(
				   CASE l.kind
					   WHEN 'bigint' THEN f.seen @> o::bigint
					   WHEN 'bytea' THEN f.seen @> convert_to(o, 'UTF8')
					   ELSE f.seen @> o
				   END, false))
		FROM add_log l
			 LEFT JOIN user_filters f USING (user_id)
			 CROSS JOIN LATERAL unnest(l.objs) o
	});
	my %res;
	@res{qw(transactions objects distinct misses)} = split /\|/, $row;

	# The same question through the batch lookup: one call per user and
	# element type, misses = probes - matches.
	$res{matches_misses} = $node->safe_psql(
		'postgres', q{
		SELECT coalesce(sum(p.n - coalesce(p.hits, 0)), 0)
		FROM (
			SELECT count(*) AS n,
				   sbf_matches(
					   (SELECT seen FROM user_filters WHERE user_id = l.user_id),
					   array_agg(o)) AS hits
			FROM add_log l CROSS JOIN LATERAL unnest(l.objs) o
			WHERE l.kind = 'text'
			GROUP BY l.user_id
			UNION ALL
			SELECT count(*),
				   sbf_matches(
					   (SELECT seen FROM user_filters WHERE user_id = l.user_id),
					   array_agg(o::bigint))
			FROM add_log l CROSS JOIN LATERAL unnest(l.objs) o
			WHERE l.kind = 'bigint'
			GROUP BY l.user_id) p
	});
	return \%res;
}

=pod

=item SbfLoad::filter_stats($node)

One line per user: logged distinct objects, the HyperLogLog estimate, the
number of segments and the stored size.

=cut

sub filter_stats
{
	my ($node) = @_;

	return $node->safe_psql(
		'postgres', q{
		SELECT string_agg(format('user %s: %s distinct objects logged, # seen = %s, %s segments, %s bytes',
								 f.user_id, d.n, # f.seen,
								 jsonb_array_length(sbf_info(f.seen) -> 'segments'),
								 pg_column_size(f.seen)), E'\n' ORDER BY f.user_id)
		FROM user_filters f
			 LEFT JOIN LATERAL (
				 SELECT count(DISTINCT (l.kind, o)) AS n
				 FROM add_log l CROSS JOIN LATERAL unnest(l.objs) o
				 WHERE l.user_id = f.user_id) d ON true
	});
}

=pod

=back

=cut

1;
