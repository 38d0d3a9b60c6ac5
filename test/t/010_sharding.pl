# Copyright (c) sbf contributors

# sbf on a sharded PostgreSQL: a coordinator and two shard servers joined by
# PostgreSQL's own hash partitioning and postgres_fdw, set up as the README's
# "Scaling out" section shows.
#
#   1. With the foreign servers' option  extensions 'sbf'  and
#      enable_partitionwise_aggregate, sbf_agg ... GROUP BY user_id runs on
#      the shards (each partition's Remote SQL contains sbf_agg), and the
#      filters that come back equal, byte for byte, those one server builds
#      from the same rows.
#   2. Membership conditions on a sharded user_filters table are evaluated by
#      the shards, and give the single-server answers.  A text element is
#      shipped because scalablebloom is a collatable type (postgres_fdw's
#      collation rule).
#   3. sbf_union_agg over per-day filters that live on different shards
#      contains every element of every shard; its HyperLogLog equals the
#      single-server one.
#
# Unix sockets and the test modules' defaults; three initdb runs dominate the
# run time (well under a minute).

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# ---------------------------------------------------------------------------
# Three servers, sbf and postgres_fdw on each
# ---------------------------------------------------------------------------

my $coord = PostgreSQL::Test::Cluster->new('coordinator');
my @shards = map { PostgreSQL::Test::Cluster->new("shard$_") } (0, 1);

for my $node ($coord, @shards)
{
	$node->init;
	$node->start;
	$node->safe_psql('postgres',
		'CREATE EXTENSION sbf; CREATE EXTENSION postgres_fdw;');
}

# Shard side: plain tables, one share of each sharded table per shard.
for my $node (@shards)
{
	$node->safe_psql(
		'postgres', q{
		CREATE TABLE interactions (user_id int NOT NULL, object text NOT NULL);
		CREATE TABLE user_filters (user_id int NOT NULL, seen scalablebloom);
		CREATE TABLE events (day int NOT NULL, user_id int NOT NULL,
							 object text NOT NULL);
	});
}

# Coordinator side: a foreign server per shard whose option extensions 'sbf'
# tells postgres_fdw that sbf's types, functions, operators and aggregates
# exist on the remote side and may be sent there.
for my $i (0, 1)
{
	my ($host, $port) = ($shards[$i]->host, $shards[$i]->port);
	$coord->safe_psql(
		'postgres', qq{
		CREATE SERVER shard$i FOREIGN DATA WRAPPER postgres_fdw
			OPTIONS (host '$host', port '$port', dbname 'postgres',
					 extensions 'sbf', batch_size '1000');
		CREATE USER MAPPING FOR CURRENT_USER SERVER shard$i;
	});
}

$coord->safe_psql(
	'postgres', q{
	-- interactions and user_filters: hash-partitioned by user_id, one
	-- partition per shard (the same modulus, so a user's rows and filter
	-- live on the same shard)
	CREATE TABLE interactions (user_id int NOT NULL, object text NOT NULL)
		PARTITION BY HASH (user_id);
	CREATE FOREIGN TABLE interactions_0 PARTITION OF interactions
		FOR VALUES WITH (MODULUS 2, REMAINDER 0)
		SERVER shard0 OPTIONS (table_name 'interactions');
	CREATE FOREIGN TABLE interactions_1 PARTITION OF interactions
		FOR VALUES WITH (MODULUS 2, REMAINDER 1)
		SERVER shard1 OPTIONS (table_name 'interactions');

	CREATE TABLE user_filters (user_id int NOT NULL, seen scalablebloom)
		PARTITION BY HASH (user_id);
	CREATE FOREIGN TABLE user_filters_0 PARTITION OF user_filters
		FOR VALUES WITH (MODULUS 2, REMAINDER 0)
		SERVER shard0 OPTIONS (table_name 'user_filters');
	CREATE FOREIGN TABLE user_filters_1 PARTITION OF user_filters
		FOR VALUES WITH (MODULUS 2, REMAINDER 1)
		SERVER shard1 OPTIONS (table_name 'user_filters');

	-- events: keyed differently, by day (days 1-2 on shard0, 3-4 on shard1),
	-- so every user's events are spread over both shards
	CREATE TABLE events (day int NOT NULL, user_id int NOT NULL,
						 object text NOT NULL)
		PARTITION BY RANGE (day);
	CREATE FOREIGN TABLE events_0 PARTITION OF events
		FOR VALUES FROM (1) TO (3)
		SERVER shard0 OPTIONS (table_name 'events');
	CREATE FOREIGN TABLE events_1 PARTITION OF events
		FOR VALUES FROM (3) TO (5)
		SERVER shard1 OPTIONS (table_name 'events');

	-- the same data on one server, for comparison
	CREATE TABLE interactions_single (user_id int NOT NULL, object text NOT NULL);
	CREATE TABLE events_single (day int NOT NULL, user_id int NOT NULL,
								object text NOT NULL);

	ALTER DATABASE postgres SET enable_partitionwise_aggregate = on;
});

