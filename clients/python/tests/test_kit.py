"""The cross-language test kit (test/kit/README.md) read by the package.

Every value of test/kit/kit.txt is read with Filter.from_bytes and answers
each contains, matches and cardinality record as the server that wrote the
kit did; its info() equals the server's sbf_info as parsed JSON; values the
server built with sbf_agg or sbf_window_agg are built again with sbf.build
and sbf.build_window and compared byte for byte.  Every malformed.txt value
raises ValueError, and element_hash gives every hashes.txt hash.  Hash sets
(records hashset, malformed_hashset) are skipped: the package does not read
them.  No server needed.
"""
import json
import math
import os
from datetime import datetime, timedelta, timezone

import pytest

import sbf

KIT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "test", "kit")
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)

if not os.path.exists(os.path.join(KIT, "kit.txt")):
    pytest.skip("test/kit not found next to the package (a checkout is needed)",
                allow_module_level=True)


def _records(name):
    with open(os.path.join(KIT, name), encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line and not line.startswith("#"):
                yield line


def _cases():
    """kit.txt as a list of (kind, name, hex, [records])."""
    cases = []
    for line in _records("kit.txt"):
        kind, _, rest = line.partition(" ")
        if kind in ("value", "hashset"):
            name, _, hexa = rest.partition(" ")
            cases.append((kind, name, hexa, []))
        elif cases:
            cases[-1][3].append((kind, rest))
    return cases


CASES = _cases()


def _bytes(field):
    return b"" if field == "-" else bytes.fromhex(field)


def _elem(typ, field):
    if typ == "bigint":
        return int(field)
    b = _bytes(field)
    return b.decode("utf-8") if typ == "text" else b


def _list(field, typ):
    if field == "-":
        return []
    return [int(x) if typ == "bigint" else bytes.fromhex(x).decode("utf-8")
            for x in field.split(",")]


def _since(field):
    return None if field == "-" else EPOCH + timedelta(microseconds=int(field))


def _same_json(a, b, path="$"):
    """None when a and b are the same JSON (floats to 1e-12 relative), else where they differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            return "%s: keys %s differ" % (path, sorted(set(a) ^ set(b)))
        for k in a:
            d = _same_json(a[k], b[k], "%s.%s" % (path, k))
            if d:
                return d
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return "%s: %d items against %d" % (path, len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            d = _same_json(x, y, "%s[%d]" % (path, i))
            if d:
                return d
        return None
    if isinstance(a, bool) or isinstance(b, bool):
        return None if a is b else "%s: %r against %r" % (path, a, b)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if a == b or math.isclose(a, b, rel_tol=1e-12, abs_tol=0.0):
            return None
        return "%s: %r against %r" % (path, a, b)
    return None if a == b else "%s: %r against %r" % (path, a, b)


def _check(f, hexa, kind, rest):
    """None when the record holds for f, else what differs."""
    parts = rest.split(" ")
    if kind == "contains":
        typ, elem, since, expect = parts
        got = f.contains(_elem(typ, elem), since=_since(since))
        return None if got == (expect == "t") else "contains %s %s since %s: %s" % (typ, elem, since, got)
    if kind in ("matches", "matches_bigint"):
        since, expect, elems = parts
        items = _list(elems, "bigint" if kind == "matches_bigint" else "text")
        got = f.matches(items, since=_since(since))
        return None if got == int(expect) else "%s since %s: %d, not %s" % (kind, since, got, expect)
    if kind == "cardinality":
        got = f.cardinality()
        return None if got == int(parts[0]) else "cardinality %d, not %s" % (got, parts[0])
    if kind == "info":
        d = _same_json(f.info(), json.loads(rest))
        return None if d is None else "info differs at " + d
    if kind == "built":
        typ, rate, elems = parts
        items = [] if elems == "-" else [_elem(typ, x) for x in elems.split(",")]
        got = sbf.build(items, float(rate))
        return None if got is not None and got.to_bytes().hex() == hexa else "sbf.build gives other bytes"
    if kind == "built_window":
        typ, width, buckets, rate, elems = parts
        pairs = []
        for item in elems.split(","):
            e, _, at = item.partition("@")
            pairs.append((_elem(typ, e), EPOCH + timedelta(microseconds=int(at))))
        got = sbf.build_window(pairs, bucket=timedelta(microseconds=int(width)),
                               buckets=int(buckets), error_rate=float(rate))
        return None if got is not None and got.to_bytes().hex() == hexa else "sbf.build_window gives other bytes"
    return None  # a record type this reader does not know


@pytest.mark.parametrize("case", [c for c in CASES if c[0] == "value"], ids=lambda c: c[1])
def test_kit_value(case):
    _, name, hexa, records = case
    f = sbf.Filter.from_bytes(_bytes(hexa))
    assert f.to_bytes().hex() == hexa
    kinds = {k for k, _ in records}
    assert {"cardinality", "info", "contains"} <= kinds
    wrong = [d for d in (_check(f, hexa, k, r) for k, r in records) if d]
    assert not wrong, "%s: %d of %d records differ, first: %s" % (name, len(wrong), len(records), wrong[:5])


def test_kit_has_every_form():
    """The kit holds every version and segment kind (a kit that lost a form fails here)."""
    names = [c[1] for c in CASES]
    for prefix in ("v1_", "v2_exact", "v2_bloom", "v3_window", "v4_fused", "v4_bloom",
                   "v4_blocked", "v4_window", "v4_union", "v4_delta", "hs1_"):
        assert any(n.startswith(prefix) for n in names), prefix
    kinds = set()
    for kind, _, hexa, records in CASES:
        for k, r in records:
            if k == "info":
                info = json.loads(r)
                if isinstance(info.get("segments"), list):
                    kinds.update(s.get("kind") for s in info["segments"])
                for b in info.get("window", []):
                    kinds.update(b.get("kinds", []))
    assert {"bloom", "blocked", "fused"} <= kinds


def test_kit_malformed_refused():
    refused = accepted = 0
    wrong = []
    for line in _records("malformed.txt"):
        kind, name, hexa = line.split(" ")
        if kind != "malformed":
            continue  # malformed_hashset: the package reads no hash sets
        try:
            sbf.Filter.from_bytes(_bytes(hexa))
        except ValueError:
            refused += 1
            continue
        accepted += 1
        wrong.append(name)
    assert refused > 100
    assert not wrong, "accepted: %s" % wrong[:10]


def test_kit_hashes():
    n = 0
    for line in _records("hashes.txt"):
        _, typ, elem, u64 = line.split(" ")
        got = sbf.element_hash(_elem(typ, elem))
        assert "%016x" % got == u64, (typ, elem[:40])
        n += 1
    assert n > 100
