"""Every form sbf writes or wrote, read by the package and answered like the
server: membership (@> and sbf_contains with since), sbf_matches, # and
sbf_info, on at least 100,000 probes per form, each compared with the
server's answer for the same value and element.
"""
import random
import zlib
from datetime import datetime, timedelta, timezone

import pytest

import sbf
from conftest import bytea_elems, int_elems, text_elems

UTC = timezone.utc
T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
PROBES = 100_000

# members of each form, by element type (what the SQL below inserts)
TXT_A = text_elems("a", 30_000)
TXT_B = text_elems("b", 12_000)
TXT_SMALL = text_elems("s", 100)
TXT_TINY = text_elems("t", 6)
INT_A = int_elems(1, 60_000)
INT_B = int_elems(2, 20_000)
BYTEA_A = bytea_elems(3, 20_000)


def _window_rows(seed, n, days):
    r = random.Random(seed)
    return [("w:%d" % r.randrange(n * 2), T0 - timedelta(seconds=r.randrange(days * 86400)))
            for _ in range(n)]


WIN_ROWS = _window_rows(4, 60_000, 40)
WIN_ROWS_2 = _window_rows(5, 20_000, 35)
WIN_INT_ROWS = [(v, T0 - timedelta(minutes=i % 3000)) for i, v in enumerate(int_elems(6, 30_000))]

GROWN = "sbf_add(sbf_empty(1000, 0.01, 2, 0.9), %(txt_a)s::text[])"
AGG_WIN = ("(SELECT sbf_window_agg(x, t) FROM unnest(%(win_x)s::text[], %(win_t)s::timestamptz[]) u(x, t))")
AGG_WIN_2 = ("(SELECT sbf_window_agg(x, t) FROM unnest(%(win2_x)s::text[], %(win2_t)s::timestamptz[]) u(x, t))")

# name -> (SQL expression of the value, members by type)
FORMS = {
    "empty": ("sbf_empty()", {}),
    "exact": ("sbf_add(sbf_empty(), %(txt_small)s::text[])", {"text": TXT_SMALL}),
    "exact_agg": ("(SELECT sbf_agg(x) FROM unnest(%(txt_tiny)s::text[]) x)", {"text": TXT_TINY}),
    "built_int": ("(SELECT sbf_agg(x) FROM unnest(%(int_a)s::bigint[]) x)", {"int": INT_A}),
    "built_bytea": ("(SELECT sbf_agg(x, 0.001) FROM unnest(%(bytea_a)s::bytea[]) x)",
                    {"bytes": BYTEA_A}),
    "grown": (GROWN, {"text": TXT_A}),
    "grown_r1": ("sbf_add(sbf_empty(500, 0.05, 4, 1.0), %(int_b)s::bigint[])", {"int": INT_B}),
    # 1.0's sbf_agg of 'o1'..'o20' (version 1; 1.3 writes version 4)
    "v1": ("'sbf1:AQABCQIAAQBQAAAAexSuR+F6hD/NzMzMzMzsP+gDAAAAAAAAFAAAAAAAAAAUAAAAAAAAAMgAAAAAAAAA"
           "VjeXb9YIgT8HAAAAAAAAAKVJVQ+txbt9cO7qVCMzeWxBoalMC8sLnoAAAAAAAAAAAQAAAAEgAAADLwAAAWYAAAKV"
           "AAABzQAAA88AAAT1AAAFBAEAATABAAI5AQABOwEAAUsBAAOOAQABwAEAAskBAAHKAQADzAEABM8BAAHuAQA='"
           "::scalablebloom", {"text": ["o%d" % i for i in range(1, 21)]}),
    "union": ("sbf_union(" + GROWN + ", (SELECT sbf_agg(x) FROM unnest(%(int_a)s::bigint[]) x), 0.03)",
              {"text": TXT_A, "int": INT_A}),
    "union_agg": ("(SELECT sbf_union_agg(f, 0.07) FROM (SELECT sbf_agg(x) AS f FROM unnest(%(txt_b)s::text[])"
                  " WITH ORDINALITY u(x, i) GROUP BY i %% 7) s)", {"text": TXT_B}),
    "delta": ("sbf_add(sbf_delta(" + GROWN + "), %(txt_b)s::text[])", {"text": TXT_B}),
    "window_agg": (AGG_WIN, {"text": [x for x, _ in WIN_ROWS]}),
    "window_union": ("sbf_union(" + AGG_WIN + ", " + AGG_WIN_2 + ", 0.03)",
                     {"text": [x for x, _ in WIN_ROWS + WIN_ROWS_2]}),
    "window_expired": ("sbf_expire(" + AGG_WIN + ", %(t0)s::timestamptz + interval '9 days')",
                       {"text": [x for x, _ in WIN_ROWS]}),
    "window_hour": ("(SELECT sbf_window_agg(x, t, '1 hour', 48, 0.001)"
                    " FROM unnest(%(wint_x)s::bigint[], %(wint_t)s::timestamptz[]) u(x, t))",
                    {"int": [x for x, _ in WIN_INT_ROWS]}),
    "window_live": ("pg_temp.live_window()", {"text": text_elems("live", 50_000)}),
    "window_empty": ("sbf_window_empty('2 hours', 12, 0.02)", {}),
}

