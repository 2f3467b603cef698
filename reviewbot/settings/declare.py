"""A setting declared once, as a dataclass field (variable, parser, default, help); reading and listing them."""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from reviewbot.errors import ConfigError
from reviewbot.settings.parsers import Get, Parser

T = TypeVar("T")
V = TypeVar("V")

_KEY = "reviewbot.settings"


@dataclass(frozen=True)
class Var:
    """One row of the table: the variables that set a Settings attribute, how they are read, and what they mean."""

    names: tuple[str, ...]  # `parse` is given the first; the others are alternatives it also reads
    parse: Parser[Any]
    help: str
    shown: str | None  # the default in words, where the value alone would mislead
    attr: str = ""
    default: Any = None


def env(name: str, parse: Parser[V], default: T, help: str, *, also: tuple[str, ...] = (),
        shown: str | None = None, secret: bool = False) -> V | T:
    """A Settings field read from the variable `name`; secrets are kept out of the repr."""
    var = Var(names=(name, *also), parse=parse, help=help, shown=shown)
    metadata = {_KEY: var}
    if isinstance(default, dict | list | set):  # dataclasses refuse shared mutable defaults
        return field(default_factory=lambda: copy.copy(default), repr=not secret, metadata=metadata)
    return field(default=default, repr=not secret, metadata=metadata)


def variables(cls: type[Any]) -> tuple[Var, ...]:
    """The table, in field order (the order variables are read, so errors are always listed in the same order)."""
    return tuple(dataclasses.replace(f.metadata[_KEY], attr=f.name, default=_default(f))
                 for f in dataclasses.fields(cls) if _KEY in f.metadata)


def read(cls: type[Any], get: Get) -> dict[str, Any]:
    """Every declared attribute of `cls`, parsed from `get`, or its default where its variable is unset; one
    ConfigError naming every bad variable, so that fixing one does not only reveal the next."""
    values: dict[str, Any] = {}
    errors: list[str] = []
    for var in variables(cls):
        try:
            value = var.parse(get, var.names[0])
        except ConfigError as exc:
            errors.append(str(exc))
            continue
        values[var.attr] = var.default if value is None else value
    if errors:
        raise ConfigError("; ".join(errors))
    return values


def markdown(table: tuple[Var, ...]) -> str:
    """The table as a Markdown table: variable, default, meaning."""
    rows = ["| Variable | Default | Meaning |", "|---|---|---|"]
    for var in table:
        shown = var.shown if var.shown is not None else _shown(var.default)
        cells = (" / ".join(f"`{n}`" for n in var.names), shown, var.help)
        rows.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(rows) + "\n"


def _default(f: dataclasses.Field[Any]) -> Any:
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return f.default


def _shown(value: object) -> str:
    if value is None or value == ():
        return "—"
    if isinstance(value, bool):
        return "`on`" if value else "`off`"
    if isinstance(value, float) and value.is_integer():
        return f"`{int(value)}`"
    if isinstance(value, str | int | float | Path):
        return f"`{value}`"
    raise TypeError(f"no way to show the default {value!r}: declare it with shown=")
