"""sbf.build and sbf.build_window give the bytes sbf_agg and sbf_window_agg
give over the same elements (and times)."""
import random
from datetime import datetime, timedelta, timezone

import pytest

import sbf
from conftest import bytea_elems, int_elems, text_elems

UTC = timezone.utc


def server_agg(conn, typ, elems, rate):
    q = "SELECT sbf_agg(x, %%s) FROM unnest(%%s::%s[]) x" % typ
    return conn.execute(q, (rate, elems)).fetchone()[0]


@pytest.mark.parametrize("n", [1, 2, 7, 300, 2047, 2048, 2049, 5000, 120_000])
def test_build_text(conn, n):
    elems = text_elems("bt", n)
    elems += elems[: n // 3]            # repeats count once
    random.Random(n).shuffle(elems)
    f = sbf.build(elems)
    want = server_agg(conn, "text", elems, 0.01)
    assert f.to_bytes() == want.to_bytes()


@pytest.mark.parametrize("rate", [0.001, 0.1, 0.3, 1e-6])
@pytest.mark.parametrize("n", [1, 1000, 40_000])
def test_build_int(conn, n, rate):
    elems = int_elems(n, n) + [0, -1, 2**63 - 1, -2**63]
    assert sbf.build(elems, error_rate=rate).to_bytes() == \
        server_agg(conn, "bigint", elems, rate).to_bytes()


@pytest.mark.parametrize("n", [1, 3000, 30_000])
def test_build_bytea(conn, n):
    elems = bytea_elems(n, n)
    assert sbf.build(elems, 0.02).to_bytes() == server_agg(conn, "bytea", elems, 0.02).to_bytes()


def test_build_mixed_types_and_nulls(conn):
    """NULL rows are skipped; text and bigint elements of one set (a union of
    two aggregates' hash sets, as sbf_build over sbf_hashset_agg)."""
    txt = text_elems("mx", 500)
    ints = int_elems(9, 500)
    f = sbf.build(txt + [None] + ints + [None])
    want = conn.execute(
        "SELECT sbf_build(sbf_hashset_union(a, b)) FROM "
        "(SELECT sbf_hashset_agg(x) a FROM unnest(%s::text[]) x) s, "
        "(SELECT sbf_hashset_agg(x) b FROM unnest(%s::bigint[]) x) t", (txt, ints)).fetchone()[0]
    assert f.to_bytes() == want.to_bytes()
    assert f.to_bytes() == sbf.build(ints[::-1] + txt).to_bytes()


def test_build_nothing(conn):
    assert sbf.build([]) is None and sbf.build([None, None]) is None
    assert conn.execute("SELECT sbf_agg(x) FROM unnest(ARRAY[NULL]::text[]) x").fetchone()[0] is None
    assert sbf.build_window([]) is None and sbf.build_window([("a", None), (None, datetime.now(UTC))]) is None


def test_build_arguments():
    with pytest.raises(ValueError):
        sbf.build(["a"], error_rate=0.5)
    with pytest.raises(ValueError):
        sbf.build(["a"], error_rate=0)
    with pytest.raises(ValueError):
        sbf.build(["a"], error_rate=float("nan"))
    with pytest.raises(ValueError):
        sbf.build(["a"], error_rate=1e-320)
    with pytest.raises(TypeError):
        sbf.build(["a"], error_rate="0.01")
    with pytest.raises(TypeError):
        sbf.build(["a", 1.5])
    with pytest.raises(OverflowError):
        sbf.build([2**63])
    with pytest.raises(TypeError):
        sbf.build(5)
    with pytest.raises(TypeError):
        sbf.build_window([("a", datetime(2026, 1, 1))])        # naive
    with pytest.raises(TypeError):
        sbf.build_window([("a", datetime(2026, 1, 1, tzinfo=UTC))], bucket=3600)
    with pytest.raises(ValueError):
        sbf.build_window([("a", datetime(2026, 1, 1, tzinfo=UTC))], buckets=1001)
    with pytest.raises(ValueError):
        sbf.build_window([("a", datetime(2026, 1, 1, tzinfo=UTC))], bucket=timedelta(0))
    with pytest.raises(ValueError):
        sbf.build_window([("a", datetime(2026, 1, 1, tzinfo=UTC))], bucket=timedelta(days=3651))
    with pytest.raises(ValueError):
        sbf.build_window([("a", datetime(2026, 1, 1, tzinfo=UTC))], error_rate=0.5)
    with pytest.raises(TypeError):
        sbf.build_window([("a",)])


def rows(seed, n, span, elem):
    r = random.Random(seed)
    tz = [UTC, timezone(timedelta(hours=5, minutes=30)), timezone(timedelta(hours=-8))]
    t0 = datetime(2026, 6, 15, 9, 30, tzinfo=UTC)
    return [(elem(r), (t0 - timedelta(microseconds=r.randrange(int(span.total_seconds() * 1e6))))
             .astimezone(tz[r.randrange(3)])) for _ in range(n)]


CASES = [
    # (n, span, bucket, buckets, rate, element type)
    (1, timedelta(days=1), timedelta(days=1), 30, 0.01, "text"),
    (100, timedelta(days=3), timedelta(days=1), 30, 0.01, "text"),
    (20_000, timedelta(days=45), timedelta(days=1), 30, 0.01, "text"),
    (60_000, timedelta(days=10), timedelta(hours=1), 48, 0.001, "bigint"),
    (30_000, timedelta(days=60), timedelta(days=7), 4, 0.05, "bytea"),
    (10_000, timedelta(hours=2), timedelta(minutes=1), 1, 0.2, "text"),
    (5_000, timedelta(days=30), timedelta(hours=5, seconds=1), 1000, 0.01, "bigint"),
]
MAKE = {
    "text": lambda r: "e:%d" % r.randrange(40_000),
    "bigint": lambda r: r.randrange(-2**63, 2**63) if r.random() < 0.2 else r.randrange(50_000),
    "bytea": lambda r: r.randbytes(r.randrange(1, 6)),
}


@pytest.mark.parametrize("case", CASES, ids=lambda c: "%d-%s-%s" % (c[0], c[2], c[5]))
def test_build_window(conn, case):
    n, span, bucket, buckets, rate, typ = case
    pairs = rows(n, n, span, MAKE[typ])
    f = sbf.build_window(pairs, bucket=bucket, buckets=buckets, error_rate=rate)
    q = ("SELECT sbf_window_agg(x, t, %%s, %%s, %%s) FROM unnest(%%s::%s[], %%s::timestamptz[]) u(x, t)"
         % typ)
    want = conn.execute(q, (bucket, buckets, rate, [p[0] for p in pairs],
                            [p[1] for p in pairs])).fetchone()[0]
    assert f.to_bytes() == want.to_bytes()
    assert f.info() == conn.execute("SELECT sbf_info(%s)", (f,)).fetchone()[0]


def test_build_window_before_1970(conn):
    """Negative microseconds: buckets round down, as sbf_win_bucket_of does."""
    t = datetime(1969, 12, 31, 23, 59, 59, 999_999, tzinfo=UTC)
    pairs = [("x%d" % i, t - timedelta(hours=i)) for i in range(200)]
    f = sbf.build_window(pairs, bucket=timedelta(hours=7), buckets=10)
    want = conn.execute(
        "SELECT sbf_window_agg(x, t, '7 hours', 10) FROM unnest(%s::text[], %s::timestamptz[]) u(x, t)",
        ([p[0] for p in pairs], [p[1] for p in pairs])).fetchone()[0]
    assert f == want