LIVE_FN = """
CREATE FUNCTION pg_temp.live_window() RETURNS scalablebloom LANGUAGE plpgsql AS $$
DECLARE f scalablebloom := sbf_window_empty('1 day', 7, 0.01);
BEGIN
  FOR d IN 0..9 LOOP
    f := sbf_add(f, ARRAY(SELECT 'live:' || i FROM generate_series(d * 5000, d * 5000 + 4999) i),
                 'T0'::timestamptz - (9 - d) * interval '1 day');
  END LOOP;
  RETURN f;
END $$
"""


def _params():
    return {
        "txt_a": TXT_A, "txt_b": TXT_B, "txt_small": TXT_SMALL, "txt_tiny": TXT_TINY,
        "int_a": INT_A, "int_b": INT_B, "bytea_a": BYTEA_A,
        "win_x": [x for x, _ in WIN_ROWS], "win_t": [t for _, t in WIN_ROWS],
        "win2_x": [x for x, _ in WIN_ROWS_2], "win2_t": [t for _, t in WIN_ROWS_2],
        "wint_x": [x for x, _ in WIN_INT_ROWS], "wint_t": [t for _, t in WIN_INT_ROWS],
        "t0": T0,
    }


@pytest.fixture(scope="module")
def forms(conn):
    """name -> Filter, each loaded (binary) from the value the server made."""
    conn.execute("DROP TABLE IF EXISTS sbf_py_forms")
    conn.execute("CREATE TABLE sbf_py_forms (name text PRIMARY KEY, f scalablebloom)")
    p = _params()
    conn.execute(LIVE_FN.replace("T0", T0.isoformat()))
    for name, (expr, _) in FORMS.items():
        conn.execute("INSERT INTO sbf_py_forms VALUES (%(name)s, " + expr + ")",
                     dict(p, name=name))
    cur = conn.cursor(binary=True)
    rows = cur.execute("SELECT name, f FROM sbf_py_forms").fetchall()
    return {name: f for name, f in rows}


def _probes(members, typ, n, seed):
    """n probes of one type: about half members (if any), half others."""
    r = random.Random(seed)
    if typ == "text":
        others = ["nx:%d:%d" % (seed, i) for i in range(n)]
    elif typ == "int":
        others = int_elems(seed, n) + [0, 1, -1, 2**63 - 1, -2**63]
    else:
        others = bytea_elems(seed, n) + [b""]
    out = []
    for i in range(n):
        if members and i % 2 == 0:
            out.append(members[r.randrange(len(members))])
        else:
            out.append(others[i])
    return out


SQL_TYPE = {"text": "text", "int": "bigint", "bytes": "bytea"}


def _server_contains(conn, name, typ, probes, since):
    q = ("SELECT array_agg(%s ORDER BY i) FROM sbf_py_forms, unnest(%%(p)s::%s[]) "
         "WITH ORDINALITY u(x, i) WHERE name = %%(name)s")
    call = "f @> x" if since is None else "sbf_contains(f, x, %(since)s::timestamptz)"
    row = conn.execute(q % (call, SQL_TYPE[typ]),
                       {"p": probes, "name": name, "since": since}).fetchone()
    return row[0]


