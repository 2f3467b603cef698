"""A JSON Schema trimmed for servers that compile it into a sampling grammar (llama.cpp's `json_object` form)."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

# What a grammar-constrained server can follow cheaply: the shape (types, properties, items, enums) and which
# properties must be written. Everything else is checked on our side by the full schema (pydantic) anyway.
KEPT = frozenset({"type", "properties", "required", "items", "enum", "const", "anyOf", "oneOf", "$ref", "$defs",
                  "additionalProperties"})
NAMED = frozenset({"properties", "$defs"})  # mappings of names to schemas: the names are data, not keywords


def grammar_schema(schema: dict[str, Any], optional: Collection[str] = (),
                   nonempty: Collection[str] = ()) -> dict[str, Any]:
    """The schema as a grammar should see it; pure, the input is not changed.

    Kept: types, properties, items, enums, `anyOf`/`oneOf`, references and `additionalProperties: false` (it
    costs a grammar nothing).
    Dropped: bounds and formats — `minimum`/`maximum`, `minLength`/`maxLength`, `minItems`/`maxItems`,
    `pattern`, `format`, descriptions — which a JSON-Schema-to-grammar converter either ignores or unrolls into
    one nested optional per allowed character or item (a 300-character `maxLength` is 300 of them), and any other
    `additionalProperties` (a free-form key/value rule).
    Not required: the properties named in `optional`, wherever they appear. Strict structured output wants every
    property required, so the review schema lists its defaulted fields (`walkthrough`, `issues`, a finding's
    `suggestion`, ...) as required; a grammar would force a small model to write every one of them, key and
    `null` alike, token by slow token. Left optional, the model may still write them, and the full schema's
    validation fills in the defaults.
    Non-empty: string properties named in `nonempty` get `minLength: 1` (one character rule, nothing unrolled),
    so a small model cannot write the empty title the validation would refuse.
    """
    trimmed: dict[str, Any] = _trim(schema, frozenset(optional), frozenset(nonempty))
    return trimmed


def _trim(node: Any, optional: frozenset[str], nonempty: frozenset[str]) -> Any:
    if isinstance(node, list):
        return [_trim(item, optional, nonempty) for item in node]
    if not isinstance(node, dict):
        return node
    trimmed: dict[str, Any] = {}
    for key, value in node.items():
        if key not in KEPT or (key == "additionalProperties" and value is not False):
            continue
        if key == "properties" and isinstance(value, dict):
            trimmed[key] = {name: _nonempty(_trim(sub, optional, nonempty)) if name in nonempty
                            else _trim(sub, optional, nonempty) for name, sub in value.items()}
        elif key in NAMED and isinstance(value, dict):
            trimmed[key] = {name: _trim(sub, optional, nonempty) for name, sub in value.items()}
        elif key == "required" and isinstance(value, list):
            trimmed[key] = [name for name in value if name not in optional]
        else:
            trimmed[key] = _trim(value, optional, nonempty)
    return trimmed


def _nonempty(node: Any) -> Any:
    return {**node, "minLength": 1} if isinstance(node, dict) and node.get("type") == "string" else node
