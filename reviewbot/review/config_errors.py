"""A configuration file's problems said so that a person can fix them: the line, the value given, the key meant;
and the file without the keys at fault, so that one typo does not throw away every other setting."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, get_args

import yaml
from pydantic import BaseModel, ValidationError

Loc = tuple[str | int, ...]


@dataclass(frozen=True)
class Problem:
    loc: Loc
    text: str  # "`.github/reviewbot.yml` line 3: `ignroe` is not a key (did you mean `ignore`?)"


def problems(exc: ValidationError, text: str | None, source: str, model: type[BaseModel]) -> list[Problem]:
    root = _compose(text)
    found: list[tuple[int, Problem]] = []
    for error in exc.errors()[:20]:
        loc: Loc = tuple(error["loc"])
        line = _line(root, loc)
        where = f"{source}" + (f" line {line}" if line else "")
        dotted = ".".join(str(p) for p in loc)
        if error["type"] == "extra_forbidden":
            meant = difflib.get_close_matches(str(loc[-1]), _fields(model, loc[:-1]), n=1, cutoff=0.6)
            what = (f"`{dotted}` is not a key" + (f" (did you mean `{meant[0]}`?)" if meant else "")
                    + f", given {_shown(error.get('input'))}")
        else:
            what = f"`{dotted}`: {error['msg']} (got {_shown(error.get('input'))})"
        found.append((line or 0, Problem(loc, f"{where}: {what}")))
    return [p for _, p in sorted(found, key=lambda pair: pair[0])]  # in the file's order


def without(data: dict[str, Any], loc: Loc) -> bool:
    """Remove the setting at fault from the file's mapping (the nearest key above a list item); False when it is
    not in the file (it came from the organisation's defaults)."""
    parent: Any = data
    for i, part in enumerate(loc):
        if not isinstance(parent, dict) or part not in parent:
            return False
        if i == len(loc) - 1 or not isinstance(parent[part], dict):
            del parent[part]
            return True
        parent = parent[part]
    return False


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "…"


def _fields(model: type[BaseModel], path: Sequence[str | int]) -> list[str]:
    """The keys allowed where `path` leads (inside nested settings and lists of them)."""
    current: type[BaseModel] = model
    for part in path:
        if isinstance(part, int):
            continue
        field = current.model_fields.get(part)
        if field is None:
            return []
        nested = [t for t in (field.annotation, *get_args(field.annotation))
                  if isinstance(t, type) and issubclass(t, BaseModel)]
        if not nested:
            return []
        current = nested[0]
    return list(current.model_fields)


def _compose(text: str | None) -> yaml.Node | None:
    try:
        return yaml.compose(text or "", Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None


def _line(node: yaml.Node | None, loc: Loc) -> int | None:
    """The 1-based line of the key (or list item) at `loc`, or of the nearest one above it that the file has."""
    line = None
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            match = next(((k, v) for k, v in node.value if getattr(k, "value", None) == str(part)), None)
            if match is None:
                break
            line, node = match[0].start_mark.line + 1, match[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            break
    return line
