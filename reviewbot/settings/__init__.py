"""Settings built from a mapping (the environment plus an optional .env), validated with clear errors."""

from __future__ import annotations

from reviewbot.settings.declare import Var, markdown, variables
from reviewbot.settings.table import (
    CLOUDFLARE_BASE,
    DEFAULT_GITHUB_API_URL,
    DEFAULT_GITHUB_URL,
    DEFAULT_MODEL,
    Settings,
)

__all__ = ["CLOUDFLARE_BASE", "DEFAULT_GITHUB_API_URL", "DEFAULT_GITHUB_URL", "DEFAULT_MODEL", "Settings", "Var",
           "settings_markdown", "settings_table"]


def settings_table() -> tuple[Var, ...]:
    """Every variable Settings reads, in the order it reads them."""
    return variables(Settings)


def settings_markdown() -> str:
    """The configuration table of docs/configuration.md, generated from the Settings declarations."""
    return markdown(settings_table())
