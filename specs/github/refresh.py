"""Regenerate the pinned GitHub specification subsets from Octokit's published npm packages.

    .venv/bin/python specs/github/refresh.py              # `npm pack`s the newest versions into a temp dir
    .venv/bin/python specs/github/refresh.py --from DIR   # or uses the .tgz files already in DIR

Writes, from `@octokit/openapi` (GitHub's REST description), `@octokit/graphql-schema` and
`@octokit/webhooks-examples` (all MIT):
  specs/github/rest-subset.json        the REST operations below and every component they reference
  specs/github/graphql-subset.graphql  the GraphQL types and fields our documents select, and their arguments
  tests/fixtures/webhooks/published/   every example payload of the events the App receives
  specs/github/VERSIONS.json           package versions and tarball integrity, read by SOURCES.md and the tests
Nothing in the test suite reads npm or the network: only these copies.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "specs" / "github"
HOOKS = ROOT / "tests" / "fixtures" / "webhooks" / "published"
PACKAGES = {"openapi": "@octokit/openapi", "graphql": "@octokit/graphql-schema",
            "webhooks": "@octokit/webhooks-examples"}

# Every REST operation the bot calls or the fake GitHub serves (tests/fakes/github.py routes), as GitHub names it.
_R = "/repos/{owner}/{repo}"
OPERATIONS: list[tuple[str, str]] = [
    ("get", "/app"), ("get", "/app/installations"), ("get", "/app/installations/{installation_id}"),
    ("post", "/app/installations/{installation_id}/access_tokens"), ("get", f"{_R}/installation"),
    ("get", "/installation/repositories"), ("get", "/app/hook/deliveries"),
    ("post", "/app/hook/deliveries/{delivery_id}/attempts"),
    ("post", "/app-manifests/{code}/conversions"), ("patch", "/app/hook/config"),
    ("get", _R), ("get", f"{_R}/git/trees/{{tree_sha}}"), ("get", f"{_R}/contents/{{path}}"),
    ("get", f"{_R}/tarball/{{ref}}"), ("get", f"{_R}/commits/{{ref}}"), ("get", f"{_R}/compare/{{basehead}}"),
    ("get", f"{_R}/collaborators/{{username}}/permission"),
    ("get", f"{_R}/pulls/{{pull_number}}"), ("get", f"{_R}/pulls/{{pull_number}}/files"),
    ("get", f"{_R}/pulls/{{pull_number}}/reviews"), ("post", f"{_R}/pulls/{{pull_number}}/reviews"),
    ("get", f"{_R}/pulls/{{pull_number}}/comments"),
    # Outcomes (issue 35): reactions on the App's line comments, read when the pull request closes.
    ("get", f"{_R}/pulls/comments/{{comment_id}}/reactions"),
    ("post", f"{_R}/pulls/{{pull_number}}/comments/{{comment_id}}/replies"),
    ("post", f"{_R}/check-runs"), ("get", f"{_R}/check-runs/{{check_run_id}}"),
    ("patch", f"{_R}/check-runs/{{check_run_id}}"), ("get", f"{_R}/check-runs/{{check_run_id}}/annotations"),
    ("get", f"{_R}/commits/{{ref}}/check-runs"), ("get", f"{_R}/check-suites/{{check_suite_id}}/check-runs"),
    ("get", f"{_R}/issues/{{issue_number}}/comments"), ("post", f"{_R}/issues/{{issue_number}}/comments"),
    ("get", f"{_R}/issues/comments/{{comment_id}}"), ("patch", f"{_R}/issues/comments/{{comment_id}}"),
    ("get", f"{_R}/issues/comments/{{comment_id}}/reactions"),
    ("post", f"{_R}/issues/comments/{{comment_id}}/reactions"),
    # Linked issues (reviewbot/app/port/linked_issues.py)
    ("get", f"{_R}/issues/{{issue_number}}"), ("get", f"{_R}/pulls/{{pull_number}}/commits"),
]
# Security audits (issue 23): the SARIF upload and its status, and the tracking issue where code scanning is off.
OPERATIONS += [
    ("post", f"{_R}/code-scanning/sarifs"), ("get", f"{_R}/code-scanning/sarifs/{{sarif_id}}"),
    ("get", f"{_R}/issues"), ("post", f"{_R}/issues"), ("patch", f"{_R}/issues/{{issue_number}}"),
]
# Disclosure (issue 30): an audit of a public repository whose code scanning is refused goes to one private draft
# repository security advisory, found again by id (GET) and edited (PATCH), never to a public issue.
OPERATIONS += [
    ("get", f"{_R}/security-advisories"), ("post", f"{_R}/security-advisories"),
    ("get", f"{_R}/security-advisories/{{ghsa_id}}"), ("patch", f"{_R}/security-advisories/{{ghsa_id}}"),
]
# Fixes (issue 34): one commit on a pull request's branch through the Git Data API (blobs, a tree on the head's,
# the commit, then a non-forced ref update), and the ref read back.
OPERATIONS += [
    ("post", f"{_R}/git/blobs"), ("post", f"{_R}/git/trees"), ("post", f"{_R}/git/commits"),
    ("get", f"{_R}/git/commits/{{commit_sha}}"), ("get", f"{_R}/git/ref/{{ref}}"),
    ("patch", f"{_R}/git/refs/{{ref}}"), ("post", f"{_R}/git/refs"),
]
# Audit fixes (issue 34): a fix pull request from a `reviewbot/fix/…` branch against the audited branch, and the
# code-scanning alert `@app fix #12` names.
OPERATIONS += [("post", f"{_R}/pulls"), ("get", f"{_R}/code-scanning/alerts/{{alert_number}}")]
# One memory with code scanning (issue 35): a review reads its own tool's open alerts.
OPERATIONS += [("get", f"{_R}/code-scanning/alerts")]
# Rules learnt in the open (issue 35 §2): a proposal's pull request is looked up by its head branch and opened.
OPERATIONS += [("get", f"{_R}/pulls"), ("post", f"{_R}/pulls")]
# The events the App subscribes to (app.yml) and the ones GitHub always sends an App.
EVENTS = ["pull_request", "issue_comment", "check_run", "check_suite", "pull_request_review_comment",
          "installation", "installation_repositories", "ping", "push", "code_scanning_alert"]


def fetch(dest: Path) -> dict[str, Path]:
    """`npm pack` each package into `dest` (the registry's newest version); returns name -> tarball."""
    found = {}
    for key, package in PACKAGES.items():
        existing = sorted(dest.glob(package.replace("@", "").replace("/", "-") + "-*.tgz"))
        if not existing:
            subprocess.run(["npm", "pack", "--silent", package], cwd=dest, check=True,  # noqa: S603, S607
                           stdout=subprocess.DEVNULL)
            existing = sorted(dest.glob(package.replace("@", "").replace("/", "-") + "-*.tgz"))
        found[key] = existing[-1]
    return found


def read_member(tarball: Path, name: str) -> bytes:
    with tarfile.open(tarball) as tar:
        member = tar.extractfile(f"package/{name}")
        if member is None:
            raise SystemExit(f"{tarball.name} has no {name}")
        return member.read()


def rest_subset(spec: dict[str, Any]) -> dict[str, Any]:
    """The listed operations with their referenced components (transitively); examples dropped for size."""
    paths: dict[str, Any] = {}
    for method, path in OPERATIONS:
        item = spec["paths"].get(path, {})
        if method not in item:
            raise SystemExit(f"GitHub's description has no {method.upper()} {path}: update OPERATIONS")
        paths.setdefault(path, {})[method] = item[method]
    components: dict[str, dict[str, Any]] = {}
    pending = _refs(paths)
    while pending:
        ref = pending.pop()
        _, _, kind, name = ref.split("/", 3)
        if kind == "examples" or name in components.get(kind, {}):
            continue
        target = spec["components"][kind][name]
        components.setdefault(kind, {})[name] = _without_examples(target)
        pending |= _refs(target)
    return {"openapi": spec["openapi"], "info": spec["info"], "servers": spec.get("servers", []),
            "paths": _without_examples(paths),
            "components": {k: dict(sorted(v.items())) for k, v in sorted(components.items())}}


def _refs(node: Any) -> set[str]:
    if isinstance(node, dict):
        found = {node["$ref"]} if isinstance(node.get("$ref"), str) else set()
        return found.union(*(_refs(v) for k, v in node.items() if k != "examples"))
    if isinstance(node, list):
        return set().union(*(_refs(v) for v in node))
    return set()


def _without_examples(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _without_examples(v) for k, v in node.items() if k not in ("examples", "example")}
    if isinstance(node, list):
        return [_without_examples(v) for v in node]
    return node


def graphql_subset(sdl: str) -> str:
    """GitHub's schema pruned to the fields our documents select (plus the input and enum types they need)."""
    sys.path.insert(0, str(ROOT))
    from graphql import build_schema, parse, print_type
    from graphql.language import Visitor, visit
    from graphql.type import (
        GraphQLEnumType,
        GraphQLInputObjectType,
        GraphQLInterfaceType,
        GraphQLObjectType,
        GraphQLScalarType,
        get_named_type,
        is_input_type,
    )
    from graphql.utilities import TypeInfo
    from graphql.utilities.type_info import TypeInfoVisitor

    from reviewbot.app.port.linked_issues import CLOSING_QUERY
    from reviewbot.app.threads import RESOLVE_MUTATION, THREADS_QUERY

    # The published SDL defines two EnterpriseOwnerInfo fields twice, which strict SDL validation refuses.
    schema = build_schema(sdl, assume_valid_sdl=True)
    used: dict[str, set[str]] = {}
    named: set[str] = set()
    info = TypeInfo(schema)

    class Collect(Visitor):
        def enter_field(self, node: Any, *_: Any) -> None:
            parent = info.get_parent_type()
            if parent is not None:
                used.setdefault(parent.name, set()).add(node.name.value)
                field = parent.fields[node.name.value]  # type: ignore[union-attr]
                named.add(get_named_type(field.type).name)
                named.update(get_named_type(arg.type).name for arg in field.args.values())

    for document in (THREADS_QUERY, RESOLVE_MUTATION, CLOSING_QUERY):
        visit(parse(document), TypeInfoVisitor(info, Collect()))
    # Input objects are kept whole (every required field matters), and the input types they reach.
    todo = [n for n in named if is_input_type(schema.get_type(n))]
    while todo:
        kind = schema.get_type(todo.pop())
        if isinstance(kind, GraphQLInputObjectType):
            for field in kind.fields.values():
                name = get_named_type(field.type).name
                if name not in named:
                    named.add(name)
                    todo.append(name)
    parts = []
    for name in sorted(named | set(used)):
        kind = schema.get_type(name)
        if isinstance(kind, GraphQLObjectType):
            kept = {k: v for k, v in kind.fields.items() if k in used.get(name, set())}
            kind = GraphQLObjectType(name, kept, description=kind.description)
        elif isinstance(kind, GraphQLInterfaceType):
            kept = {k: v for k, v in kind.fields.items() if k in used.get(name, set())}
            kind = GraphQLInterfaceType(name, kept, description=kind.description)
        elif not isinstance(kind, GraphQLScalarType | GraphQLEnumType | GraphQLInputObjectType):
            continue
        if isinstance(kind, GraphQLScalarType) and name in ("String", "Int", "Boolean", "ID", "Float"):
            continue
        parts.append(print_type(kind))
    roots = {"Query": "query", "Mutation": "mutation"}
    schema_def = "schema {\n" + "".join(f"  {op}: {t}\n" for t, op in roots.items() if t in used) + "}"
    return "\n\n".join([schema_def, *parts]) + "\n"


def webhook_examples(index: list[dict[str, Any]], version: str) -> dict[str, int]:
    HOOKS.mkdir(parents=True, exist_ok=True)
    counts = {}
    for entry in index:
        if entry["name"] in EVENTS:
            lines = [json.dumps(example, ensure_ascii=False, sort_keys=True) for example in entry["examples"]]
            (HOOKS / f"{entry['name']}.jsonl").write_text("\n".join(lines) + "\n")
            counts[entry["name"]] = len(lines)
    missing = set(EVENTS) - set(counts)
    if missing:
        raise SystemExit(f"@octokit/webhooks-examples {version} has no examples for {sorted(missing)}")
    return dict(sorted(counts.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from", dest="source", type=Path, help="a directory holding the three .tgz files")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tarballs = fetch(args.source or Path(tmp))
        meta = {key: json.loads(read_member(path, "package.json")) for key, path in tarballs.items()}
        versions = {key: {"package": PACKAGES[key], "version": meta[key]["version"], "license": meta[key]["license"],
                          "tarball_sha256": hashlib.sha256(path.read_bytes()).hexdigest()}
                    for key, path in tarballs.items()}
        spec = json.loads(read_member(tarballs["openapi"], "generated/api.github.com.json"))
        (HERE / "rest-subset.json").write_text(json.dumps(rest_subset(spec), indent=1, sort_keys=True) + "\n")
        sdl = read_member(tarballs["graphql"], "schema.graphql").decode()
        (HERE / "graphql-subset.graphql").write_text(graphql_subset(sdl))
        index = json.loads(read_member(tarballs["webhooks"], "api.github.com/index.json"))
        versions["webhooks"]["examples"] = webhook_examples(index, versions["webhooks"]["version"])
        versions["openapi"]["operations"] = len(OPERATIONS)
    (HERE / "VERSIONS.json").write_text(json.dumps(versions, indent=2, sort_keys=True) + "\n")
    print(json.dumps({k: v["version"] for k, v in versions.items()}))


if __name__ == "__main__":
    main()