def _sinces(f):
    if not f.windowed:
        return [None, T0]
    return [None, T0 - timedelta(days=3), T0 - timedelta(days=20), T0 + timedelta(days=30),
            datetime(1990, 1, 1, tzinfo=timezone(timedelta(hours=-5)))]


@pytest.mark.parametrize("name", list(FORMS))
def test_membership(conn, forms, name):
    f = forms[name]
    members = FORMS[name][1]
    split = {"text": PROBES // 2, "int": PROBES * 2 // 5, "bytes": PROBES // 10}
    sinces = _sinces(f)
    checked = 0
    for k, (typ, n) in enumerate(split.items()):
        probes = _probes(members.get(typ, []), typ, n, seed=zlib.crc32((name + typ).encode()) & 0xFFFF)
        since = sinces[k % len(sinces)]
        want = _server_contains(conn, name, typ, probes, since)
        if since is None:
            got = [x in f for x in probes]
            assert got == [f.contains(x) for x in probes]
        else:
            got = [f.contains(x, since=since) for x in probes]
        assert got == want, "%s: %d of %d answers differ" % (
            name, sum(a != b for a, b in zip(got, want)), len(got))
        checked += len(probes)
        if members.get(typ):
            assert any(got), "no member found: the probes would not test anything"
    assert checked >= PROBES


@pytest.mark.parametrize("name", list(FORMS))
def test_matches_since(conn, forms, name):
    """sbf_matches over 120-candidate requests, with every since of the form."""
    f = forms[name]
    members = FORMS[name][1]
    r = random.Random(7)
    for typ in ("text", "int"):
        for since in _sinces(f):
            for _ in range(5):
                cand = _probes(members.get(typ, []), typ, 120, r.randrange(1 << 30))
                cand[::17] = [None] * len(cand[::17])
                if since is None:
                    q = "SELECT sbf_matches(f, %(c)s::{}[]) FROM sbf_py_forms WHERE name = %(n)s"
                else:
                    q = ("SELECT sbf_matches(f, %(c)s::{}[], %(s)s::timestamptz) FROM sbf_py_forms"
                         " WHERE name = %(n)s")
                want = conn.execute(q.format(SQL_TYPE[typ]),
                                    {"c": cand, "n": name, "s": since}).fetchone()[0]
                assert f.matches(cand, since=since) == want
                assert f.matches(iter(cand), since) == want


@pytest.mark.parametrize("name", list(FORMS))
def test_cardinality_info(conn, forms, name):
    f = forms[name]
    card, info = conn.execute("SELECT # f, sbf_info(f) FROM sbf_py_forms WHERE name = %s",
                              (name,)).fetchone()
    assert f.cardinality() == card
    assert f.info() == info


def test_forms_cover_every_kind(forms):
    """The forms above are what they claim to be (so the tests cover them)."""
    info = {n: f.info() for n, f in forms.items()}
    for n in ("exact", "empty"):
        assert info[n]["form"] == "exact", n
    # sbf_agg of 6 elements: the compact form at 63 bits, the exact form's answers
    assert info["exact_agg"]["form"] == "compact" and info["exact_agg"]["fingerprint_bits"] == 63
    assert info["v1"]["version"] == 1
    assert info["built_int"]["form"] == "segments" and len(info["built_int"]["segments"]) == 1
    assert len(info["grown"]["segments"]) > 3
    assert info["grown_r1"]["tightening"] == 1.0
    assert info["union"]["count_source"] == "hll"
    assert info["delta"].get("continues_chain") is True
    for n in ("window_agg", "window_union", "window_expired", "window_hour", "window_live"):
        assert info[n]["form"] == "window" and info[n]["segments"] > 0, n
    assert info["window_live"]["pairs"] > 0
    assert info["window_empty"]["newest_bucket_start"] is None


@pytest.mark.parametrize("name", list(FORMS))
def test_bytes_round_trip(conn, forms, name):
    f = forms[name]
    b = conn.execute("SELECT f::bytea FROM sbf_py_forms WHERE name = %s", (name,)).fetchone()[0]
    assert f.to_bytes() == b
    g = sbf.Filter.from_bytes(b)
    assert g == f and hash(g) == hash(f)
    assert sbf.Filter.from_text(f.to_text()) == f
