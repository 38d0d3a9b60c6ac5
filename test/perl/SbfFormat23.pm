# Copyright (c) sbf contributors

=pod

=head1 NAME

SbfFormat23 - values written by the sbf 1.2 library, and 1.3's writes over them

=head1 SYNOPSIS

  use FindBin;
  use lib "$FindBin::RealBin/../perl";
  use SbfFormat23;

  SbfFormat23::load($node, 'upd', "$FindBin::RealBin/data/format23_values.tsv");
  my $old = $node->safe_psql('upd', $SbfFormat23::old_answers_sql);
  SbfFormat23::write_over($node, 'upd');
  my $new = $node->safe_psql('upd', $SbfFormat23::written_sql);

=head1 DESCRIPTION

The fixture F<test/t/data/format23_values.tsv> (made by
F<format23_values.sql> with the real 1.2 library) holds format-2 and
format-3 values and sbf_hashset values, each with the answers 1.2 gave.
C<load> stores them in the tables C<f23_src> (the fixture), C<f23> (the
filters), C<f23_h> (the hash sets) and C<f23_members> (every element, with
its ordinal and, for windowed values, the time it was added), and creates
the functions C<f23_project(new jsonb, old jsonb)> (C<new> cut down to the
keys and array lengths of C<old>: the sbf_info keys 1.2 showed) and
C<f23_add(f, kind, elements text[], at timestamptz)> (adds by element
type: arrays for text and bigint, single adds for bytea).  The database must
already have the functions C<probe(f, kind, e)> and C<absent(kind, g)> of
F<006_upgrade.pl>.

C<write_over> makes 1.3 write over every value: C<f23_w4 (id, op, kind, f)>
holds, per value, an C<add> of new elements, a union C<||> with a new value
of the same parameters (C<union>), C<sbf_delta> grown by new elements
(C<delta>), for windowed values live adds with C<at> in the newest bucket
(C<wadd>) and an sbf_expire two buckets later (C<expire>), and for the hash
sets the union with a new hash set built into a filter (C<build>);
C<f23_new (id, op, e)> holds the new elements.

=cut

package SbfFormat23;

use strict;
use warnings FATAL => 'all';

# The absent probes the version-4 checks count false positives over.
our $NPROBES = 20000;

sub load
{
	my ($node, $db, $fixture) = @_;
	$node->safe_psql(
		$db, qq{
	CREATE TABLE f23_src (id int PRIMARY KEY, what text, kind text, spec jsonb,
		text12 text, card12 bigint, info12 jsonb, fp12 int[], miss12 int[],
		matches12 int);
	COPY f23_src FROM '$fixture';
	CREATE TABLE f23 AS
		SELECT id, what, kind, text12::scalablebloom AS f
		FROM f23_src WHERE kind NOT LIKE 'hashset:%';
	CREATE TABLE f23_h AS
		SELECT id, what, substr(kind, 9) AS kind, text12::sbf_hashset AS h
		FROM f23_src WHERE kind LIKE 'hashset:%';
	CREATE TABLE f23_members AS
		SELECT s.id, substr(s.kind, strpos(s.kind, ':') + 1) AS kind,
			   row_number() OVER (PARTITION BY s.id ORDER BY p.o, g)::int AS ord,
			   CASE WHEN s.kind LIKE '%bigint' THEN ((p.p ->> 0)::bigint + g)::text
					ELSE (p.p ->> 0) || g END AS e,
			   (p.p ->> 2)::timestamptz + g * (p.p ->> 3)::interval AS at
		FROM f23_src s
			 CROSS JOIN LATERAL jsonb_array_elements(s.spec) WITH ORDINALITY p(p, o)
			 CROSS JOIN LATERAL generate_series(1, (p.p ->> 1)::int) g;

	CREATE FUNCTION f23_project(new jsonb, old jsonb) RETURNS jsonb
		LANGUAGE plpgsql IMMUTABLE AS \$\$
	BEGIN
		IF jsonb_typeof(old) = 'object' AND jsonb_typeof(new) = 'object' THEN
			RETURN (SELECT coalesce(jsonb_object_agg(k, f23_project(new -> k, old -> k)), '{}')
					FROM jsonb_object_keys(old) k);
		ELSIF jsonb_typeof(old) = 'array' AND jsonb_typeof(new) = 'array'
			  AND jsonb_array_length(old) = jsonb_array_length(new) THEN
			RETURN (SELECT coalesce(jsonb_agg(f23_project(new -> i, old -> i) ORDER BY i), '[]')
					FROM generate_series(0, jsonb_array_length(old) - 1) i);
		END IF;
		RETURN new;
	END \$\$;

	CREATE FUNCTION f23_add(f scalablebloom, kind text, es text[], at timestamptz)
		RETURNS scalablebloom LANGUAGE plpgsql AS \$\$
	DECLARE
		e text;
	BEGIN
		IF kind = 'text' THEN
			RETURN CASE WHEN at IS NULL THEN sbf_add(f, es) ELSE sbf_add(f, es, at) END;
		ELSIF kind = 'bigint' THEN
			RETURN CASE WHEN at IS NULL THEN sbf_add(f, es::bigint[])
						ELSE sbf_add(f, es::bigint[], at) END;
		END IF;
		FOREACH e IN ARRAY es LOOP
			f := CASE WHEN at IS NULL THEN f || convert_to(e, 'UTF8')
					  ELSE sbf_add(f, convert_to(e, 'UTF8'), at) END;
		END LOOP;
		RETURN f;
	END \$\$;
});
	return;
}

