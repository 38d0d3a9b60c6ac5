"""sbf: read, check and build PostgreSQL ``scalablebloom`` values in Python.

A C extension over the sbf extension's own pure-C core (``src/core``), so a
``Filter`` answers exactly as the server does:

* ``Filter.from_bytes(b)`` / ``f.to_bytes()``: a value's bytes (``f::bytea``),
  fully validated (``ValueError`` names the defect).
* ``x in f`` and ``f.contains(x, since=None)``: ``f @> x`` and
  ``sbf_contains(f, x, since)``.  ``x`` is ``str`` (hashed as its UTF-8
  bytes, as ``text`` in a UTF8 database), ``bytes`` (as ``bytea``) or
  ``int`` (as ``bigint``; outside -2**63 .. 2**63-1 it raises
  ``OverflowError``); other types raise ``TypeError``.  ``since`` is an aware
  ``datetime``.
* ``f.matches(items, since=None)``: ``sbf_matches``; ``None`` items are
  skipped, as SQL NULL array elements are.
* ``f.cardinality()`` and ``f.info()``: ``#`` and ``sbf_info`` (same keys and
  values as the parsed jsonb).
* ``build(items, error_rate=0.01)`` and ``build_window(pairs, ...)``: the
  bytes of ``sbf_agg`` and ``sbf_window_agg`` over the same rows (``None``
  when no row has an element, as the aggregates return NULL).
* ``sbf.psycopg.register(conn)``: psycopg 3 adapters.
"""
from datetime import timedelta

from ._sbf import Filter, MAX_BUCKETS, MAX_BYTES, hash as _hash

__all__ = ["Filter", "build", "build_window", "element_hash"]
__version__ = "1.4.0"

_ONE_US = timedelta(microseconds=1)


def element_hash(x):
    """The 64-bit hash sbf gives element x (XXH3_64, seed 0)."""
    return _hash(x)


def _rate(error_rate):
    if isinstance(error_rate, bool) or not isinstance(error_rate, (int, float)):
        raise TypeError("error_rate is a float, not %s" % type(error_rate).__name__)
    return float(error_rate)


def build(items, error_rate=0.01):
    """A filter of the items with the bytes ``sbf_agg(x, error_rate)`` gives.

    ``None`` items are skipped; with no element at all the result is
    ``None``, as the aggregate returns NULL for no rows.
    """
    from ._sbf import build as _build
    return _build(items, _rate(error_rate))


def build_window(pairs, bucket=timedelta(days=1), buckets=30, error_rate=0.01):
    """A windowed filter with the bytes ``sbf_window_agg(x, at, bucket,
    buckets, error_rate)`` gives over ``pairs`` of (element, aware datetime).

    Pairs with a ``None`` element or time are skipped; with none left the
    result is ``None`` (the aggregate's NULL).
    """
    from ._sbf import build_window as _build_window
    if not isinstance(bucket, timedelta):
        raise TypeError("bucket is a datetime.timedelta, not %s" % type(bucket).__name__)
    if isinstance(buckets, bool) or not isinstance(buckets, int):
        raise TypeError("buckets is an int, not %s" % type(buckets).__name__)
    if not 1 <= buckets <= MAX_BUCKETS:
        raise ValueError("buckets must be between 1 and %d, not %d" % (MAX_BUCKETS, buckets))
    width = bucket // _ONE_US
    if width <= 0:
        raise ValueError("bucket must be longer than 0")
    return _build_window(pairs, width, buckets, _rate(error_rate))
