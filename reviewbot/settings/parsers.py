"""Value parsers for environment variables: each reads one variable, None when unset, and names it in any error."""

from __future__ import annotations

import math
import urllib.parse
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TypeVar

from reviewbot.errors import ConfigError
from reviewbot.settings.catalogue import Price, parse_prices

V = TypeVar("V")

Get = Callable[[str], str | None]
# None means "unset": the caller falls back to the declared default, so parsers never see it.
Parser = Callable[[Get, str], V | None]


def getter(env: Mapping[str, str]) -> Get:
    """A lookup where a blank value counts as unset."""

    def get(name: str) -> str | None:
        value = env.get(name)
        return value.strip() if value and value.strip() else None

    return get


def text(get: Get, name: str) -> str | None:
    return get(name)


def base_url(get: Get, name: str) -> str | None:
    """A base URL taken as given, without its trailing slash."""
    return (get(name) or "").rstrip("/") or None


def slug(get: Get, name: str) -> str | None:
    return (get(name) or "").lstrip("@") or None


def names(get: Get, name: str) -> tuple[str, ...] | None:
    """A comma-separated list of names, each with an optional leading `@`."""
    return tuple(a.strip().lstrip("@") for a in (get(name) or "").split(",") if a.strip()) or None


def path(get: Get, name: str) -> Path | None:
    raw = get(name)
    return None if raw is None else Path(raw)


def data_dir(get: Get, name: str) -> Path | None:
    """The variable as a path (`~` expanded), else the user's data directory (XDG_DATA_HOME, else HOME's
    `.local/share`): never relative to wherever a command happens to run."""
    if (raw := get(name)) is not None:
        return Path(raw).expanduser()
    if (xdg := get("XDG_DATA_HOME")) is not None and Path(xdg).is_absolute():  # the spec: relative ones are invalid
        return Path(xdg) / "reviewbot"
    home = get("HOME")
    return None if home is None else Path(home) / ".local" / "share" / "reviewbot"


def url(get: Get, name: str) -> str | None:
    """An http(s) URL, without its trailing slash."""
    raw = get(name)
    if raw is None:
        return None
    parsed = urllib.parse.urlsplit(raw)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise ConfigError(f"{name} must be an http(s) URL like https://example.com, got {raw!r}")
    return raw.rstrip("/")


def github_web_url(get: Get, name: str) -> str | None:
    """GitHub's web address: as set, else `https://HOST` for an Enterprise Server API `https://HOST/api/v3`."""
    explicit = url(get, name)
    if explicit is not None:
        return explicit
    parts = urllib.parse.urlsplit(url(get, "GITHUB_API_URL") or "")
    if parts.path.rstrip("/").endswith("/api/v3"):
        return f"{parts.scheme}://{parts.netloc}"
    return None


def private_key(get: Get, name: str) -> str | None:
    """The PEM in `name`, else read from the file named by `{name}_PATH`."""
    key = get(name)
    key_path = get(f"{name}_PATH")
    if key is None and key_path is not None:
        try:
            key = Path(key_path).expanduser().read_text()
        except OSError as exc:
            raise ConfigError(f"{name}_PATH: cannot read {key_path}: {exc.strerror}") from None
    return None if key is None else key.replace("\\n", "\n")  # keys pasted into one-line env vars


def number(get: Get, name: str) -> float | None:
    """A positive number."""
    raw = get(name)
    if raw is None:
        return None
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a number, got {raw!r}") from None
    if value <= 0:
        raise ConfigError(f"{name} must be positive, got {raw!r}")
    return value


def count(get: Get, name: str) -> int | None:
    """A positive number, truncated to a whole one."""
    value = number(get, name)
    return None if value is None else int(value)


def dollars_or_off(get: Get, name: str) -> float | None:
    """A positive amount of dollars, or `off` (infinity: no limit, still counted)."""
    raw = get(name)
    if raw is not None and raw.lower() in ("off", "none", "unlimited"):
        return math.inf
    return number(get, name)


def days(get: Get, name: str) -> int | None:
    value = count(get, name)
    return None if value is None else max(1, value)  # a fraction of a day truncates to 0, which would keep nothing


def bounded(low: int, high: int) -> Parser[int]:
    """A whole number from `low` to `high`."""

    def parse(get: Get, name: str) -> int | None:
        value = number(get, name)
        if value is None:
            return None
        if value != int(value) or not low <= value <= high:
            raise ConfigError(f"{name} must be a whole number from {low:,} to {high:,}, got {get(name)!r}")
        return int(value)

    return parse


def switch(get: Get, name: str) -> bool | None:
    """on/off (also 1/0, true/false, yes/no), any case."""
    raw = get(name)
    if raw is None:
        return None
    lowered = raw.lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ConfigError(f"{name} must be on or off, got {raw!r}")


def choice(*allowed: str) -> Parser[str]:
    """One of `allowed`, any case."""

    def parse(get: Get, name: str) -> str | None:
        raw = get(name)
        if raw is None:
            return None
        if raw.lower() not in allowed:
            raise ConfigError(f"{name} must be one of {', '.join(allowed)}, got {raw.lower()!r}")
        return raw.lower()

    return parse


def long_secret(get: Get, name: str) -> str | None:
    raw = get(name)
    if raw is not None and len(raw) < 16:  # it guards cost data over the network: no short guessable words
        raise ConfigError(f"{name} must be at least 16 characters (try `openssl rand -hex 24`)")
    return raw


def prices(get: Get, name: str) -> dict[str, Price] | None:
    """JSON prices per model over the built-in ones."""
    raw = get(name)
    if raw is None:
        return None
    try:
        return parse_prices(raw)
    except ValueError as exc:
        raise ConfigError(f"{name}: {exc}") from None
