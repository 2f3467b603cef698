"""`reviewbot config schema|validate`: the repository configuration file (.github/reviewbot.yml), for CI."""

from __future__ import annotations

import sys
from pathlib import Path

from reviewbot.cli.common import Subparsers


def add(sub: Subparsers) -> None:
    config = sub.add_parser("config", help="the repository configuration file (.github/reviewbot.yml)")
    config_sub = config.add_subparsers(dest="config_command", required=True)
    schema = config_sub.add_parser("schema", help="print the JSON Schema of .github/reviewbot.yml")
    schema.set_defaults(handler=lambda args: config_command("schema", None))
    validate = config_sub.add_parser("validate", help="check a .github/reviewbot.yml (exit 1 when invalid)")
    validate.add_argument("file", type=Path, nargs="?", default=Path(".github/reviewbot.yml"),
                          help="the file to check (default: .github/reviewbot.yml)")
    validate.add_argument("--org", action="store_true",
                          help="the file is the organisation's defaults (its .github repository's): org-only keys "
                               "such as linked_issues are allowed")
    validate.set_defaults(handler=lambda args: config_command("validate", args.file, org=args.org))


def config_command(command: str, path: Path | None, *, org: bool = False) -> int:
    """`config schema` prints the published schema; `config validate FILE` is for CI."""
    from reviewbot.review.config import json_schema, parse_config

    if command == "schema":
        print(json_schema())
        return 0
    assert path is not None
    try:
        text = path.read_text()
    except OSError as exc:
        hint = " (run it in the repository's root, or name the file)" if not path.is_absolute() else ""
        print(f"reviewbot: cannot read {path}: {exc.strerror}{hint}", file=sys.stderr)
        return 1
    errors = [e.removesuffix("; ignored, the file's other keys apply")  # a review would ignore it: here, fix it
              for e in parse_config(text, source=str(path), org_file=org).errors]
    for error in errors:
        print(error, file=sys.stderr)
    if not errors:
        print(f"{path}: valid")
    return 1 if errors else 0
