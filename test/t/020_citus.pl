# Copyright (c) sbf contributors

# sbf on Citus: a coordinator and two workers on loopback ports, set up as
# the README's "Scaling out -> Citus" section shows.
#
#   1. CREATE EXTENSION sbf on the coordinator reaches the workers.
#   2. INSERT INTO user_filters SELECT user_id, sbf_agg(object) ... GROUP BY
#      user_id (co-located tables) runs on the workers; the filters equal,
#      byte for byte, those one server builds from the same rows.
#   3. sbf_agg grouped by something other than the distribution column (and
#      with no GROUP BY), sbf_union_agg and sbf_hashset_union_agg aggregate
#      and sbf_window_agg (1.2's windowed filters: its state is a
#      scalablebloom)
#      partially on the workers (worker_partial_agg in each task's query,
#      coord_combine_agg on the coordinator): one partial state per shard and
#      group travels, not the rows.  The results equal the single-server ones
#      byte for byte.
#   4. The ranking query (reference table posts joined to one user's filter)
#      and UPDATE ... SET seen = seen || ... are router plans (one task, one
#      worker), give the single-server answers and no false negative.
#   5. citus_move_shard_placement moves a shard group to the other worker and
#      leaves every filter byte-identical.
#
# The "single server" is plain tables on the coordinator (Citus leaves
# tables it was not asked to distribute alone), filled with the same rows.
#
# Needs Citus installed into the PostgreSQL under test (test/citus_setup.sh
# builds it from source when CITUS_SRC is set; Citus Data's packages work
# too); skipped otherwise.  Four shards per table keep the run short.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $coord = PostgreSQL::Test::Cluster->new('coordinator');

# Skip where Citus is not installed, before any initdb.
my $sharedir = $coord->config_data('--sharedir');
my $pkglibdir = $coord->config_data('--pkglibdir');
if (!-f "$sharedir/extension/citus.control" || !-f "$pkglibdir/citus.so")
{
	plan skip_all => "Citus is not installed in $pkglibdir "
	  . '(set CITUS_SRC, see test/citus_setup.sh, or install Citus Data\'s package)';
}

my @workers = map { PostgreSQL::Test::Cluster->new("worker$_") } (1, 2);
my $shard_count = 4;

# ---------------------------------------------------------------------------
# Three servers: Citus preloaded, reachable on 127.0.0.1 (the nodes connect
# to each other over TCP; the test itself uses the Unix sockets)
# ---------------------------------------------------------------------------

for my $node ($coord, @workers)
{
	$node->init;
	# wal_level = logical and WAL senders (the test module turns them off):
	# shard moves copy and catch up through logical replication.  Prepared
	# transactions: Citus commits multi-shard writes with two-phase commit.
	$node->append_conf(
		'postgresql.conf', qq{
shared_preload_libraries = 'citus'
listen_addresses = '127.0.0.1'
wal_level = logical
max_wal_senders = 10
max_replication_slots = 10
max_prepared_transactions = 20
citus.shard_count = $shard_count
});
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION citus;');
}

my $coord_port = $coord->port;
$coord->safe_psql('postgres',
	"SELECT citus_set_coordinator_host('127.0.0.1', $coord_port);");
for my $w (@workers)
{
	my $port = $w->port;
	$coord->safe_psql('postgres',
		"SELECT citus_add_node('127.0.0.1', $port);");
}
is( $coord->safe_psql(
		'postgres',
		q{SELECT count(*) FROM pg_dist_node WHERE noderole = 'primary' AND groupid > 0}),
	2,
	'two workers joined the cluster');

# sbf is created on the coordinator only; Citus creates it on the workers.
$coord->safe_psql('postgres', 'CREATE EXTENSION sbf;');
my $version = $coord->safe_psql('postgres',
	q{SELECT extversion FROM pg_extension WHERE extname = 'sbf'});
