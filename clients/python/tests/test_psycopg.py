"""sbf.psycopg.register: scalablebloom results load as Filter in the text
and binary formats; Filter parameters dump as scalablebloom."""
from datetime import datetime, timezone

import psycopg
import pytest

import sbf
import sbf.psycopg


@pytest.fixture(scope="module")
def value(conn):
    return conn.execute("SELECT sbf_agg(x) FROM generate_series(1, 5000) x").fetchone()[0]


@pytest.mark.parametrize("binary", [False, True])
def test_load(conn, raw_conn, value, binary):
    cur = conn.cursor(binary=binary)
    f, b, n = cur.execute("SELECT f, f::bytea, # f FROM (SELECT sbf_agg(x) f FROM generate_series(1, 5000) x) s"
                          ).fetchone()
    assert isinstance(f, sbf.Filter)
    assert f.to_bytes() == bytes(b) and f == value and f.cardinality() == n
    assert 17 in f and 5001 not in f
    # without the adapters the text form arrives as a str: the same value
    text = raw_conn.execute("SELECT sbf_agg(x)::text FROM generate_series(1, 5000) x").fetchone()[0]
    assert text.startswith("sbf1:") and sbf.Filter.from_text(text) == f


def test_load_null_and_windowed(conn):
    for binary in (False, True):
        cur = conn.cursor(binary=binary)
        assert cur.execute("SELECT NULL::scalablebloom").fetchone()[0] is None
        w = cur.execute("SELECT sbf_add(sbf_window_empty(), 'a', now())").fetchone()[0]
        assert w.windowed and "a" in w


@pytest.mark.parametrize("placeholder", ["%s", "%t", "%b"])
def test_dump(conn, value, placeholder):
    row = conn.execute(
        "SELECT pg_typeof({0})::text, {0}::bytea = %s::bytea, # {0}, {0}".format(placeholder),
        (value, value, value, value, value)).fetchone()
    assert row[0] == "scalablebloom" and row[1] is True and row[2] == value.cardinality()
    assert row[3] == value


def test_round_trip_table(conn, value):
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS sbf_py_rt (id int, f scalablebloom)")
    conn.execute("TRUNCATE sbf_py_rt")
    w = sbf.build_window([("x", datetime.now(timezone.utc))])
    with conn.cursor() as cur:
        cur.executemany("INSERT INTO sbf_py_rt VALUES (%s, %s)", [(1, value), (2, w), (3, None)])
    with conn.cursor(binary=True) as cur:
        got = dict(cur.execute("SELECT id, f FROM sbf_py_rt").fetchall())
    assert got == {1: value, 2: w, 3: None}
    assert conn.execute("SELECT count(*) FROM sbf_py_rt WHERE f @> 'x'::text").fetchone()[0] == 1


def test_register_errors(conn):
    """A database without the extension: register names the problem."""
    conn.execute("DROP DATABASE IF EXISTS sbf_py_noext")
    conn.execute("CREATE DATABASE sbf_py_noext")
    try:
        with psycopg.connect(dbname="sbf_py_noext") as c:
            with pytest.raises(LookupError):
                sbf.psycopg.register(c)
    finally:
        conn.execute("DROP DATABASE sbf_py_noext")


def test_register_on_cursor(conn):
    with psycopg.connect() as c:
        cur = c.cursor(binary=True)
        sbf.psycopg.register(cur)
        assert isinstance(cur.execute("SELECT sbf_empty()").fetchone()[0], sbf.Filter)
        # the connection itself is untouched: text arrives as str
        assert isinstance(c.execute("SELECT sbf_empty()").fetchone()[0], str)
