"""Decompression that counts the bytes going in and coming out, and stops an archive that inflates too far."""

from __future__ import annotations

import bz2
import lzma
import zlib
from typing import BinaryIO, Protocol

from reviewbot.errors import PermanentError

CHUNK = 1 << 16


class ArchiveBomb(PermanentError):
    """The archive decompresses to far more than a source tree would: stopped before it costs real time."""


class _Decompressor(Protocol):
    def decompress(self, data: bytes, max_length: int = -1) -> bytes: ...

    @property
    def eof(self) -> bool: ...

    @property
    def needs_input(self) -> bool: ...


class _Zlib:
    """zlib's decompressobj keeps what `max_length` held back in `unconsumed_tail`; this feeds it back."""

    def __init__(self) -> None:
        self._d = zlib.decompressobj(wbits=47)  # 32 + 15: gzip or zlib header, detected

    def decompress(self, data: bytes, max_length: int = -1) -> bytes:
        return self._d.decompress(self._d.unconsumed_tail + data, max(0, max_length))

    @property
    def eof(self) -> bool:
        return self._d.eof

    @property
    def needs_input(self) -> bool:
        return not self._d.unconsumed_tail


def _decompressor(magic: bytes) -> _Decompressor | None:
    if magic.startswith(b"\x1f\x8b"):
        return _Zlib()
    if magic.startswith(b"BZh"):
        return bz2.BZ2Decompressor()
    if magic.startswith(b"\xfd7zXZ\x00"):
        return lzma.LZMADecompressor()
    return None  # a plain tar (the CLI's `git archive`)


class BoundedReader:
    """A read-only stream of the archive's uncompressed bytes for `tarfile.open(mode="r|")`.

    It raises ArchiveBomb once the output passes `max_output` bytes, or passes `ratio_floor` bytes while being
    more than `max_ratio` times the input read so far. Both are counted on every read, so even one huge member
    that the extractor skips (skipping still decompresses it) is stopped within a chunk."""

    def __init__(self, raw: BinaryIO, *, max_output: int, max_ratio: float, ratio_floor: int) -> None:
        self.raw = raw
        self.max_output, self.max_ratio, self.ratio_floor = max_output, max_ratio, ratio_floor
        self.bytes_out = 0
        self._head = raw.read(6)  # the magic number says which decompressor; then it is the first input
        self.bytes_in = len(self._head)
        self._decoder = _decompressor(self._head)

    def read(self, size: int = -1) -> bytes:
        want = CHUNK if size < 0 else size
        out = bytearray()
        while len(out) < want:
            if self._decoder is not None and self._decoder.eof:
                break
            data = b""
            if self._decoder is None or self._decoder.needs_input:
                limit = want - len(out) if self._decoder is None else CHUNK
                data = self._head[:limit] or self._take(limit)
                self._head = self._head[len(data):]
                if not data:
                    break
            if self._decoder is None:
                out += data
            else:
                out += self._decoder.decompress(data, want - len(out))
        self.bytes_out += len(out)
        self._check()
        return bytes(out)

    def _take(self, size: int) -> bytes:
        data = self.raw.read(size)
        self.bytes_in += len(data)
        return data

    def _check(self) -> None:
        mb_out, mb_in = self.bytes_out / 1e6, self.bytes_in / 1e6
        if self.bytes_out > self.max_output:
            raise ArchiveBomb(f"the repository archive decompresses to more than {self.max_output / 1e6:,.0f} MB "
                              f"(stopped after {mb_out:,.0f} MB from {mb_in:,.1f} MB compressed)")
        if self.bytes_out > self.ratio_floor and self.bytes_out > self.max_ratio * max(1, self.bytes_in):
            raise ArchiveBomb(f"the repository archive inflates more than {self.max_ratio:.0f}-fold, like a "
                              f"decompression bomb (stopped after {mb_out:,.0f} MB from {mb_in:,.1f} MB compressed)")