# ---------------------------------------------------------------------------
# Data: 300 users with 5 to 200 distinct objects each, some repeated; every
# user whose id ends in 3 has seen sku:1.  Inserted through the coordinator,
# which routes each row to its shard.
# ---------------------------------------------------------------------------

my $rows = q{
	SELECT u, 'sku:' || ((u * 7919 + i * 104729) % 20011)
	FROM generate_series(1, 300) AS u,
		 generate_series(1, 5 + (u * 37) % 196) AS i,
		 generate_series(1, 1 + u % 3) AS repeat
	UNION ALL
	SELECT u, 'sku:1' FROM generate_series(3, 300, 10) AS u
};
my $event_rows = q{
	SELECT 1 + (u + i) % 4, u, 'brand:' || ((u * 131 + i * 7) % 5003)
	FROM generate_series(1, 300) AS u, generate_series(1, 40 + u % 60) AS i
};
$coord->safe_psql(
	'postgres', qq{
	INSERT INTO interactions $rows;
	INSERT INTO interactions_single $rows;
	INSERT INTO events $event_rows;
	INSERT INTO events_single $event_rows;
	ANALYZE interactions, interactions_single, events, events_single;
});

my ($rows0, $rows1) =
  map { $_->safe_psql('postgres', 'SELECT count(*) FROM interactions') }
  @shards;
ok($rows0 > 0 && $rows1 > 0,
	"interactions are spread over both shards ($rows0 + $rows1 rows)");

# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------

# EXPLAIN (VERBOSE, COSTS OFF) of a query on the coordinator; the plan is
# shown in the verbose output and returned as one string.
sub show_plan
{
	my ($query) = @_;
	my $plan =
	  $coord->safe_psql('postgres', "EXPLAIN (VERBOSE, COSTS OFF) $query");
	note("EXPLAIN (VERBOSE, COSTS OFF) $query\n$plan");
	return $plan;
}

