"""Malformed input: the fuzz corpora (test/fuzz/corpus) and mutants of
them through Filter.from_bytes and Filter.from_text.  Each input either
loads (and then answers every call without a crash) or raises ValueError
naming the defect; where a server is at hand, the verdict equals the
server's for the same bytes (accepted, or the same format check failing).
test/python_check.sh runs this file again with the package built under
ASan and UBSan.
"""
import mmap
import os
import random
import struct

import pytest

import sbf

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
CORPUS = os.path.join(ROOT, "test", "fuzz", "corpus")
MUTANTS = 60


def corpus_files():
    out = []
    for d in sorted(os.listdir(CORPUS)):
        for f in sorted(os.listdir(os.path.join(CORPUS, d))):
            with open(os.path.join(CORPUS, d, f), "rb") as fh:
                out.append(("%s/%s" % (d, f), fh.read()))
    return out


def mutants(data, seed):
    r = random.Random(seed)
    yield data
    for _ in range(MUTANTS):
        b = bytearray(data)
        op = r.randrange(6)
        if op == 0 and b:
            i = r.randrange(len(b))
            b[i] ^= 1 << r.randrange(8)
        elif op == 1 and b:
            del b[r.randrange(len(b)):]
        elif op == 2 and b:
            b[r.randrange(len(b))] = r.choice([0, 1, 2, 3, 4, 0x7F, 0x80, 0xFF])
        elif op == 3:
            b += r.randbytes(r.randrange(1, 16))
        elif op == 4 and len(b) >= 12:
            # a count, length or width field set to an extreme
            i = r.choice([4, 6, 8, 12, 16, 24, 28, 36, 44])
            if i + 8 <= len(b):
                b[i:i + 8] = struct.pack("<Q", r.choice([0, 1, 2**31, 2**32 - 1, 2**63, 2**64 - 1]))
        elif b:
            j = r.randrange(len(b))
            b[j:j + 8] = r.randbytes(8)
        yield bytes(b)


def exercise(f):
    """Every call on a loaded value."""
    f.to_bytes(), f.to_text(), f.info(), f.cardinality(), repr(f), hash(f)
    for x in ("a", b"b", 3, -2**63, 2**63 - 1):
        f.contains(x)
        x in f
    f.matches(["a", "b", 1, 2, None] * 10)
    from datetime import datetime, timezone
    f.contains("a", since=datetime(2026, 1, 1, tzinfo=timezone.utc))
    assert sbf.Filter.from_bytes(f.to_bytes()) == f


def verdict(data):
    try:
        f = sbf.Filter.from_bytes(data)
    except ValueError as e:
        msg = str(e)
        assert msg.startswith("malformed scalablebloom value: ")
        return msg.split(": ", 1)[1]
    exercise(f)
    return None


def test_corpora_and_mutants(request):
    files = corpus_files()
    assert len(files) >= 50, "the fuzz corpora are missing"
    inputs = []
    for k, (name, data) in enumerate(files):
        for m in mutants(data, k):
            inputs.append(m)
            verdict(m)
            # the text form of the same bytes (and broken text)
            import base64
            text = "sbf1:" + base64.b64encode(m).decode()
            try:
                sbf.Filter.from_text(text)
            except ValueError:
                pass
            with pytest.raises(ValueError):
                sbf.Filter.from_text(text[:-1] + "*")
            try:
                sbf.Filter.from_text(m)          # the raw bytes as text
            except ValueError:
                pass
    accepted = sum(verdict(m) is None for m in inputs)
    assert accepted > 0 and accepted < len(inputs)
    # the server's verdicts (test/python_check.sh always has a server)
    if os.environ.get("PGHOST"):
        compare_with_server(inputs)


TRY_FN = """
CREATE OR REPLACE FUNCTION pg_temp.sbf_try(b bytea[]) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE out text[] := '{}'; d text; x bytea;
BEGIN
  FOREACH x IN ARRAY b LOOP
    BEGIN
      PERFORM x::scalablebloom;
      out := out || NULL::text;
    EXCEPTION WHEN others THEN
      GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
      out := out || coalesce(d, SQLERRM);
    END;
  END LOOP;
  RETURN out;
END $$
"""


def compare_with_server(inputs):
    import psycopg
    with psycopg.connect(autocommit=True) as c:
        c.execute("CREATE EXTENSION IF NOT EXISTS sbf")
        c.execute(TRY_FN)
        got = c.execute("SELECT pg_temp.sbf_try(%s)", (inputs,)).fetchone()[0]
    for data, server in zip(inputs, got):
        mine = verdict(data)
        if server is None or mine is None:
            assert server is None and mine is None, (data[:16].hex(), server, mine)
        elif server.startswith("Format check failed: "):
            assert server == "Format check failed: %s." % mine
        else:
            # version and hash id are named by number on the server
            assert mine in ("unsupported format version", "unsupported hash function",
                            "filter would exceed the maximum size"), (server, mine)


def test_huge_claims_allocate_nothing():
    """Headers that claim huge contents are refused from their length."""
    head = bytearray(36 + 40)
    head[0], head[2], head[3] = 2, 1, 9
    struct.pack_into("<HHIddQ", head, 4, 2, 1, 0, 0.01, 0.9, 1000)
    struct.pack_into("<QQQdH", head, 36, 1000, 0, 2**40, 0.01, 7)
    with pytest.raises(ValueError, match="truncated|segment|length"):
        sbf.Filter.from_bytes(bytes(head))
    # a window claiming 65535 segments and 2^32-1 pairs in 40 bytes
    w = bytearray(40)
    w[0], w[1], w[2] = 3, 1, 1
    struct.pack_into("<HHIIqqd", w, 4, 30, 0, 65535, 2**32 - 1, 86400 * 10**6, 20000, 0.01)
    with pytest.raises(ValueError):
        sbf.Filter.from_bytes(bytes(w))
    with pytest.raises(ValueError, match="maximum size"):
        # anonymous pages, never touched: refused before a byte is read or copied
        with mmap.mmap(-1, sbf.MAX_BYTES + 1) as m:
            sbf.Filter.from_bytes(memoryview(m))


def test_text_form_errors():
    for t in ["", "sbf1:", "sbf1", "sbf2:AQAB", "SBF1:AQAB", "sbf1:AQAB!", "sbf1:AQA",
              "sbf1:AQAB=", " sbf1:AQAB", "sbf1:AQAB "]:
        with pytest.raises(ValueError):
            sbf.Filter.from_text(t)
    with pytest.raises(ValueError):
        sbf.Filter.from_text("sbf1:\u00e9")
    with pytest.raises(TypeError):
        sbf.Filter.from_text(5)
    with pytest.raises(TypeError):
        sbf.Filter.from_bytes("sbf1:AQAB")
