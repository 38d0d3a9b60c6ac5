#!/usr/bin/env python3
"""The ranking request in process against the same request as SQL.

A feed service scores 120 candidates for one user: which of them has the
user already seen?  In process, the service holds the user's filter
(sbf.Filter, loaded once) and asks it; the alternative sends the candidates
to PostgreSQL on every request.  Both answer the same (checked here).

Measured, one run, medians over ROUNDS rounds:
  * in process: ns per check for `c in f` (one candidate at a time) and for
    f.matches(cands) (batched), and requests per second;
  * SQL: a prepared `SELECT sbf_matches(f, $1::text[]) FROM seen WHERE
    user_id = $2` (the count) and the per-candidate booleans
    (`array_agg(f @> c)`), one round trip per request over the unix socket;
  * loading a filter: Filter.from_bytes of the bytes, and the fetch of the
    bytes from the server plus from_bytes, for a typical and a heavy user.
Needs a server with the sbf extension (libpq environment); prints a table.
"""
import os
import random
import statistics
import sys
import time
from datetime import datetime, timedelta, timezone

import psycopg

import sbf
import sbf.psycopg

ROUNDS = int(os.environ.get("SBF_BENCH_ROUNDS", "7"))
REQUESTS = int(os.environ.get("SBF_BENCH_REQUESTS", "2000"))
SQL_REQUESTS = int(os.environ.get("SBF_BENCH_SQL_REQUESTS", "500"))
CANDIDATES = 120

# users: (name, distinct items seen, how the filter was built)
USERS = [
    ("typical", 2_000, "agg"),
    ("heavy", 200_000, "agg"),
    ("typical windowed", 3_000, "window"),
    ("heavy windowed", 200_000, "window"),
]


def median_ns(fn, n, rounds=ROUNDS):
    """Median over rounds of the time per call of fn(i) for i in range(n)."""
    out = []
    for _ in range(rounds):
        t = time.perf_counter_ns()
        for i in range(n):
            fn(i)
        out.append((time.perf_counter_ns() - t) / n)
    return statistics.median(out)


def setup(conn):
    conn.execute("CREATE EXTENSION IF NOT EXISTS sbf")
    conn.execute("DROP TABLE IF EXISTS seen")
    conn.execute("CREATE TABLE seen (user_id int PRIMARY KEY, f scalablebloom)")
    now = datetime(2026, 6, 1, tzinfo=timezone.utc)
    for uid, (_, n, how) in enumerate(USERS):
        if how == "agg":
            conn.execute("INSERT INTO seen SELECT %s, sbf_agg('sku:' || (i * 7919 %% 10000000))"
                         " FROM generate_series(1, %s) i", (uid, n))
        else:
            conn.execute("INSERT INTO seen SELECT %s, sbf_window_agg('sku:' || (i * 7919 %% 10000000),"
                         " %s::timestamptz - (i %% 30) * interval '1 day')"
                         " FROM generate_series(1, %s) i", (uid, now, n))
    conn.execute("ANALYZE seen")


def requests(n_seen, seed):
    r = random.Random(seed)
    out = []
    for _ in range(200):
        # about 30% of the candidates were seen
        out.append(["sku:%d" % ((r.randrange(1, n_seen + 1) * 7919) % 10_000_000)
                    if r.random() < 0.3 else "sku:%d" % r.randrange(10_000_000, 20_000_000)
                    for _ in range(CANDIDATES)])
    return out


def bench_user(conn, uid, name, n):
    cur = conn.cursor(binary=True)
    f = cur.execute("SELECT f FROM seen WHERE user_id = %s", (uid,)).fetchone()[0]
    reqs = requests(n, uid)
    nreq = len(reqs)
    # the same answers both ways
    for c in reqs[:20]:
        want = conn.execute("SELECT sbf_matches(f, %s::text[]), (SELECT array_agg(f @> x ORDER BY i)"
                            " FROM unnest(%s::text[]) WITH ORDINALITY u(x, i)) FROM seen"
                            " WHERE user_id = %s", (c, c, uid)).fetchone()
        assert f.matches(c) == want[0] and [x in f for x in c] == want[1]

    ns_in = median_ns(lambda i: [x in f for x in reqs[i % nreq]], REQUESTS)
    ns_matches = median_ns(lambda i: f.matches(reqs[i % nreq]), REQUESTS)
    q_count = "SELECT sbf_matches(f, %s::text[]) FROM seen WHERE user_id = %s"
    q_bools = ("SELECT (SELECT array_agg(f @> x ORDER BY i) FROM unnest(%s::text[])"
               " WITH ORDINALITY u(x, i)) FROM seen WHERE user_id = %s")
    ns_sql_count = median_ns(lambda i: conn.execute(q_count, (reqs[i % nreq], uid),
                                                    prepare=True).fetchone(),
                             SQL_REQUESTS)
    ns_sql_bools = median_ns(lambda i: conn.execute(q_bools, (reqs[i % nreq], uid),
                                                    prepare=True).fetchone(),
                             SQL_REQUESTS)
    b = f.to_bytes()
    ns_load = median_ns(lambda i: sbf.Filter.from_bytes(b), max(20, 20_000_000 // max(len(b), 1) // 10))
    ns_fetch = median_ns(lambda i: cur.execute("SELECT f FROM seen WHERE user_id = %s", (uid,),
                                               prepare=True).fetchone(), 50)
    return dict(name=name, n=n, bytes=len(b), in_ns=ns_in, matches_ns=ns_matches,
                sql_count_ns=ns_sql_count, sql_bools_ns=ns_sql_bools,
                load_ns=ns_load, fetch_load_ns=ns_fetch)


def main():
    with psycopg.connect(autocommit=True) as conn:
        setup(conn)
        sbf.psycopg.register(conn)
        rows = [bench_user(conn, uid, name, n) for uid, (name, n, _) in enumerate(USERS)]
        version = conn.execute("SHOW server_version").fetchone()[0]
    print("sbf Python package: the 120-candidate request, in process vs SQL "
          "(PostgreSQL %s, unix socket, medians of %d rounds)" % (version, ROUNDS))
    print()
    print("| user (items seen, bytes) | `c in f` ns/check | `f.matches` ns/check | in process req/s "
          "| SQL sbf_matches req/s | SQL per-candidate req/s | SQL / in process |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print("| %s (%s, %s B) | %.0f | %.0f | %s | %s | %s | %.0f× |" % (
            r["name"], format(r["n"], ","), format(r["bytes"], ","),
            r["in_ns"] / CANDIDATES, r["matches_ns"] / CANDIDATES,
            format(round(1e9 / r["in_ns"]), ","), format(round(1e9 / r["sql_count_ns"]), ","),
            format(round(1e9 / r["sql_bools_ns"]), ","), r["sql_bools_ns"] / r["in_ns"]))
    print()
    print("| user | load: Filter.from_bytes µs | fetch from the server + load µs |")
    print("|---|---:|---:|")
    for r in rows:
        print("| %s (%s B) | %.1f | %.1f |" % (r["name"], format(r["bytes"], ","),
                                               r["load_ns"] / 1e3, r["fetch_load_ns"] / 1e3))
    return 0


if __name__ == "__main__":
    sys.exit(main())
