"""The environment checked whole, for `reviewbot doctor`: every bad value (not only the first), and names that look
like reviewbot's but are not read by anything, with the variable they were probably meant to be."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from dotenv import dotenv_values

from reviewbot.errors import ConfigError
from reviewbot.settings import parsers as p
from reviewbot.settings.declare import variables
from reviewbot.settings.table import Settings

PREFIXES = ("REVIEWBOT_", "CLOUDFLARE_", "GITHUB_")
# Read outside Settings: the GitHub Actions runner's variables `reviewbot action` uses.
ACTION_NAMES = frozenset({"GITHUB_EVENT_NAME", "GITHUB_EVENT_PATH", "GITHUB_REPOSITORY", "GITHUB_SERVER_URL",
                          "GITHUB_STEP_SUMMARY"})


@dataclass(frozen=True)
class Unknown:
    name: str
    where: str  # ".env" or "the environment"
    meant: str | None  # the closest variable reviewbot reads, when one is close


def known_names() -> frozenset[str]:
    return frozenset(n for v in variables(Settings) for n in v.names) | ACTION_NAMES


@dataclass(frozen=True)
class Checked:
    settings: Settings | None  # built with the bad variables left at their defaults; None if even that fails
    errors: tuple[str, ...]  # one per bad variable


def check_values(env: Mapping[str, str]) -> Checked:
    """Each variable parsed on its own, so that one mistake does not hide the next; the settings the other checks
    can still use are built without the bad ones."""
    get = p.getter(env)
    errors: list[str] = []
    bad: set[str] = set()
    for var in variables(Settings):
        try:
            var.parse(get, var.names[0])
        except ConfigError as exc:
            errors.append(str(exc))
            bad.update(var.names)
    try:
        settings = Settings.from_mapping({k: v for k, v in env.items() if k not in bad})
    except ConfigError:
        settings = None
    return Checked(settings, tuple(errors))


def unknown_names(dotenv: Mapping[str, str], environ: Mapping[str, str]) -> list[Unknown]:
    """Names with reviewbot's prefixes that nothing reads. In `.env` every one is reported (the file is
    reviewbot's); in the process environment other tools' GITHUB_* and CLOUDFLARE_* variables are normal, so only
    REVIEWBOT_* names, or names one typo away from a real variable, are."""
    known = sorted(known_names())
    found = []
    for where, names in ((".env", dotenv), ("the environment", environ)):
        for name in sorted(names):
            if not name.startswith(PREFIXES) or name in known:
                continue
            meant = next(iter(difflib.get_close_matches(name, known, n=1, cutoff=0.8)), None)
            if where == ".env" or name.startswith("REVIEWBOT_") or meant is not None:
                found.append(Unknown(name, where, meant))
    return found


def read_dotenv(env_file: Path | None) -> dict[str, str]:
    if env_file is None or not env_file.is_file():
        return {}
    return {k: v for k, v in dotenv_values(env_file).items() if v is not None}


def unknown_in(environ: Mapping[str, str], env_file: Path | None) -> list[Unknown]:
    """`unknown_names` of the process environment and the .env file, each name reported once (.env's first)."""
    dotenv = read_dotenv(env_file)
    return unknown_names(dotenv, {k: v for k, v in environ.items() if k not in dotenv})


def describe(unknown: list[Unknown]) -> str:
    return "; ".join(f"{u.name} in {u.where} is not a variable reviewbot reads"
                     + (f" (did you mean {u.meant}?)" if u.meant else "") for u in unknown)
