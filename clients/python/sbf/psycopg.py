"""psycopg 3 adapters for the ``scalablebloom`` type.

``register(conn)`` makes ``scalablebloom`` results load as ``sbf.Filter``
(text and binary formats) and ``sbf.Filter`` parameters dump as
``scalablebloom`` (binary by default; ``%t`` placeholders send the text
form).  ``conn`` is a ``psycopg.Connection`` or a cursor; for an
``AsyncConnection`` fetch the type first and pass it::

    info = await psycopg.types.TypeInfo.fetch(aconn, "scalablebloom")
    sbf.psycopg.register(aconn, info)
"""
from psycopg.adapt import Dumper, Loader
from psycopg.pq import Format
from psycopg.types import TypeInfo

from . import Filter

__all__ = ["register"]


class FilterTextLoader(Loader):
    format = Format.TEXT

    def load(self, data):
        return Filter.from_text(bytes(data))


class FilterBinaryLoader(Loader):
    format = Format.BINARY

    def load(self, data):
        return Filter.from_bytes(data)


class FilterTextDumper(Dumper):
    format = Format.TEXT

    def dump(self, obj):
        return obj.to_text().encode("ascii")


class FilterBinaryDumper(Dumper):
    format = Format.BINARY

    def dump(self, obj):
        return obj.to_bytes()


def register(conn, info=None):
    """Registers the adapters on conn (a connection or cursor)."""
    if info is None:
        # a cursor fetches through its connection
        info = TypeInfo.fetch(conn if hasattr(conn, "cursor") else conn.connection,
                              "scalablebloom")
    if info is None:
        raise LookupError("type scalablebloom not found: CREATE EXTENSION sbf first")
    adapters = conn.adapters
    adapters.register_loader(info.oid, FilterTextLoader)
    adapters.register_loader(info.oid, FilterBinaryLoader)
    text = type("FilterTextDumper", (FilterTextDumper,), {"oid": info.oid})
    binary = type("FilterBinaryDumper", (FilterBinaryDumper,), {"oid": info.oid})
    adapters.register_dumper(Filter, text)
    adapters.register_dumper(Filter, binary)
