"""GitHub's pinned REST description (specs/github/rest-subset.json) as a checker for the fake GitHub's traffic.

Every REST request the fake receives and every reply it sends is checked against the operation GitHub publishes
for that method and path: path and query parameters, the Accept media type, the JSON body, the status and the
response schema. Schemas are validated by `openapi-schema-validator` (OpenAPI 3.0 on top of `jsonschema`);
this module only finds the operation and feeds it the right parts. GraphQL documents are validated by
`graphql-core` against specs/github/graphql-subset.graphql, deprecated fields refused. A violation is a string,
kept by the fake until the test ends (tests/conftest_fakes.py fails the test that caused it).
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphql import GraphQLError, GraphQLSchema, build_schema, get_operation_ast, parse, specified_rules, validate
from graphql.execution.values import get_variable_values
from graphql.validation import NoDeprecatedCustomRule
from jsonschema.exceptions import ValidationError
from openapi_schema_validator import OAS30ReadValidator, OAS30WriteValidator

SPEC_PATH = Path(__file__).resolve().parents[2] / "specs" / "github" / "rest-subset.json"
# What any REST operation accepts: GitHub's own media type (with or without a version or preview name) and JSON.
_GENERIC_MEDIA = re.compile(r"\*/\*|application/json|application/vnd\.github(\.v3)?(\+json)?"
                            r"|application/vnd\.github\.[a-z0-9-]+-preview(\+json)?")
_CUSTOM_MEDIA = re.compile(r"application/vnd\.github\.[a-z0-9.+-]*[a-z0-9+]")
NOT_REST = ("/graphql", "/_codeload/", "/user-attachments/")  # GraphQL has its own schema; these are not the API


@dataclass(frozen=True)
class Operation:
    method: str
    template: str
    pattern: re.Pattern[str]
    spec: dict[str, Any]
    literal: int  # characters outside parameters: the most specific template wins

    def parameters(self, where: str) -> dict[str, dict[str, Any]]:
        return {p["name"]: p for p in (_resolve(p) for p in self.spec.get("parameters", [])) if p["in"] == where}

    def media_types(self) -> set[str]:
        found = {_media_key(m) for r in self.spec["responses"].values() for m in _resolve(r).get("content", {})}
        return found | {_media_key(m) for m in _CUSTOM_MEDIA.findall(self.spec.get("description", ""))}


@functools.cache
def spec() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SPEC_PATH.read_text())
    _null_in_nullable_enums(loaded)
    return loaded


def _null_in_nullable_enums(node: Any) -> None:
    """GitHub marks enums such as a check run's `conclusion` `nullable` and sends null, but does not list null
    among the values, which OpenAPI 3.0.3 asks for; read the description as GitHub means it."""
    if isinstance(node, dict):
        if node.get("nullable") is True and isinstance(node.get("enum"), list) and None not in node["enum"]:
            node["enum"].append(None)
        for value in node.values():
            _null_in_nullable_enums(value)
    elif isinstance(node, list):
        for value in node:
            _null_in_nullable_enums(value)


@functools.cache
def operations() -> list[Operation]:
    found = []
    for template, item in spec()["paths"].items():
        for method, op in item.items():
            multi = {p["name"] for p in map(_resolve, op.get("parameters", [])) if p.get("x-multi-segment")}
            regex = re.sub(r"\\\{(\w+)\\\}", functools.partial(_group, multi), re.escape(template))
            found.append(Operation(method.upper(), template, re.compile(regex), op,
                                   len(re.sub(r"\{\w+\}", "", template))))
    return found


def _group(multi: set[str], match: re.Match[str]) -> str:
    """A path parameter's pattern: one segment, or several for GitHub's `x-multi-segment` ones (a file path)."""
    return f"(?P<{match[1]}>.+)" if match[1] in multi else f"(?P<{match[1]}>[^/]+)"


def _resolve(node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        _, _, kind, name = node["$ref"].split("/", 3)
        node = spec()["components"][kind][name]
    return node


def _media_key(media: str) -> str:
    """`application/vnd.github.v3.diff` and `application/vnd.github.raw+json` name the same formats as
    `application/vnd.github.diff` and `application/vnd.github.raw`."""
    return media.split(";")[0].strip().lower().replace(".v3.", ".").removesuffix("+json")


def find(method: str, path: str) -> tuple[Operation | None, dict[str, str], str]:
    """The operation for this request, its path parameters, and why there is none."""
    matches = [(op, m) for op in operations() if (m := op.pattern.fullmatch(path))]
    if not matches:
        return None, {}, f"{method} {path}: GitHub documents no such path"
    with_method = [(op, m) for op, m in matches if op.method == method]
    if not with_method:
        return None, {}, f"{method} {path}: GitHub documents only {sorted({op.method for op, _ in matches})} here"
    op, match = max(with_method, key=lambda pair: pair[0].literal)
    return op, match.groupdict(), ""


@functools.cache
def _reply_components(close: bool) -> dict[str, Any]:
    components = spec()["components"]
    return {**components, "schemas": {k: _documented_only(v, close) for k, v in components["schemas"].items()}}


def _documented_only(node: Any, close: bool, here: bool = True) -> Any:
    """A response schema as the fake is held to it: with `close`, no property GitHub does not document (the bot
    must not come to rely on one); documented properties may be missing, as the fake renders only what it models.
    Error bodies are not closed: GitHub adds `status` and `errors` its description leaves out."""
    if isinstance(node, list):
        return [_documented_only(v, close) for v in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "properties":
            out[key] = {name: _documented_only(v, close) for name, v in value.items()}
        elif (key == "required" and isinstance(value, list)) or key == "discriminator":
            continue
        elif key == "allOf":  # each part documents only some properties of the whole, so no part is closed
            out[key] = [_documented_only(_resolve(v), close, here=False) for v in value]
        elif key in ("items", "additionalProperties", "not", "anyOf", "oneOf"):
            out[key] = _documented_only(value, close)
        else:
            out[key] = value
    if close and here and "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False
    return out


def _schema_errors(schema: dict[str, Any], value: Any, *, writing: bool, close: bool = True) -> list[str]:
    if writing:  # what the bot sends is held to the whole description, required properties included
        validator: Any = OAS30WriteValidator({**schema, "components": spec()["components"]})
    else:
        # The description's references are `#/components/...`: giving the schema the components resolves them.
        validator = OAS30ReadValidator({**_documented_only(schema, close), "components": _reply_components(close)})
    errors: list[ValidationError] = sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))
    return [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {_short(e.message)}" for e in errors[:5]]


def _short(message: str) -> str:
    # jsonschema puts the offending value first and the rule last ("[...] is too long"): keep both ends.
    return message if len(message) <= 300 else f"{message[:150]} … {message[-120:]}"


def _coerce(value: str, schema: dict[str, Any]) -> Any:
    kind = _resolve(schema).get("type")
    try:
        if kind == "integer":
            return int(value)
        if kind == "boolean":
            return {"true": True, "false": False}.get(value, value)
    except ValueError:
        return value
    return value


def check_request(method: str, path: str, query: dict[str, str], headers: dict[str, str],
                  body: Any, has_body: bool) -> list[str]:
    if path.startswith(NOT_REST):
        return []
    op, path_params, why = find(method, path)
    if op is None:
        return [why]
    where = f"{method} {op.template}"
    problems = []
    for where_in, values in (("path", path_params), ("query", query)):
        declared = op.parameters(where_in)
        for name, value in values.items():
            if name not in declared:
                problems.append(f"{where}: undocumented {where_in} parameter {name!r}")
                continue
            # A parameter is neither a written nor a read property: GitHub marks some (a code-scanning alert's
            # number) `readOnly` because the same schema describes the alert's own field.
            schema = {k: v for k, v in _resolve(declared[name].get("schema", {})).items() if k != "readOnly"}
            problems += [f"{where}: {where_in} parameter {name}={value!r}: {e}"
                         for e in _schema_errors(schema, _coerce(value, schema), writing=True)]
        problems += [f"{where}: missing required {where_in} parameter {name!r}"
                     for name, p in declared.items() if p.get("required") and name not in values]
    accepted = [_media_key(m) for m in headers.get("accept", "*/*").split(",") if m.strip()]
    problems += [f"{where}: Accept {m!r} is not a media type this operation serves" for m in accepted
                 if not _GENERIC_MEDIA.fullmatch(m) and m not in op.media_types()]
    request_body = _resolve(op.spec["requestBody"]) if "requestBody" in op.spec else None
    if request_body is None:
        if has_body:
            problems.append(f"{where}: GitHub documents no request body here")
    elif not has_body:
        if request_body.get("required"):
            problems.append(f"{where}: the request body is required")
    else:
        schema = request_body["content"].get("application/json", {}).get("schema", {})
        problems += [f"{where}: request body {e}" for e in _schema_errors(schema, body, writing=True)]
    return problems


def check_response(method: str, path: str, status: int, media_type: str, body: Any) -> list[str]:
    """A reply the fake sends: its status must be documented for 2xx/3xx, and a JSON body must fit the schema."""
    if path.startswith(NOT_REST):
        return []
    op, _, _ = find(method, path)
    if op is None:
        return []  # the request was already reported
    where = f"{method} {op.template}"
    documented = op.spec["responses"].get(str(status)) or op.spec["responses"].get("default")
    if documented is None:
        # Errors GitHub sends everywhere (401, 403 rate limits, 5xx) are not listed per operation.
        return [f"{where}: GitHub documents no {status} answer"] if status < 400 else []
    content = _resolve(documented).get("content", {})
    if body is None or not media_type.startswith("application/json"):
        return []
    schema = (content.get("application/json") or {}).get("schema")
    if schema is None:
        return [f"{where}: GitHub documents no JSON body for {status}"] if content else []
    return [f"{where} → {status}: response {e}"
            for e in _schema_errors(schema, body, writing=False, close=status < 400)]


GRAPHQL_PATH = SPEC_PATH.with_name("graphql-subset.graphql")


@functools.cache
def graphql_schema() -> GraphQLSchema:
    return build_schema(GRAPHQL_PATH.read_text())


def check_graphql(query: str, variables: dict[str, Any]) -> list[str]:
    """A GraphQL document against the fields GitHub publishes (deprecated ones included: they are removed in time),
    and its variables against the document's declared types."""
    schema = graphql_schema()
    try:
        document = parse(query)
    except GraphQLError as exc:
        return [f"GraphQL: {exc.message}"]
    errors = validate(schema, document, [*specified_rules, NoDeprecatedCustomRule])
    if not errors:
        operation = get_operation_ast(document)
        definitions = operation.variable_definitions if operation else ()
        coerced = get_variable_values(schema, definitions or (), variables)
        errors = coerced if isinstance(coerced, list) else []
    return [f"GraphQL: {e.message}" for e in errors]
