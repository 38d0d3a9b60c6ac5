"""The package's own contract, without a server: element hashing (against
python3-xxhash, an independent XXH3), element types, since and pickling."""
import pickle
import struct
from datetime import datetime, timedelta, timezone

import pytest

import sbf

xxhash = pytest.importorskip("xxhash")


@pytest.mark.parametrize("x", ["", "a", "sku:42", "\u00e9t\u00e9", "x" * 1000])
def test_hash_text(x):
    assert sbf.element_hash(x) == xxhash.xxh3_64_intdigest(x.encode("utf-8"))


@pytest.mark.parametrize("x", [b"", b"\x00", bytes(range(256))])
def test_hash_bytes(x):
    h = xxhash.xxh3_64_intdigest(x)
    assert sbf.element_hash(x) == h
    assert sbf.element_hash(bytearray(x)) == h and sbf.element_hash(memoryview(x)) == h


@pytest.mark.parametrize("x", [0, 1, -1, 42, 2**31, 2**63 - 1, -2**63])
def test_hash_int(x):
    assert sbf.element_hash(x) == xxhash.xxh3_64_intdigest(struct.pack("<q", x))


def test_element_types():
    f = sbf.build(["a", b"b", 3])
    assert "a" in f and b"b" in f and 3 in f and b"z" not in f and "3" not in f and b"a" in f
    for bad in (1.5, None, True, ["a"], object()):
        with pytest.raises(TypeError):
            bad in f
        with pytest.raises(TypeError):
            f.contains(bad)
    with pytest.raises(OverflowError):
        2**63 in f
    with pytest.raises(OverflowError):
        f.matches([-2**63 - 1])
    with pytest.raises(TypeError):
        f.matches("abc")
    with pytest.raises(TypeError):
        f.matches(5)
    assert f.matches(["a", None, "a", "zz"]) == 2
    with pytest.raises(UnicodeEncodeError):
        "\ud800" in f


class Index:
    """An integer type of another library (numpy.int64 and the like)."""

    def __init__(self, v):
        self.v = v

    def __index__(self):
        return self.v


def test_index_types():
    f = sbf.build([5, -2**63])
    assert Index(5) in f and Index(-2**63) in f and Index(6) not in f
    assert sbf.element_hash(Index(7)) == sbf.element_hash(7)
    with pytest.raises(OverflowError):
        Index(2**64) in f


def test_since():
    now = datetime(2026, 5, 5, 12, tzinfo=timezone.utc)
    w = sbf.build_window([("old", now - timedelta(days=10)), ("new", now)])
    assert w.contains("old") and w.contains("old", since=now - timedelta(days=11))
    assert not w.contains("old", since=now - timedelta(days=9))
    assert w.matches(["old", "new"], since=now - timedelta(days=9)) == 1
    assert not w.contains("new", since=now + timedelta(days=1))
    ist = timezone(timedelta(hours=5, minutes=30))
    assert w.contains("new", since=now.astimezone(ist))
    with pytest.raises(TypeError):
        w.contains("new", since=datetime(2026, 1, 1))
    with pytest.raises(TypeError):
        w.contains("new", since="2026-01-01")
    # a plain filter ignores since, as sbf_contains does
    f = sbf.build(["a"])
    assert f.contains("a", since=now + timedelta(days=999))


def test_pickle_and_equality():
    f = sbf.build(range(3000))
    g = pickle.loads(pickle.dumps(f))
    assert g == f and hash(g) == hash(f) and g is not f
    assert f != sbf.build(range(3001)) and f != f.to_bytes()
    assert f.nbytes == len(f.to_bytes())
    assert "compact" in repr(f) and "compact" in repr(sbf.build(["a"]))
    assert "segmented" in repr(sbf.build(range(5000)))
