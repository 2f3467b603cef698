"""What `--repo` names, decided by the file system: an existing directory is a local path, `OWNER/NAME` that is
not a directory is a repository on GitHub, anything else is a mistake said as such."""

from __future__ import annotations

import string
from pathlib import Path

from reviewbot.errors import ConfigError

_OWNER = frozenset(string.ascii_letters + string.digits + "-")  # GitHub logins: letters, digits, single hyphens
_NAME = frozenset(string.ascii_letters + string.digits + "-._")


def looks_like_owner_name(text: str) -> bool:
    owner, slash, name = text.partition("/")
    return (bool(slash and owner and name) and set(owner) <= _OWNER and not owner.startswith("-")
            and set(name) <= _NAME and name not in (".", ".."))


def local_or_remote(raw: str) -> Path | str:
    """A local directory (Path) or OWNER/NAME (str); ConfigError for neither, before anything is started."""
    path = Path(raw).expanduser()
    if path.is_dir():
        return path
    if path.exists():
        raise ConfigError(f"--repo {raw}: not a directory")
    if looks_like_owner_name(raw):
        return raw
    raise ConfigError(f"--repo {raw}: no such directory, and not OWNER/NAME")