# Per value, whether 1.3 answers as 1.2 did: the text form, #, the sbf_info
# keys 1.2 showed (f23_project), but fpr_bound, which is at least 1.2's
# (since 1.4 a kind-1 segment's bound is also computed from its bits,
# docs/format.md RATE BOUND), the absent probes that answer true, the
# members that answer false (only expired window members), sbf_matches.
# Per hash set: the text form and #.
our $old_answers_sql = q{
	SELECT string_agg(line, E'\n' ORDER BY id) FROM (
		SELECT s.id, format('%s text=%s card=%s info=%s fp=%s miss=%s matches=%s', s.id,
							v.f::text = s.text12, # v.f = s.card12,
							f23_project(sbf_info(v.f) - 'fpr_bound', s.info12 - 'fpr_bound')
								= s.info12 - 'fpr_bound'
							AND coalesce((sbf_info(v.f) ->> 'fpr_bound')::float8
										 >= (s.info12 ->> 'fpr_bound')::float8, true),
							a.fp = s.fp12, a.miss = s.miss12,
							a.matches IS NOT DISTINCT FROM s.matches12) AS line
		FROM f23_src s JOIN f23 v USING (id)
			 CROSS JOIN LATERAL (
				 SELECT ARRAY(SELECT g FROM generate_series(1, 5000) g
							  WHERE probe(v.f, v.kind, absent(v.kind, g)) ORDER BY g) AS fp,
						ARRAY(SELECT m.ord FROM f23_members m
							  WHERE m.id = v.id AND NOT probe(v.f, v.kind, m.e)
							  ORDER BY m.ord) AS miss,
						CASE v.kind
							WHEN 'text' THEN sbf_matches(v.f,
								ARRAY(SELECT m.e FROM f23_members m WHERE m.id = v.id) ||
								ARRAY(SELECT absent('text', g) FROM generate_series(1, 5000) g))
							WHEN 'bigint' THEN sbf_matches(v.f,
								ARRAY(SELECT m.e::bigint FROM f23_members m WHERE m.id = v.id) ||
								ARRAY(SELECT absent('bigint', g)::bigint
									  FROM generate_series(1, 5000) g))
						END AS matches) a
		UNION ALL
		SELECT s.id, format('%s text=%s card=%s', s.id, h.h::text = s.text12,
							# h.h = s.card12)
		FROM f23_src s JOIN f23_h h USING (id)) l};

# The lines $old_answers_sql gives when every answer is 1.2's.
sub old_expected
{
	my ($node, $db) = @_;
	return join("\n",
		map { /^(\d+) (\S+)$/ ? "$1 text=t card=t" . ($2 eq 'f' ? ' info=t fp=t miss=t matches=t' : '') : $_ }
		  split /\n/,
		$node->safe_psql($db,
			q{SELECT string_agg(id || CASE WHEN kind LIKE 'hashset:%' THEN ' t' ELSE ' f' END, E'\n' ORDER BY id)
			  FROM f23_src}));
}

# 1.3 writes over every value (see DESCRIPTION).
sub write_over
{
	my ($node, $db) = @_;
	$node->safe_psql(
		$db, q{
	SET TimeZone = 'UTC';
	CREATE TABLE f23_w4 (id int, op text, kind text, f scalablebloom,
		PRIMARY KEY (id, op));
	CREATE TABLE f23_new (id int, op text, e text);
	-- new elements per value and operation, never members of another value
	-- nor absent probes; bytea ones are single adds, so fewer
	INSERT INTO f23_new
		SELECT v.id, o.op,
			   CASE WHEN v.kind = 'bigint' THEN (9000000000 + o.n * 100000000 + g)::text
					ELSE format('n4%s:%s:', o.op, v.id) || g END
		FROM (SELECT id, kind, sbf_info(f) AS i FROM f23
			  UNION ALL SELECT id, kind, NULL FROM f23_h) v
			 CROSS JOIN LATERAL (VALUES
				 (1, 'add', v.i ->> 'form' IN ('exact', 'segments')),
				 (2, 'union', v.i ->> 'form' IN ('exact', 'segments')),
				 (3, 'delta', v.i ->> 'form' IN ('exact', 'segments')),
				 (4, 'wadd', v.i ->> 'form' = 'window'),
				 (5, 'build', v.i IS NULL)) o(n, op, applies)
			 CROSS JOIN LATERAL generate_series(1,
				 CASE WHEN o.op = 'union'
					  THEN least((v.i ->> 'capacity')::int, 1500)
					  WHEN v.kind = 'bytea' THEN 800 ELSE 2000 END) g
		WHERE o.applies;
	CREATE TEMP VIEW fresh AS
		SELECT id, op, array_agg(e ORDER BY e) AS es FROM f23_new GROUP BY id, op;

	INSERT INTO f23_w4
		SELECT v.id, 'add', v.kind, f23_add(v.f, v.kind, n.es, NULL)
		FROM f23 v JOIN fresh n ON n.id = v.id AND n.op = 'add'
		UNION ALL
		SELECT v.id, 'union', v.kind,
			   v.f || f23_add(sbf_empty((i ->> 'capacity')::bigint,
										(i ->> 'error_rate')::float8,
										(i ->> 'growth')::int,
										(i ->> 'tightening')::float8),
							  v.kind, n.es, NULL)
		FROM f23 v CROSS JOIN LATERAL sbf_info(v.f) i
			 JOIN fresh n ON n.id = v.id AND n.op = 'union'
		UNION ALL
		SELECT v.id, 'delta', v.kind, f23_add(sbf_delta(v.f), v.kind, n.es, NULL)
		FROM f23 v JOIN fresh n ON n.id = v.id AND n.op = 'delta'
		UNION ALL
		SELECT v.id, 'wadd', v.kind,
			   f23_add(v.f, v.kind, n.es,
					   coalesce((sbf_info(v.f) ->> 'newest_bucket_start')::timestamptz
								+ interval '1 second', '2026-03-01 00:00+00'))
		FROM f23 v JOIN fresh n ON n.id = v.id AND n.op = 'wadd'
		UNION ALL
		SELECT h.id, 'build', h.kind,
			   sbf_build(sbf_hashset_union(h.h, CASE h.kind
				   WHEN 'text' THEN (SELECT sbf_hashset_agg(e) FROM f23_new n
									 WHERE n.id = h.id AND n.op = 'build')
				   WHEN 'bigint' THEN (SELECT sbf_hashset_agg(e::bigint) FROM f23_new n
									   WHERE n.id = h.id AND n.op = 'build')
				   ELSE (SELECT sbf_hashset_agg(convert_to(e, 'UTF8')) FROM f23_new n
						 WHERE n.id = h.id AND n.op = 'build') END), 0.01)
		FROM f23_h h;
	INSERT INTO f23_w4
		SELECT id, 'expire', kind,
			   sbf_expire(f, (sbf_info(f) ->> 'newest_bucket_start')::timestamptz
							 + 2 * (sbf_info(f) ->> 'bucket_us')::bigint * interval '1 microsecond')
		FROM f23_w4 WHERE op = 'wadd' AND sbf_info(f) ->> 'newest_bucket_start' IS NOT NULL;
});
	return;
}

# Per value written by 1.3 (f23_w4): its form, version, whether every
# segment (every bucket's) shows a kind, the members old (those still in the
# window) and new that answer false, and whether the false positives over
# $NPROBES absent probes stay within sbf_info's fpr_bound: at most
# N·p + 6·sqrt(N·p·(1 − p)) + 6, a margin a correct filter exceeds with a
# probability below 1e-9 (Chernoff), so the check is never flaky.
our $written_sql = qq{
	WITH w AS (
		SELECT w.*, sbf_info(w.f) AS i FROM f23_w4 w),
	live AS (
		SELECT w.id, w.op, m.e FROM w JOIN f23_members m ON m.id = w.id
		WHERE w.op NOT IN ('delta')
		  AND (w.i ->> 'form' <> 'window'
			   OR m.at >= (w.i ->> 'newest_bucket_start')::timestamptz
						  - ((w.i ->> 'buckets')::int - 1)
							* (w.i ->> 'bucket_us')::bigint * interval '1 microsecond')
		UNION ALL
		SELECT w.id, w.op, n.e FROM w JOIN f23_new n
			ON n.id = w.id AND n.op = CASE w.op WHEN 'expire' THEN 'wadd' ELSE w.op END)
	SELECT string_agg(format('%s %s: form=%s version=%s kinds=%s misses=%s fp=%s/%s bound=%s within=%s',
							 w.id, w.op, w.i ->> 'form', w.i ->> 'version', k.ok, x.misses,
							 x.fp, $NPROBES, w.i ->> 'fpr_bound',
							 x.fp <= $NPROBES * p.p + 6 * sqrt($NPROBES * p.p * (1 - p.p)) + 6),
					  E'\\n' ORDER BY w.id, w.op)
	FROM w
		 CROSS JOIN LATERAL (SELECT (w.i ->> 'fpr_bound')::float8 AS p) p
		 CROSS JOIN LATERAL (
			 SELECT coalesce(bool_and(s ->> 'kind' IN ('bloom', 'blocked', 'fused')), true)
					AND (SELECT coalesce(bool_and(jsonb_array_length(b -> 'kinds') = (b ->> 'segments')::int
										AND NOT EXISTS (
											SELECT FROM jsonb_array_elements_text(b -> 'kinds') t
											WHERE t NOT IN ('bloom', 'blocked', 'fused'))), true)
						 FROM jsonb_array_elements(coalesce(w.i -> 'window', '[]')) b) AS ok
			 FROM jsonb_array_elements(CASE jsonb_typeof(w.i -> 'segments')
											 WHEN 'array' THEN w.i -> 'segments' ELSE '[]' END) s) k
		 CROSS JOIN LATERAL (
			 SELECT (SELECT count(*) FROM live l
					 WHERE l.id = w.id AND l.op = w.op
						   AND NOT coalesce(probe(w.f, w.kind, l.e), false)) AS misses,
					(SELECT count(*) FROM generate_series(1, $NPROBES) g
					 WHERE probe(w.f, w.kind, absent(w.kind, g))) AS fp) x};

# The kinds of the segments 1.3 wrote over the 1.2 values, per operation
# (windowed buckets included; a value in the compact form counts as "compact
# form"): "op kind,kind;...".
our $kinds_sql = q{
	SELECT string_agg(op || ' ' || kinds, '; ' ORDER BY op) FROM (
		SELECT w.op, string_agg(DISTINCT k, ',' ORDER BY k) AS kinds
		FROM f23_w4 w
			 CROSS JOIN LATERAL sbf_info(w.f) i
			 CROSS JOIN LATERAL (
				 SELECT s ->> 'kind' AS k
				 FROM jsonb_array_elements(CASE jsonb_typeof(i -> 'segments')
											   WHEN 'array' THEN i -> 'segments'
											   ELSE '[]' END) s
				 UNION ALL
				 SELECT t FROM jsonb_array_elements(coalesce(i -> 'window', '[]')) b,
							   jsonb_array_elements_text(b -> 'kinds') t
				 UNION ALL
				 SELECT 'compact form' WHERE i ->> 'form' = 'compact') k
		GROUP BY w.op) s};

# The lines $written_sql gives when every value is version 4 (the exact form
# stays version 2; the compact form, which sbf_agg and sbf_build write for
# small sets since 1.4, is version 5), shows its kinds, misses nothing and
# stays within bound.
sub written_expected
{
	my ($got) = @_;
	my @lines = map {
		my ($head, $form, $fp, $bound) =
		  /^(\d+ \w+): form=(\w+) .* fp=(\d+\/\d+) bound=(\S+) /;
		$head
		  ? "$head: form=$form version="
		  . ($form eq 'exact' ? 2 : $form eq 'compact' ? 5 : 4)
		  . " kinds=t misses=0 fp=$fp bound=$bound within=t"
		  : $_
	} split /\n/, $got;
	return join("\n", @lines);
}

1;