for my $i (0, 1)
{
	is( $workers[$i]->safe_psql(
			'postgres',
			q{SELECT extversion FROM pg_extension WHERE extname = 'sbf'}),
		$version,
		"CREATE EXTENSION sbf reached worker " . ($i + 1) . " (version $version)");
}

# ---------------------------------------------------------------------------
# Tables and data
# ---------------------------------------------------------------------------

# Distributed and reference tables, and plain copies for the single server.
# REPLICA IDENTITY / primary keys: shard moves replicate logically.
$coord->safe_psql(
	'postgres', q{
	CREATE TABLE interactions (user_id int NOT NULL, day int NOT NULL,
							   object text NOT NULL);
	ALTER TABLE interactions REPLICA IDENTITY FULL;
	SELECT create_distributed_table('interactions', 'user_id');

	CREATE TABLE user_filters (user_id int PRIMARY KEY, seen scalablebloom);
	SELECT create_distributed_table('user_filters', 'user_id',
									colocate_with => 'interactions');

	-- each user's interactions with posts, in filters of one fixed
	-- geometry (a single 2,500-element segment; there are 2,000 posts), so
	-- that a union of all of them stays within its error rate
	CREATE TABLE fixed_filters (user_id int PRIMARY KEY, seen scalablebloom);
	SELECT create_distributed_table('fixed_filters', 'user_id',
									colocate_with => 'interactions');

	CREATE TABLE posts (post_id int PRIMARY KEY, object text NOT NULL,
						score int NOT NULL);
	SELECT create_reference_table('posts');

	CREATE TABLE interactions_local (user_id int NOT NULL, day int NOT NULL,
									 object text NOT NULL);
	CREATE TABLE user_filters_local (user_id int PRIMARY KEY, seen scalablebloom);
	CREATE TABLE fixed_filters_local (user_id int PRIMARY KEY, seen scalablebloom);
	CREATE TABLE posts_local (post_id int PRIMARY KEY, object text NOT NULL,
							  score int NOT NULL);
});

# 300 users with 5 to 200 distinct objects each over 4 days, some repeated;
# every user whose id ends in 3 has seen sku:1.  2,000 posts, one per object
# sku:0 .. sku:1999.
my $rows = q{
	SELECT u, 1 + (u + i) % 4, 'sku:' || ((u * 7919 + i * 104729) % 20011)
	FROM generate_series(1, 300) AS u,
		 generate_series(1, 5 + (u * 37) % 196) AS i,
		 generate_series(1, 1 + u % 3) AS repeat
	UNION ALL
	SELECT u, 1, 'sku:1' FROM generate_series(3, 300, 10) AS u
};
my $posts = q{
	SELECT k, 'sku:' || k, (k * 7907) % 1000 FROM generate_series(0, 1999) AS k
};
$coord->safe_psql(
	'postgres', qq{
	INSERT INTO interactions $rows;
	INSERT INTO interactions_local $rows;
	INSERT INTO posts $posts;
	INSERT INTO posts_local $posts;
	ANALYZE interactions_local, posts_local;
});

is( $coord->safe_psql(
		'postgres', q{
		SELECT count(DISTINCT nodeport) FROM citus_shards
		WHERE table_name = 'interactions'::regclass}),
	2,
	"interactions' $shard_count shards are spread over both workers");
my $raw_rows = $coord->safe_psql('postgres', 'SELECT count(*) FROM interactions');
is($raw_rows,
	$coord->safe_psql('postgres', 'SELECT count(*) FROM interactions_local'),
	"the distributed table holds all $raw_rows rows");

# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------

# EXPLAIN (VERBOSE, COSTS OFF) of a query on the coordinator; shown in the
# verbose output, returned as one string.
sub show_plan
{
	my ($query, $analyze) = @_;
	my $opts = $analyze ? 'ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF'
	  : 'VERBOSE, COSTS OFF';
	my $plan = $coord->safe_psql('postgres', "EXPLAIN ($opts) $query");
	note("EXPLAIN ($opts) $query\n$plan");
	return $plan;
}

