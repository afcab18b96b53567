"""Opening the files the readers read (gzip, bz2 and xz recognised by their first bytes and
decompressed as a stream; text streams encoded as UTF-8), and importing pyarrow with an
install hint.

The TREC text itself is parsed by the compiled reader (``_runfile.py``); the CSV and Parquet
tables by pyarrow (``_table.py``).
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
from typing import Any

from .._validation import public_name
from ..exceptions import InputError
from ._common import BOM, Source, source_name

__all__ = ["import_pyarrow", "open_binary"]

_MAGIC = ((b"\x1f\x8b", lambda f: gzip.GzipFile(fileobj=f)), (b"BZh", bz2.BZ2File),
          (b"\xfd7zXZ\x00", lzma.LZMAFile))


def import_pyarrow(default: str = "skrank.io") -> tuple[Any, Any, Any]:
    """Return ``(pyarrow, pyarrow.csv, pyarrow.compute)`` or raise an install hint.

    The hint names the public function running (:func:`~skrank._validation.public_name`),
    else ``default``.
    """
    try:
        import pyarrow
        import pyarrow.compute
        import pyarrow.csv
    except ImportError as exc:
        raise ImportError(
            f"{public_name(default)} needs pyarrow to read files; install it with: pip install "
            "'skrank[pandas]' (or pip install pyarrow)"
        ) from exc
    return pyarrow, pyarrow.csv, pyarrow.compute


class _Prefixed(io.RawIOBase):
    """A binary stream that first returns ``head`` (bytes already read), then the rest."""

    def __init__(self, head: bytes, rest: Any) -> None:
        self._head = head
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        if self._head:
            n = min(len(view), len(self._head))
            view[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        data = self._rest.read(len(view))
        view[: len(data)] = data
        return len(data)


def open_binary(source: Source) -> tuple[Any, bool]:
    """Open ``source`` as a binary stream of its decompressed bytes.

    Returns the stream and whether the caller must close it. Text streams are encoded as
    UTF-8; gzip, bz2 and xz data are recognised by their magic bytes.
    """
    name = source_name(source)
    if isinstance(source, (str, os.PathLike)):
        try:
            fh: Any = open(source, "rb")  # closed by the caller
        except FileNotFoundError:
            raise InputError(f"{name}: no such file.") from None
        except IsADirectoryError:
            raise InputError(f"{name}: is a directory, not a file.") from None
        owned = True
    else:
        fh, owned = source, False
        if isinstance(fh, io.TextIOBase) or isinstance(fh.read(0), str):
            fh = io.BytesIO(fh.read().encode("utf-8"))
    head = fh.read(6)
    raw: Any = _Prefixed(head, fh)
    for magic, opener in _MAGIC:
        if head.startswith(magic):
            raw = opener(io.BufferedReader(raw, 1 << 20))
            break
    if owned:
        return _Closing(raw, fh), True
    return raw, False



def read_head(path: Source, size: int) -> bytes:
    """The first ``size`` bytes of a file's text (a path or a binary file object):
    decompressed (see :func:`open_binary`), without a UTF-8 byte order mark."""
    stream, _ = open_binary(path)
    try:
        head = b""
        while len(head) < size:  # (a plain file's stream gives its first bytes apart)
            chunk = stream.read(size - len(head))
            if not chunk:
                break
            head += chunk
    finally:
        stream.close()
    return head[len(BOM):] if head.startswith(BOM) else head

class _Closing:
    """Read from ``stream``; closing closes the underlying file too."""

    def __init__(self, stream: Any, fh: Any) -> None:
        self._stream, self._fh = stream, fh

    def read(self, size: int = -1) -> bytes:
        return self._stream.read(size)

    def close(self) -> None:
        self._fh.close()