# The Remote SQL lines of a plan.
sub remote_sql
{
	my ($plan) = @_;
	return map { s/^\s+//r } grep { /Remote SQL:/ } split /\n/, $plan;
}

# ---------------------------------------------------------------------------
# 1. sbf_agg ... GROUP BY user_id runs on the shards
# ---------------------------------------------------------------------------

my $agg_query =
  'SELECT user_id, sbf_agg(object) AS seen FROM interactions GROUP BY user_id';
my $plan = show_plan($agg_query);
my @remote = remote_sql($plan);

is(scalar(grep { /\bsbf_agg\(object\).* GROUP BY 1\b/ } @remote),
	2, 'sbf_agg runs on both shards (partitionwise aggregate pushed down)');
unlike($plan, qr/(Hash|Group)Aggregate/,
	'no aggregation is left to the coordinator');
like($plan, qr/Relations: Aggregate on \(public\.interactions_0\b/,
	'shard0 partition is an aggregate foreign scan');
like($plan, qr/Relations: Aggregate on \(public\.interactions_1\b/,
	'shard1 partition is an aggregate foreign scan');

# The filters the shards build, stored in the sharded user_filters (the
# INSERT routes each user's filter back to the shard that built it), and the
# same aggregate over the same rows on one server.
$coord->safe_psql(
	'postgres', qq{
	INSERT INTO user_filters $agg_query;
	CREATE TABLE user_filters_single AS
		SELECT user_id, sbf_agg(object) AS seen
		FROM interactions_single GROUP BY user_id;
	ANALYZE user_filters, user_filters_single;
});

is( $coord->safe_psql(
		'postgres', q{
		SELECT count(*) FROM user_filters s
		FULL JOIN user_filters_single l USING (user_id)
		WHERE s.seen IS NULL OR l.seen IS NULL
		   OR md5(bytea(s.seen)) <> md5(bytea(l.seen))}),
	0,
	'filters built on the shards equal the single-server filters byte for byte'
);
is($coord->safe_psql('postgres', 'SELECT count(*) FROM user_filters'),
	300, 'one filter per user');

# Also straight from the pushed-down query, without storing the result.
is( $coord->safe_psql(
		'postgres', qq{
		SELECT count(*) FROM ($agg_query) s
		JOIN user_filters_single l USING (user_id)
		WHERE md5(bytea(s.seen)) = md5(bytea(l.seen))}),
	300,
	'the pushed-down aggregate returns the single-server filters');

# No false negatives: every interaction is in its user's filter.
is( $coord->safe_psql(
		'postgres', q{
		SELECT count(*) FROM interactions_single i
		JOIN user_filters f USING (user_id)
		WHERE NOT f.seen @> i.object}),
	0,
	'every interaction is in its user\'s sharded filter');

# ---------------------------------------------------------------------------
# 2. A membership condition on the sharded user_filters
# ---------------------------------------------------------------------------

my $member_query = q{SELECT user_id FROM user_filters WHERE seen @> 'sku:1'};
$plan = show_plan($member_query);
@remote = remote_sql($plan);

# postgres_fdw ships an operator whose input has a collation only when that
# collation comes from a column of the foreign table.  The text element
# 'sku:1' carries the default collation; scalablebloom is declared
# COLLATABLE so that the column seen carries it as well and the condition is
# shipped (otherwise the coordinator would fetch every filter).
is( $coord->safe_psql('postgres',
		q{SELECT typcollation <> 0 FROM pg_type
		  WHERE oid = 'scalablebloom'::regtype}),
	't',
	'scalablebloom is a collatable type');
is( scalar(
		grep { /WHERE \(\(seen OPERATOR\(public\.\@>\) 'sku:1'::text\)\)/ }
		  @remote),
	2,
	"seen @> 'sku:1' is evaluated on both shards");
unlike($plan, qr/^\s*Filter:/m, 'and not on the coordinator');

# The same condition with elements of types that have no collation is
# shipped in any case.  bytea hashes its bytes like text does, so
# 'sku:1'::bytea asks the same question.  postgres_fdw prints sbf's operator
# schema-qualified, as OPERATOR(public.@>).
my $member_bytea =
  q{SELECT user_id FROM user_filters WHERE seen @> 'sku:1'::bytea};
my $plan_bytea = show_plan($member_bytea);
is( scalar(
		grep {
			/WHERE \(\(seen OPERATOR\(public\.\@>\) E'\\\\x736b753a31'::bytea\)\)/
		} remote_sql($plan_bytea)),
	2,
	"seen @> 'sku:1'::bytea is evaluated on both shards");
unlike($plan_bytea, qr/^\s*Filter:/m, 'and not on the coordinator');

my $member_int = q{SELECT user_id FROM user_filters WHERE seen @> 42::bigint};
is( scalar(
		grep { /WHERE \(\(seen OPERATOR\(public\.\@>\) 42::bigint\)\)/ }
		  remote_sql(show_plan($member_int))),
	2,
	'seen @> 42::bigint is evaluated on both shards');

# Same answers: sharded vs single server, text and bytea forms, and no false
# negative among the users that really saw sku:1.
my $expected = $coord->safe_psql('postgres',
	q{SELECT user_id FROM user_filters_single WHERE seen @> 'sku:1' ORDER BY 1});
is($coord->safe_psql('postgres', "$member_query ORDER BY 1"),
	$expected, 'seen @> \'sku:1\' gives the single-server answer');
is($coord->safe_psql('postgres', "$member_bytea ORDER BY 1"),
	$expected, 'seen @> \'sku:1\'::bytea gives the same answer');
is( $coord->safe_psql(
		'postgres', q{
		SELECT count(*) FROM generate_series(3, 300, 10) AS u
		WHERE u NOT IN (SELECT user_id FROM user_filters
						WHERE seen @> 'sku:1')}),
	0,
	'every user who saw sku:1 is found');

# Many probes at once: 300 users x 2000 objects, compared as a whole.
is( $coord->safe_psql(
		'postgres', q{
		WITH probes AS (SELECT 'sku:' || k AS object
						FROM generate_series(0, 1999) AS k),
		sharded AS (SELECT user_id, object FROM user_filters, probes
					WHERE seen @> object),
		single AS (SELECT user_id, object FROM user_filters_single, probes
				   WHERE seen @> object)
		SELECT count(*) FROM
			((TABLE sharded EXCEPT ALL TABLE single)
			 UNION ALL
			 (TABLE single EXCEPT ALL TABLE sharded)) AS diff}),
	0,
	'600,000 membership answers equal the single-server ones');

# ---------------------------------------------------------------------------
# 3. sbf_union_agg over per-day filters built on different shards
# ---------------------------------------------------------------------------

my $daily_query =
  'SELECT day, user_id, sbf_agg(object) AS seen FROM events GROUP BY day, user_id';
$plan = show_plan($daily_query);
is(scalar(grep { /\bsbf_agg\(object\).* GROUP BY 1, 2\b/ } remote_sql($plan)),
	2, 'per-day filters are built on both shards');

# Four right-sized daily filters spend 4 x 0.0083 of the error budget:
# the union gets a budget of its own (1.1 refuses it within 0.01).
my $union_query = "SELECT user_id, sbf_union_agg(seen, 0.05) AS seen "
  . "FROM ($daily_query) AS daily GROUP BY user_id";
show_plan($union_query);

$coord->safe_psql(
	'postgres', qq{
	CREATE TABLE user_events AS $union_query;
	CREATE TABLE user_events_single AS
		SELECT user_id, sbf_agg(object) AS seen FROM events_single
		GROUP BY user_id;
});

is( $coord->safe_psql(
		'postgres', q{
		SELECT count(*) FROM (
			SELECT user_id FROM events_single
			GROUP BY user_id HAVING count(DISTINCT day / 3) = 2) AS on_both}),
	300,
	'every user has events on both shards');
is( $coord->safe_psql(
		'postgres', q{
		SELECT count(*) FROM events_single e
		LEFT JOIN user_events u USING (user_id)
		WHERE u.seen IS NULL OR NOT u.seen @> e.object}),
	0,
	'the union of per-shard filters contains every element of every shard');
# Format 2 counts exactly where it can (the exact form, the compact form's
# fingerprints, or the segments' distinct inserts), and with the HyperLogLog
# after a union of segmented filters, or estimates from the fingerprints a
# union of compact values kept: where neither filter is in the exact form
# their HyperLogLogs must be equal -- a segmented value's own, a compact
# value's that of its segmented form (its fingerprints and ranks list: the
# hashes' own), which a union with an empty filter shows; otherwise the
# counts agree within 2%.
my $hll = sub {
	my $f = shift;
	return qq{(CASE sbf_info($f)->>'form' WHEN 'segments' THEN sbf_info($f)->'hll'->'estimate'
			   ELSE sbf_info(sbf_union($f, sbf_empty(), 0.4))->'hll'->'estimate' END)};
};
my $same_count = q{
		(CASE WHEN sbf_info(u.seen)->>'form' <> 'exact' AND
				   sbf_info(s.seen)->>'form' <> 'exact'
			  THEN } . $hll->('u.seen') . ' = ' . $hll->('s.seen') . q{
			  ELSE abs((# u.seen) - (# s.seen)) <= greatest(1, 0.02 * (# s.seen)) END)};
is( $coord->safe_psql(
		'postgres', qq{
		SELECT count(*) FROM user_events u
		JOIN user_events_single s USING (user_id)
		WHERE $same_count}),
	300,
	'the union\'s distinct count equals the single-server one');

# The same union computed from the shards' stored filters: per-day filters
# kept in a table partitioned by day, united at query time.
for my $i (0, 1)
{
	$shards[$i]->safe_psql(
		'postgres', q{
		CREATE TABLE daily_filters AS
			SELECT day, user_id, sbf_agg(object) AS seen
			FROM events GROUP BY day, user_id});
}
$coord->safe_psql(
	'postgres', q{
	CREATE TABLE daily_filters (day int, user_id int, seen scalablebloom)
		PARTITION BY RANGE (day);
	CREATE FOREIGN TABLE daily_filters_0 PARTITION OF daily_filters
		FOR VALUES FROM (1) TO (3)
		SERVER shard0 OPTIONS (table_name 'daily_filters');
	CREATE FOREIGN TABLE daily_filters_1 PARTITION OF daily_filters
		FOR VALUES FROM (3) TO (5)
		SERVER shard1 OPTIONS (table_name 'daily_filters');
});
my $stored_union_query = 'SELECT user_id, sbf_union_agg(seen, 0.05) AS seen '
  . 'FROM daily_filters GROUP BY user_id';
show_plan($stored_union_query);

# A union's bytes do not depend on the order its inputs arrive in, so the
# stored per-day filters unite to the same bytes as the ones built above.
$coord->safe_psql('postgres',
	"CREATE TABLE user_events_stored AS $stored_union_query");
is( $coord->safe_psql(
		'postgres', q{
		SELECT count(*) FROM user_events u
		JOIN user_events_stored s USING (user_id)
		WHERE u.seen::bytea = s.seen::bytea}),
	300,
	'the stored per-day filters unite to the same bytes');
is( $coord->safe_psql(
		'postgres', q{
		SELECT count(*) FROM events_single e
		LEFT JOIN user_events_stored u USING (user_id)
		WHERE u.seen IS NULL OR NOT u.seen @> e.object}),
	0,
	'uniting the stored per-day filters contains every element of every shard'
);
is( $coord->safe_psql(
		'postgres', qq{
		SELECT count(*) FROM user_events_stored u
		JOIN user_events_single s USING (user_id)
		WHERE $same_count}),
	300,
	'and its distinct count equals the single-server one');

done_testing();