# The task queries ("Query: ...") of a Citus plan.
sub task_queries
{
	my ($plan) = @_;
	return map { s/^\s+Query: //r } grep { /^\s+Query: / } split /\n/, $plan;
}

# The Task Count of a Citus plan.
sub task_count
{
	my ($plan) = @_;
	return $plan =~ /Task Count: (\d+)/ ? $1 : -1;
}

# One line per row, "key:md5 of the filter's bytes", in key order.
sub digests
{
	my ($query) = @_;
	return $coord->safe_psql(
		'postgres', qq{
		SELECT string_agg(k || ':' || coalesce(md5(bytea(f)), 'NULL'), E'\n'
						  ORDER BY k)
		FROM ($query) AS q(k, f)});
}

# ---------------------------------------------------------------------------
# 1. Per-user filters: INSERT ... SELECT pushed down to the workers
# ---------------------------------------------------------------------------

my $build = 'INSERT INTO user_filters '
  . 'SELECT user_id, sbf_agg(object) FROM interactions GROUP BY user_id';
my $plan = show_plan($build);
is(task_count($plan), $shard_count, 'the build is one task per shard');
# every task's query (EXPLAIN shows one unless citus.explain_all_tasks is on)
my @tasks = task_queries(
	$coord->safe_psql('postgres',
		"SET citus.explain_all_tasks = on; EXPLAIN (VERBOSE, COSTS OFF) $build"));
my %shards = map { /^INSERT INTO public\.user_filters_(\d+) / ? ($1 => 1) : () } @tasks;
is(scalar(@tasks), $shard_count, 'the plan shows every task of the build');
is( scalar(grep { /^INSERT INTO public\.user_filters_\d+ .*\bsbf_agg\((interactions\.)?object\)/ } @tasks),
	$shard_count,
	'each task inserts into a user_filters shard from its own sbf_agg');
is(scalar(keys %shards), $shard_count, 'each task writes a different shard');
unlike($plan, qr/pull to coordinator|repartition/i,
	'no row goes through the coordinator');

$coord->safe_psql(
	'postgres', qq{
	$build;
	INSERT INTO user_filters_local
		SELECT user_id, sbf_agg(object) FROM interactions_local GROUP BY user_id;
});
is($coord->safe_psql('postgres', 'SELECT count(*) FROM user_filters'),
	300, 'one filter per user');
my $user_digests =
  digests('SELECT user_id, seen FROM user_filters_local');
is(digests('SELECT user_id, seen FROM user_filters'),
	$user_digests,
	'filters built on the workers equal the single-server filters byte for byte');

# Zero false negatives: a co-located join, run on the workers.
is( $coord->safe_psql(
		'postgres', q{
		SELECT count(*) FROM interactions i JOIN user_filters f USING (user_id)
		WHERE NOT f.seen @> i.object}),
	0,
	'every interaction is in its user\'s filter');

# Fixed-geometry filters for the union below: each user's interactions with
# posts (a join with the reference table, also run on the workers).
$coord->safe_psql(
	'postgres', q{
	INSERT INTO fixed_filters
		SELECT user_id, sbf_add(sbf_empty(2500), array_agg(object))
		FROM interactions JOIN posts USING (object) GROUP BY user_id;
	INSERT INTO fixed_filters_local
		SELECT user_id, sbf_add(sbf_empty(2500), array_agg(object))
		FROM interactions_local JOIN posts_local USING (object) GROUP BY user_id;
});
my $fixed_count = $coord->safe_psql('postgres', 'SELECT count(*) FROM fixed_filters');
ok($fixed_count > 100, "$fixed_count users have post filters");
is(digests('SELECT user_id, seen FROM fixed_filters'),
	digests('SELECT user_id, seen FROM fixed_filters_local'),
	'fixed-geometry filters equal the single-server ones byte for byte');

# ---------------------------------------------------------------------------
# 2. Cross-shard aggregates: partial on the workers, combined on the
#    coordinator
# ---------------------------------------------------------------------------

# What the workers send back for a query: each task's query (EXPLAIN
# VERBOSE with citus.explain_all_tasks) run again on its worker, counting
# the rows and the bytes of their columns' text form (Citus's transfer
# format for these types).  Citus 13.2 cannot EXPLAIN ANALYZE a partially aggregated custom
# aggregate (its wrapper declares the worker_partial_agg column as cstring,
# which PostgreSQL refuses), so this measures what EXPLAIN ANALYZE would show
# as "Tuple data received from nodes", for both kinds of plan alike.
sub shipped
{
	my ($plan) = @_;
	my %by_port = map { $_->port => $_ } @workers;
	my ($rows, $bytes, $tasks) = (0, 0, 0);
	while ($plan =~ /^\s+Query: (.*)\n\s+Node: host=\S+ port=(\d+)/mg)
	{
		my ($query, $port) = ($1, $2);
		my ($r, $b) = split /\|/, $by_port{$port}->safe_psql('postgres',
			"SELECT count(*), coalesce(sum((SELECT sum(octet_length(v)) FROM json_each_text(row_to_json(t)) AS c(k, v))), 0) FROM ($query) AS t");
		$rows += $r;
		$bytes += $b;
		$tasks++;
	}
	return ($rows, $bytes, $tasks);
}

# Checks one cross-shard aggregate query: the plan sends worker_partial_agg
# to every shard and combines on the coordinator; the workers send at most
# one row per shard and group; the results equal the same query over the
# plain tables byte for byte.
sub check_partial
{
	my ($name, $query, $groups, $local_query, $input_rows) = @_;

	my $p = show_plan($query);
	my @q = task_queries($p);
	# Citus 13 sends the states as text (worker_partial_agg,
	# coord_combine_agg), Citus 14 in binary (worker_binary_partial_agg,
	# coord_binary_combine_agg, through the types' send and receive)
	ok( @q && !(grep { !/worker_(?:binary_)?partial_agg\(/ } @q),
		"$name: the workers run worker_partial_agg");
	like($p, qr/coord_(?:binary_)?combine_agg\(/,
		"$name: the coordinator combines the partial states");

	my ($rows, $bytes, $tasks) = shipped(
		$coord->safe_psql('postgres',
			"SET citus.explain_all_tasks = on; EXPLAIN (VERBOSE, COSTS OFF) $query"));
	is($tasks, $shard_count, "$name: one task per shard");
	ok( $rows <= $shard_count * $groups,
		"$name: the workers send $rows rows, $bytes bytes (at most $shard_count shards x $groups groups, of $input_rows input rows)"
	);

	is(digests($query), digests($local_query),
		"$name: results equal the single server's byte for byte");
	return;
}

check_partial(
	'sbf_agg GROUP BY day',
	'SELECT day, sbf_agg(object) FROM interactions GROUP BY day',
	4, 'SELECT day, sbf_agg(object) FROM interactions_local GROUP BY day',
	$raw_rows);
check_partial(
	'sbf_agg without GROUP BY',
	'SELECT 0, sbf_agg(object) FROM interactions',
	1, 'SELECT 0, sbf_agg(object) FROM interactions_local', $raw_rows);
check_partial(
	'sbf_agg(object, 0.001) GROUP BY day',
	'SELECT day, sbf_agg(object, 0.001) FROM interactions GROUP BY day',
	4, 'SELECT day, sbf_agg(object, 0.001) FROM interactions_local GROUP BY day',
	$raw_rows);
check_partial(
	'sbf_window_agg(object, at) GROUP BY user_id % 3',
	q{SELECT user_id % 3, sbf_window_agg(object, timestamptz '2026-01-01 00:00+00' + day * interval '1 day', '1 day', 7) FROM interactions GROUP BY 1},
	3, q{SELECT user_id % 3, sbf_window_agg(object, timestamptz '2026-01-01 00:00+00' + day * interval '1 day', '1 day', 7) FROM interactions_local GROUP BY 1},
	$raw_rows);
check_partial(
	'sbf_window_agg(object, at) without GROUP BY',
	q{SELECT 0, sbf_window_agg(object, timestamptz '2026-01-01 00:00+00' + day * interval '1 day') FROM interactions},
	1, q{SELECT 0, sbf_window_agg(object, timestamptz '2026-01-01 00:00+00' + day * interval '1 day') FROM interactions_local},
	$raw_rows);
is( $coord->safe_psql(
		'postgres', q{
		SELECT count(*) FROM interactions_local i,
			(SELECT sbf_window_agg(object, timestamptz '2026-01-01 00:00+00' + day * interval '1 day') AS w
			 FROM interactions) AS a
		WHERE NOT sbf_contains(a.w, i.object, timestamptz '2026-01-01 00:00+00' + i.day * interval '1 day')}),
	0,
	'the cross-shard windowed filter has no false negative, since each row\'s day');
check_partial(
	'sbf_union_agg without GROUP BY',
	'SELECT 0, sbf_union_agg(seen) FROM fixed_filters',
	1, 'SELECT 0, sbf_union_agg(seen) FROM fixed_filters_local', $fixed_count);
check_partial(
	'sbf_union_agg GROUP BY user_id % 3',
	'SELECT user_id % 3, sbf_union_agg(seen) FROM fixed_filters GROUP BY 1',
	3, 'SELECT user_id % 3, sbf_union_agg(seen) FROM fixed_filters_local GROUP BY 1',
	$fixed_count);

# The rollup recipe: exact per-user, per-day sets stored next to the raw
# rows (built on the workers), united across shards into any window's
# filter, which equals sbf_agg over that window's raw rows.
$coord->safe_psql(
	'postgres', q{
	CREATE TABLE daily_sets (user_id int, day int, h sbf_hashset,
							 PRIMARY KEY (user_id, day));
	SELECT create_distributed_table('daily_sets', 'user_id',
									colocate_with => 'interactions');
	INSERT INTO daily_sets
		SELECT user_id, day, sbf_hashset_agg(object) FROM interactions
		GROUP BY user_id, day;
});
check_partial(
	'sbf_build(sbf_hashset_union_agg(h)) GROUP BY day',
	'SELECT day, sbf_build(sbf_hashset_union_agg(h)) FROM daily_sets GROUP BY day',
	4, 'SELECT day, sbf_agg(object) FROM interactions_local GROUP BY day',
	$coord->safe_psql('postgres', 'SELECT count(*) FROM daily_sets'));

is( $coord->safe_psql(
		'postgres', q{
		SELECT count(*) FROM interactions_local i JOIN posts_local USING (object),
			(SELECT sbf_union_agg(seen) AS u FROM fixed_filters) AS a
		WHERE NOT a.u @> i.object}),
	0,
	'the cross-shard union contains every interaction with a post');

# ---------------------------------------------------------------------------
# 3. Router plans: one user's ranking and update go to one worker
# ---------------------------------------------------------------------------

# Posts user 43 has not seen, best first.
my $rank = q{
	SELECT p.post_id FROM posts%s p JOIN user_filters%s f ON f.user_id = 43
	WHERE NOT f.seen @> p.object
	ORDER BY p.score DESC, p.post_id LIMIT 50};
my $rank_dist = sprintf($rank, '', '');
$plan = show_plan($rank_dist);
is(task_count($plan), 1, 'the ranking query is one task');
like($plan, qr/Custom Scan \(Citus Adaptive\)/, 'planned by Citus');
unlike($plan, qr/Task Count: [2-9]|Distributed Subplan/,
	'with no subplan or other task');
my $ranked = $coord->safe_psql('postgres', $rank_dist);
is($ranked, $coord->safe_psql('postgres', sprintf($rank, '_local', '_local')),
	'the ranking equals the single server\'s');

# No post user 43 has seen is ranked as unseen (among all 2,000 posts).
my $seen_posts = $coord->safe_psql(
	'postgres', q{
	SELECT count(DISTINCT p.post_id) FROM posts p JOIN interactions i
		ON i.user_id = 43 AND i.object = p.object});
ok($seen_posts > 0, "user 43 has seen $seen_posts posts");
is( $coord->safe_psql(
		'postgres', q{
		SELECT count(*) FROM posts p JOIN user_filters f ON f.user_id = 43
		WHERE NOT f.seen @> p.object
		  AND p.object IN (SELECT object FROM interactions WHERE user_id = 43)}),
	0,
	'no post user 43 has seen is ranked as unseen');

my $update = q{UPDATE user_filters%s SET seen = seen || ('post:' || %d) WHERE user_id = %d};
$plan = show_plan(sprintf($update, '', 1, 43));
is(task_count($plan), 1, 'UPDATE ... SET seen = seen || ... is one task');
like(join("\n", task_queries($plan)),
	qr/^UPDATE public\.user_filters_\d+ .*WHERE \(user_id OPERATOR\(pg_catalog\.=\) 43\)/m,
	'sent to the shard of user 43 with the filter update in it');

# The same updates on both sides: every user gets one new object.
$coord->safe_psql(
	'postgres',
	join(";\n",
		map { sprintf($update, '', 5000 + $_, $_), sprintf($update, '_local', 5000 + $_, $_) }
		  (1 .. 300)));
$user_digests = digests('SELECT user_id, seen FROM user_filters_local');
is(digests('SELECT user_id, seen FROM user_filters'),
	$user_digests, 'after 300 routed updates the filters still equal the single server\'s');
is( $coord->safe_psql(
		'postgres', q{
		SELECT count(*) FROM user_filters WHERE NOT seen @> ('post:' || 5000 + user_id)}),
	0,
	'every update is in its filter');

# ---------------------------------------------------------------------------
# 4. A shard move leaves every filter byte-identical
# ---------------------------------------------------------------------------

my ($shard, $from_port) = split /\|/, $coord->safe_psql(
	'postgres', q{
	SELECT shardid, nodeport FROM citus_shards
	WHERE shardid = get_shard_id_for_distribution_column('user_filters', 43)});
my ($to) = grep { $_->port != $from_port } @workers;
my $to_port = $to->port;
my $fixed_digests = digests('SELECT user_id, seen FROM fixed_filters');

$coord->safe_psql('postgres',
	"SELECT citus_move_shard_placement($shard, '127.0.0.1', $from_port, '127.0.0.1', $to_port)"
);
is( $coord->safe_psql(
		'postgres', "SELECT nodeport FROM citus_shards WHERE shardid = $shard"),
	$to_port,
	"shard $shard of user_filters moved from port $from_port to $to_port");
is( $coord->safe_psql(
		'postgres', qq{
		SELECT count(DISTINCT nodeport) FROM citus_shards
		WHERE table_name::text IN ('user_filters', 'fixed_filters', 'interactions',
								  'daily_sets')
		  AND shardid IN (SELECT shardid FROM pg_dist_shard
						  WHERE shardminvalue = (SELECT shardminvalue FROM pg_dist_shard
												 WHERE shardid = $shard))}),
	1,
	'its co-located shards moved with it');
is(digests('SELECT user_id, seen FROM user_filters'),
	$user_digests, 'after the move every per-user filter is byte-identical');
is(digests('SELECT user_id, seen FROM fixed_filters'),
	$fixed_digests, 'and so is every fixed-geometry filter');
is($coord->safe_psql('postgres', $rank_dist),
	$ranked, 'the ranking of user 43 is unchanged, now served by the other worker');

done_testing();
