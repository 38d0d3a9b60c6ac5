"""Shared fixtures: a connection to a real server with the sbf extension.

The server comes from the libpq environment (PGHOST, PGPORT, PGUSER,
PGDATABASE; test/python_check.sh runs pytest inside a throwaway cluster).
Without one, the server tests are skipped, unless SBF_PY_NEED_SERVER=1
(the check script sets it), which makes a missing server a failure.
"""
import os
import random

import pytest

psycopg = pytest.importorskip("psycopg")

import sbf  # noqa: E402
import sbf.psycopg  # noqa: E402


def _connect():
    try:
        conn = psycopg.connect(autocommit=True)
    except psycopg.OperationalError as e:
        if os.environ.get("SBF_PY_NEED_SERVER") == "1":
            pytest.fail("no server: %s" % e)
        pytest.skip("no server (set PGHOST etc.): %s" % e)
    conn.execute("CREATE EXTENSION IF NOT EXISTS sbf")
    conn.execute("SET TimeZone = 'UTC'")
    return conn


@pytest.fixture(scope="session")
def conn():
    c = _connect()
    sbf.psycopg.register(c)
    yield c
    c.close()


@pytest.fixture(scope="session")
def raw_conn():
    """A connection without the adapters: scalablebloom arrives as text."""
    c = _connect()
    yield c
    c.close()


def text_elems(tag, n, start=0):
    return ["%s:%d" % (tag, i) for i in range(start, start + n)]


def int_elems(seed, n):
    r = random.Random(seed)
    out = [r.randrange(-2**63, 2**63) for _ in range(n)]
    return out


def bytea_elems(seed, n):
    r = random.Random(seed)
    return [r.randbytes(r.randrange(0, 24)) for _ in range(n)]
