"""A small, checked edit of `.github/reviewbot.yml` that keeps the file as the team wrote it (pure).

No round-trip YAML library is installed, so an edit is textual: a new top-level key is appended; an entry joins
a block-style list or mapping after its last line, indented like its siblings; a one-line flow value is rewritten.
Whatever the text, the result is parsed again and must equal the intended data and validate with no new problem;
otherwise there is no edit (None) and nothing is proposed."""

from __future__ import annotations

import copy
from typing import Any

import yaml

from reviewbot.review.config import parse_config


def add_list_item(text: str, key: str, item: Any, comment: str = "") -> str | None:
    """`text` with `item` appended to the top-level list `key` (created when missing)."""
    data = _mapping(text)
    current = (data.get(key) or []) if data is not None else None  # `key:` with nothing after it is an empty list
    if data is None or not isinstance(current, list):
        return None
    wanted = copy.deepcopy(data)
    wanted[key] = [*current, item]
    return _edit(text, data, wanted, key, _dump([item]), comment)


def set_mapping_entry(text: str, key: str, name: str, value: Any, comment: str = "") -> str | None:
    """`text` with `name: value` added to the top-level mapping `key`; None when `name` is already there."""
    data = _mapping(text)
    current = (data.get(key) or {}) if data is not None else None
    if data is None or not isinstance(current, dict) or name in current:
        return None
    wanted = copy.deepcopy(data)
    wanted[key] = {**current, name: value}
    return _edit(text, data, wanted, key, _dump({name: value}), comment)


def _mapping(text: str) -> dict[str, Any] | None:
    try:
        data = yaml.safe_load(text) if text.strip() else {}
    except yaml.YAMLError:
        return None
    if data is None:
        data = {}
    return data if isinstance(data, dict) else None


def _dump(value: Any) -> list[str]:
    return yaml.safe_dump(value, sort_keys=False, allow_unicode=True, default_flow_style=False,
                          width=10_000).splitlines()


def _edit(text: str, data: dict[str, Any], wanted: dict[str, Any], key: str, entry: list[str],
          comment: str) -> str | None:
    crlf = "\r\n" in text
    lines = text.replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    note = [f"# {line}".rstrip() for line in comment.splitlines()]
    start = next((i for i, line in enumerate(lines) if line.startswith(f"{key}:")), None)
    if key not in data or start is None:
        if start is not None:
            return None  # the key is written but empty in a form we cannot extend safely
        lines += note + _dump({key: wanted[key]})
    else:
        rest = lines[start][len(key) + 1:].split(" #", 1)[0].strip()
        if rest and not rest.startswith(("|", ">", "&", "!")):
            lines[start:start + 1] = note + _dump({key: wanted[key]})  # a one-line flow value, rewritten
        elif rest:
            return None
        else:
            end = start + 1
            while end < len(lines) and (not lines[end].strip() or lines[end][0] in " \t#-"):
                end += 1
            while end > start + 1 and (not lines[end - 1].strip() or lines[end - 1].lstrip().startswith("#")):
                end -= 1
            body = [line for line in lines[start + 1:end] if line.strip() and not line.lstrip().startswith("#")]
            indent = body[0][:len(body[0]) - len(body[0].lstrip())] if body else "  "
            lines[end:end] = [indent + line for line in note] + [indent + line for line in entry]
    edited = "\n".join(lines) + "\n"
    if _mapping(edited) != wanted:
        return None
    if set(parse_config(edited).errors) - set(parse_config(text).errors):
        return None
    return edited.replace("\n", "\r\n") if crlf else edited
