"""Safe extraction of repository archives: regular files only, inside the destination, within size caps."""

from __future__ import annotations

import errno
import lzma
import os
import shutil
import tarfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from reviewbot.errors import PermanentError
from reviewbot.repos.bounded import ArchiveBomb, BoundedReader

NOT_UTF8 = "file name not UTF-8"  # legal in git; would break every text the name reaches (listing, prompt, JSON)
NAME_TOO_LONG = "file name too long for the file system"
NAME_REFUSED = "file name refused by the file system"
NAME_NOTES = (NOT_UTF8, NAME_TOO_LONG, NAME_REFUSED)  # told in the coverage report: the repository holds them
# The file system refusing one name (too long for it, or bytes it does not store) costs that file, not the tree.
_REFUSED_NAMES = {errno.ENAMETOOLONG, errno.EILSEQ}


@dataclass(frozen=True)
class Limits:
    max_file_bytes: int = 5_000_000  # bigger files are data or build output: left out of the tree
    max_total_bytes: int = 1_000_000_000
    max_members: int = 300_000
    # Counted on the decompressed stream, skipped members included: a bomb stops in about a second.
    max_stream_bytes: int = 2_000_000_000
    max_ratio: float = 200.0  # source code inflates 3-10 fold, a tarball of zeros 1000-fold
    ratio_floor: int = 50_000_000  # below this, any ratio is allowed (small, repetitive repositories)


@dataclass
class Extracted:
    files: int = 0
    bytes: int = 0
    truncated: bool = False  # the archive went past max_total_bytes or max_members: the tree is partial
    skipped: dict[str, int] = field(default_factory=dict)  # why -> how many members were left out

    def skip(self, why: str) -> None:
        self.skipped[why] = self.skipped.get(why, 0) + 1


def safe_parts(name: str, strip_top: bool) -> tuple[str, ...] | None:
    """The member's path parts below the destination, or None when it would escape (absolute, `..`, drive)."""
    if name.startswith(("/", "\\")) or "\\" in name or "\0" in name or (len(name) > 1 and name[1] == ":"):
        return None
    parts = [p for p in PurePosixPath(name).parts if p not in ("", ".")]
    if any(p == ".." for p in parts):
        return None
    if strip_top:
        parts = parts[1:]  # GitHub's `owner-repo-sha7/` folder
    return tuple(parts)


def extract(archive: Path, dest: Path, limits: Limits = Limits(), *, strip_top: bool = True) -> Extracted:
    """Stream `archive` (tar, optionally compressed) into the new directory `dest`.

    Links (symbolic and hard), devices and FIFOs are never created, so nothing in the tree can point outside it;
    members with absolute paths or `..` are refused; oversized files are skipped; the totals are capped.
    """
    dest.mkdir(parents=True, exist_ok=False, mode=0o700)  # private source code: this user only
    root = dest.resolve()
    stats = Extracted()
    try:
        with archive.open("rb") as raw, tarfile.open(fileobj=BoundedReader(  # type: ignore[call-overload]
                raw, max_output=limits.max_stream_bytes, max_ratio=limits.max_ratio,
                ratio_floor=limits.ratio_floor), mode="r|") as tar:
            for member in tar:
                if stats.files + sum(stats.skipped.values()) >= limits.max_members:
                    stats.truncated = True
                    break
                if member.isdir():
                    continue  # directories are made on demand, for files that pass the checks
                if member.issym() or member.islnk():
                    stats.skip("link")
                    continue
                if not member.isfile():
                    stats.skip("special file")
                    continue
                parts = safe_parts(member.name, strip_top)
                if not parts:
                    stats.skip("unsafe path")
                    continue
                if not utf8(member.name):
                    stats.skip(NOT_UTF8)
                    continue
                if member.size > limits.max_file_bytes:
                    stats.skip("file too large")
                    continue
                if stats.bytes + member.size > limits.max_total_bytes:
                    stats.truncated = True
                    break
                if (refused := _write(tar, member, root, parts)) is None:
                    stats.files += 1
                    stats.bytes += member.size
                else:
                    stats.skip(refused)
    except ArchiveBomb:
        shutil.rmtree(dest, ignore_errors=True)
        raise
    except (tarfile.TarError, EOFError, OSError, zlib.error, lzma.LZMAError) as exc:
        shutil.rmtree(dest, ignore_errors=True)
        raise PermanentError(f"the repository archive could not be read: {exc}") from None
    return stats


def utf8(name: str) -> bool:
    """Whether the name is text: tarfile keeps undecodable bytes as surrogate escapes, which UTF-8 refuses."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _write(tar: tarfile.TarFile, member: tarfile.TarInfo, root: Path, parts: tuple[str, ...]) -> str | None:
    """None once written, else why the member was left out."""
    target = root.joinpath(*parts)
    if os.path.commonpath([root, target]) != str(root):
        return "path conflict"
    try:
        _make_dirs(root, target.parent)
        # O_EXCL | O_NOFOLLOW: never write through anything already there (duplicates, a file named like a dir).
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except (FileExistsError, NotADirectoryError, IsADirectoryError):
        return "path conflict"
    except OSError as exc:
        if exc.errno in _REFUSED_NAMES:
            return NAME_TOO_LONG if exc.errno == errno.ENAMETOOLONG else NAME_REFUSED
        raise  # a full or read-only disk: the extraction fails as a whole
    source = tar.extractfile(member)
    with os.fdopen(fd, "wb") as out:
        if source is not None:
            shutil.copyfileobj(source, out, 1 << 20)
    return None


def _make_dirs(root: Path, directory: Path) -> None:
    """Every missing directory between `root` and `directory`, 0700 (mkdir's `parents` ignores the mode)."""
    missing = []
    while directory != root and not directory.is_dir():
        missing.append(directory)
        directory = directory.parent
    for path in reversed(missing):
        path.mkdir(mode=0o700)
